"""Bake one benchmark scene with Blender's cloth modifier, headless.

    blender -b --factory-startup --python bench/blender_cloth.py -- \
        --cloth grid64.obj [--scale 1] (--sphere 0.5 | --body body.obj) \
        [--self-collision] [--frames 120] [--fps 24] [--mass KG] \
        --out blender.pc2 --timing blender.json

The cloth and collider OBJs are drape's inputs (Y-up, in the files' units
times --scale = metres). Only their `v` and `f` lines are read, so the
Blender mesh has exactly the OBJ's vertex order; faces keep their polygons
(Blender's cloth works on quads as well as triangles). Blender is Z-up: a
Y-up point (x, y, z) becomes (x, -z, y), and back on the way out.

The cloth modifier keeps its defaults (quality 5 steps per frame, its
default stiffnesses and collision distances) except --mass, the mass per
vertex [kg] when given. The collider gets a Collision modifier with its
defaults. Frames 1..N are evaluated in order with scene.frame_set; only
frame_set is timed. Every frame's positions go to a PC2 file in the OBJ's
vertex order, Y-up, in the OBJ's units, exactly as drape writes its PC2.
"""

import argparse
import json
import struct
import sys
import time

import bmesh
import bpy


def read_obj(path, scale):
    verts, faces = [], []
    with open(path) as f:
        for line in f:
            s = line.split()
            if not s:
                continue
            if s[0] == "v":
                x, y, z = (float(t) * scale for t in s[1:4])
                verts.append((x, -z, y))  # Y-up -> Blender Z-up
            elif s[0] == "f":
                idx = []
                for t in s[1:]:
                    i = int(t.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(verts) + i)
                faces.append(idx)
    return verts, faces


def add_object(name, verts, faces):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.validate()
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def uv_sphere(radius):
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=64, v_segments=32, radius=radius)
    mesh = bpy.data.meshes.new("sphere")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("sphere", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def write_pc2(path, frames, start, rate):
    n = len(frames[0]) // 3
    with open(path, "wb") as f:
        f.write(struct.pack("<12siiffi", b"POINTCACHE2\0", 1, n, start, rate, len(frames)))
        for fr in frames:
            f.write(struct.pack("<%df" % len(fr), *fr))


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser(prog="blender_cloth.py")
    ap.add_argument("--cloth", required=True)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--sphere", type=float, default=0.0, help="radius of a UV sphere collider at the origin [m]")
    ap.add_argument("--body", default="", help="OBJ collider, same units as the cloth")
    ap.add_argument("--self-collision", action="store_true")
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--fps", type=int, default=24)
    ap.add_argument("--mass", type=float, default=0.0, help="cloth vertex mass [kg]; 0 keeps Blender's default")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timing", required=True)
    a = ap.parse_args(argv)

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = a.fps
    scene.frame_start, scene.frame_end = 1, a.frames

    t0 = time.perf_counter()
    if a.sphere > 0:
        col = uv_sphere(a.sphere)
    else:
        bv, bf = read_obj(a.body, a.scale)
        col = add_object("body", bv, bf)
    col.modifiers.new("Collision", "COLLISION")

    cv, cf = read_obj(a.cloth, a.scale)
    cloth = add_object("cloth", cv, cf)
    mod = cloth.modifiers.new("Cloth", "CLOTH")
    if a.mass > 0:
        mod.settings.mass = a.mass
    mod.collision_settings.use_self_collision = a.self_collision
    mod.point_cache.frame_start, mod.point_cache.frame_end = 1, a.frames
    setup = time.perf_counter() - t0

    n = len(cv)
    buf = [0.0] * (3 * n)
    frames = []
    sim = 0.0
    for f in range(1, a.frames + 1):
        t = time.perf_counter()
        scene.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        ev = cloth.evaluated_get(dg)
        sim += time.perf_counter() - t
        ev.data.vertices.foreach_get("co", buf)
        out = []
        for i in range(n):  # Blender Z-up metres -> Y-up file units
            x, y, z = buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]
            out += (x / a.scale, z / a.scale, -y / a.scale)
        frames.append(out)
    write_pc2(a.out, frames, 0.0, 1.0)
    st = mod.settings
    info = {
        "blender": bpy.app.version_string,
        "threads": bpy.app.binary_path and scene.render.threads,
        "vertices": n,
        "frames": a.frames,
        "setup_s": setup,
        "simulate_s": sim,
        "seconds_per_frame": sim / max(1, a.frames - 1),
        "quality": st.quality,
        "mass": st.mass,
        "tension_stiffness": st.tension_stiffness,
        "collision_distance": mod.collision_settings.distance_min,
        "self_collision": mod.collision_settings.use_self_collision,
        "self_distance": mod.collision_settings.self_distance_min,
        "collider_thickness_outer": col.collision.thickness_outer,
    }
    with open(a.timing, "w") as f:
        json.dump(info, f, indent=1)


try:
    main()
except SystemExit as e:
    if e.code:
        sys.stderr.write("blender_cloth.py: bad arguments\n")
        sys.exit(2)
except Exception as e:  # report and exit non-zero instead of leaving Blender open
    import traceback
    traceback.print_exc()
    sys.exit(1)
