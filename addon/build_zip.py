#!/usr/bin/env python3
"""Builds addon/dist/drape_cloth.zip, installable with Blender's
Edit > Preferences > Add-ons > Install. Usage: python3 addon/build_zip.py [OUT.zip]
The zip is byte-identical for identical sources (fixed timestamps, sorted names)."""

import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = "drape_cloth"


def build(out):
    src = os.path.join(HERE, PKG)
    names = sorted(n for n in os.listdir(src) if n.endswith(".py") or n == "blender_manifest.toml")
    if "__init__.py" not in names:
        raise SystemExit("build_zip: %s has no __init__.py" % src)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n in names:
            info = zipfile.ZipInfo(PKG + "/" + n, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with open(os.path.join(src, n), "rb") as f:
                z.writestr(info, f.read())
    os.replace(tmp, out)
    return out


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "dist", PKG + ".zip")
    print(build(out))
