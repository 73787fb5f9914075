#!/usr/bin/env python3
"""Builds the Drape Cloth add-on's zips from addon/drape_cloth.

  python3 addon/build_zip.py [OUT.zip]
      addon/dist/drape_cloth.zip: the legacy add-on (bl_info, no binary) for
      Blender 3.x's Edit > Preferences > Add-ons > Install.
  python3 addon/build_zip.py --release [--out DIR] [--platform P ...] [--drape BIN]
      For each platform (all five by default: linux-x64, linux-arm64,
      windows-x64, macos-x64, macos-arm64) cross-compiles drape from
      ./cmd/drape (CGO_ENABLED=0) and writes into DIR (addon/dist):
        drape_cloth-VERSION-P.zip          the Extension (Blender 4.2 and newer,
                                           Get Extensions > Install from Disk),
                                           its manifest listing P only
        drape_cloth-VERSION-P-legacy.zip   the same add-on and binary for
                                           Blender 3.x (bl_info)
      --drape BIN packs a drape built beforehand instead (one platform only).

Both kinds hold the same sources; the binary goes to bin/drape (bin/drape.exe
on Windows), where the add-on looks first. Zips are byte-identical for
identical inputs (fixed timestamps, sorted names)."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PKG = "drape_cloth"
MANIFEST = "blender_manifest.toml"

# Blender's platform names and Go's GOOS/GOARCH for each.
PLATFORMS = {
    "linux-x64": ("linux", "amd64"),
    "linux-arm64": ("linux", "arm64"),
    "windows-x64": ("windows", "amd64"),
    "macos-x64": ("darwin", "amd64"),
    "macos-arm64": ("darwin", "arm64"),
}

DATE = (2024, 1, 1, 0, 0, 0)


def sources():
    """Returns the add-on's files: its Python modules, its LICENSE and its
    manifest, sorted."""
    src = os.path.join(HERE, PKG)
    names = sorted(n for n in os.listdir(src) if n.endswith(".py") or n in (MANIFEST, "LICENSE"))
    for need in ("__init__.py", MANIFEST, "LICENSE"):
        if need not in names:
            raise SystemExit("build_zip: %s has no %s" % (src, need))
    return src, names


def manifest_version(text):
    m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        raise SystemExit("build_zip: %s has no version" % MANIFEST)
    return m.group(1)


def bl_info_version(src):
    with open(os.path.join(src, "__init__.py")) as f:
        m = re.search(r'"version":\s*\((\d+),\s*(\d+),\s*(\d+)\)', f.read())
    if not m:
        raise SystemExit("build_zip: __init__.py has no bl_info version")
    return ".".join(m.groups())


def for_platform(manifest, platform):
    """Returns the manifest with platforms = [platform] only."""
    out, n = re.subn(r"^platforms\s*=\s*\[[^\]]*\]", 'platforms = ["%s"]' % platform, manifest, flags=re.M)
    if n != 1:
        raise SystemExit("build_zip: %s has no one-line platforms = [...]" % MANIFEST)
    return out


def _put(z, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | mode) << 16
    info.create_system = 3  # unix, so the mode bits are read back
    z.writestr(info, data)


def write_zip(out, files):
    """Writes files, (name, bytes, mode) sorted by name, to out atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in sorted(files):
            _put(z, name, data, mode)
    os.replace(tmp, out)
    return out


def package(prefix, platform=None, binary=None, extension=False):
    """Returns the zip entries of the add-on under prefix ("" or
    "drape_cloth/"): the sources, the manifest for an Extension (listing
    platform only), and the binary with its licence in bin/."""
    src, names = sources()
    with open(os.path.join(src, MANIFEST)) as f:
        manifest = f.read()
    if manifest_version(manifest) != bl_info_version(src):
        raise SystemExit("build_zip: %s version %s differs from bl_info's %s: make them equal"
                         % (MANIFEST, manifest_version(manifest), bl_info_version(src)))
    files = []
    for n in names:
        if n == MANIFEST:
            if extension:
                files.append((prefix + n, for_platform(manifest, platform).encode(), 0o644))
            continue
        with open(os.path.join(src, n), "rb") as f:
            files.append((prefix + n, f.read(), 0o644))
    if binary:
        exe = "drape.exe" if platform.startswith("windows") else "drape"
        with open(binary, "rb") as f:
            files.append((prefix + "bin/" + exe, f.read(), 0o755))
        with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
            files.append((prefix + "bin/LICENSE", f.read(), 0o644))
    return files, manifest_version(manifest)


def go_build(platform, out):
    """Cross-compiles ./cmd/drape for platform into out."""
    goos, goarch = PLATFORMS[platform]
    env = dict(os.environ, GOOS=goos, GOARCH=goarch, CGO_ENABLED="0")
    print("build_zip: go build ./cmd/drape for %s (GOOS=%s GOARCH=%s CGO_ENABLED=0)" % (platform, goos, goarch),
          file=sys.stderr, flush=True)
    subprocess.run(["go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/drape"], cwd=ROOT, env=env,
                   check=True)
    return out


def release(out_dir, platforms, drape=None):
    """Writes the Extension and legacy zips of each platform into out_dir;
    returns their paths."""
    written = []
    with tempfile.TemporaryDirectory(prefix="drape_build_") as tmp:
        for p in platforms:
            binary = drape or go_build(p, os.path.join(tmp, p, "drape.exe" if p.startswith("windows") else "drape"))
            files, version = package("", p, binary, extension=True)
            written.append(write_zip(os.path.join(out_dir, "%s-%s-%s.zip" % (PKG, version, p)), files))
            files, version = package(PKG + "/", p, binary)
            written.append(write_zip(os.path.join(out_dir, "%s-%s-%s-legacy.zip" % (PKG, version, p)), files))
    return written


def build(out):
    """Writes the legacy zip without a binary to out (the add-on then finds
    drape through its preferences or PATH)."""
    files, _ = package(PKG + "/")
    return write_zip(out, files)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("zip", nargs="?", help="the legacy zip without a binary (default addon/dist/drape_cloth.zip)")
    ap.add_argument("--release", action="store_true", help="build each platform's Extension and legacy zip")
    ap.add_argument("--out", default=os.path.join(HERE, "dist"), help="folder of the release zips")
    ap.add_argument("--platform", action="append", choices=sorted(PLATFORMS),
                    help="build this platform only (repeatable; default all)")
    ap.add_argument("--drape", help="pack this drape binary instead of cross-compiling (one --platform)")
    a = ap.parse_args(argv)
    if not a.release:
        if a.platform or a.drape:
            ap.error("--platform and --drape need --release")
        print(build(a.zip or os.path.join(HERE, "dist", PKG + ".zip")))
        return
    if a.zip:
        ap.error("--release writes into --out DIR, not to a named zip")
    platforms = a.platform or list(PLATFORMS)
    if a.drape and len(platforms) != 1:
        ap.error("--drape packs one binary: name its --platform")
    if not a.drape and shutil.which("go") is None:
        raise SystemExit("build_zip: go not found on PATH: install Go to cross-compile drape, or pass --drape BIN")
    for p in release(a.out, platforms, a.drape):
        print(p)


if __name__ == "__main__":
    main(sys.argv[1:])
