#!/usr/bin/env python3
"""A stand-in for the drape CLI, for testing the add-on's runner and operator
flow without the real simulator. It follows docs/scene.md: `version`, and
`bake SCENE.json --progress json [--json]` printing one JSON progress line per
frame on stdout, writing a PC2 (Blender's Z-up axes, OBJ vertex order) and a
placeholder .glb, honouring SIGTERM (exit 130, nothing written) and exiting
with the documented codes.

`fit-collider`, `colliders` and `presets` run the real drape named by
FAKE_DRAPE_REAL, so the add-on's fitting is drape's own.
FAKE_DRAPE_MODE picks the behaviour: ok (default), bad (exit 3), diverge
(exit 4 at frame 3), slow (0.2 s per frame), noisy (floods stderr first),
usage (exit 2). FAKE_DRAPE_VERSION overrides the version printed.
FAKE_DRAPE_QUALITY adds the quality certificate to the report: ok (every
check within its bound) or fail (max_strain 131 % over its 2 % at frame 3);
unset, the report has none, as drapes before it.
The "physics": vertices fall under gravity, pins (weight 1) stay, and sphere
colliders push vertices out to their surface.
"""

import json
import math
import os
import signal
import struct
import sys
import time

temps = []


def on_term(signum, frame):
    for t in temps:
        try:
            os.remove(t)
        except OSError:
            pass
    sys.stderr.write("drape: interrupted: no output written\n")
    sys.exit(130)


def read_obj_vertices(path):
    verts = []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                x, y, z = (float(t) for t in line.split()[1:4])
                verts.append((x, y, z))
    return verts


def write_atomic(path, data):
    tmp = path + ".tmp"
    temps.append(tmp)
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def bake(args):
    mode = os.environ.get("FAKE_DRAPE_MODE", "ok")
    if not args:
        sys.stderr.write("drape bake: missing SCENE.json\n")
        return 2
    scene_path = args[0]
    with open(scene_path) as f:
        scene = json.load(f)
    if mode == "usage":
        sys.stderr.write("drape bake: unknown flag --frobnicate\n")
        return 2
    if mode == "bad":
        sys.stderr.write("drape: scene %s: fabric.density = -1: must be > 0\n" % scene_path)
        return 3
    if mode == "noisy":
        for i in range(4000):
            sys.stderr.write("drape: debug line %d %s\n" % (i, "x" * 60))
        sys.stderr.flush()
    base = os.path.dirname(os.path.abspath(scene_path))
    verts = read_obj_vertices(os.path.join(base, scene["input"]))
    frames = int(scene.get("frames", 120))
    fps = float(scene.get("fps", 24))
    outputs = scene.get("output", [])
    if isinstance(outputs, str):
        outputs = [outputs]
    pinned = set()
    for p in scene.get("pins", []):
        for i, w in zip(p.get("indices", []), p.get("weights", [1.0] * len(p.get("indices", [])))):
            if w >= 1.0:
                pinned.add(i)
    spheres = [(c["center"], c["radius"]) for c in scene.get("colliders", []) if c["type"] == "sphere"]
    samples = []
    t0 = time.monotonic()
    for fr in range(frames):
        if mode == "slow":
            time.sleep(0.2)
        if mode == "diverge" and fr == 3:
            sys.stderr.write("drape: simulation diverged at frame 3, vertex 7: speed 1e9 m/s\n")
            return 4
        t = fr / fps
        drop = 0.5 * 9.81 * t * t
        pos = []
        for i, (x, y, z) in enumerate(verts):
            if i not in pinned:
                y -= drop
                for c, r in spheres:
                    d = [x - c[0], y - c[1], z - c[2]]
                    n = math.sqrt(sum(a * a for a in d))
                    if 0 < n < r:
                        x, y, z = (c[k] + d[k] * r / n for k in range(3))
            pos.append((x, -z, y))  # glTF Y-up back to Blender Z-up
        samples.append(pos)
        print(json.dumps({"frame": fr + 1, "frames": frames, "elapsed_s": time.monotonic() - t0,
                          "eta_s": 0.0, "max_stretch": 0.0}), flush=True)
    for out in outputs:
        path = os.path.join(base, out)
        if out.endswith(".pc2"):
            data = bytearray(b"POINTCACHE2\0")
            data += struct.pack("<iiffi", 1, len(verts), 0.0, 1.0, len(samples))
            for s in samples:
                for v in s:
                    data += struct.pack("<3f", *v)
            write_atomic(path, bytes(data))
        elif out.endswith(".glb"):
            write_atomic(path, b"glTF" + struct.pack("<II", 2, 12))
        elif out.endswith(".usdc"):
            write_atomic(path, b"PXR-USDC" + bytes(80))
    if "--json" in args:
        report = {"frames": frames, "substeps": int(scene.get("substeps") or 15), "max_stretch": 0.004,
                  "max_penetration_m": 0.0, "self_intersections": 0}
        q = os.environ.get("FAKE_DRAPE_QUALITY", "")
        if q:
            strain = 1.30536759 if q == "fail" else 0.004
            report["quality"] = {
                "ok": q != "fail",
                "checks": [
                    {"key": "max_strain", "value": strain, "bound": 0.02, "ok": q != "fail", "frame": 3,
                     "vertices": [0, 1], "position": [0, 0, 0]},
                    {"key": "last_strain", "value": 0.003, "bound": 0.01, "ok": True},
                    {"key": "penetration_m", "value": 0.0001, "bound": 0.0005, "ok": True},
                    {"key": "self_intersections", "value": 0, "bound": 0, "ok": True},
                ],
                "required": [], "failed": []}
            if q == "fail":
                report["warnings"] = ["quality: largest edge strain 131 % (max_strain) exceeds its bound 2 % at "
                                      "frame 3, vertices 0-1: the cloth stretches like rubber; raise --substeps"]
        print(json.dumps({"ok": True, "outputs": outputs, "report": report}), flush=True)
    return 0


def main():
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    argv = sys.argv[1:]
    if not argv:
        sys.stderr.write("usage: drape bake SCENE.json | version\n")
        return 2
    if argv[0] == "version":
        print("drape " + os.environ.get("FAKE_DRAPE_VERSION", "0.1.0"))
        return 0
    if argv[0] == "bake":
        return bake(argv[1:])
    if argv[0] in ("fit-collider", "colliders", "presets"):
        # drape's own listings and fitting: the real CLI answers them
        real = os.environ.get("FAKE_DRAPE_REAL", "")
        if not real:
            sys.stderr.write("fake drape: %s needs the real drape in FAKE_DRAPE_REAL\n" % argv[0])
            return 1
        os.execv(real, [real] + argv)
    sys.stderr.write("drape: unknown command %r\n" % argv[0])
    return 2


if __name__ == "__main__":
    sys.exit(main())
