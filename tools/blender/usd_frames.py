"""usd_frames.py -- FPS FRAMES FILE...

For each USD FILE: clears the scene, sets its frame rate to FPS, imports
FILE with Blender's own USD importer (bpy.ops.wm.usd_import), and for each
scene frame in FRAMES (comma-separated) evaluates the depsgraph and records
every mesh object's world-space vertex positions in Blender's Z-up axes.
Prints one JSON line (see drape_eval.emit), as gltf_frames.py does:
{"files": [{"file", "fps", "objects": [...], "frames": [{"frame",
"positions": [[...] per object]}]}]}. Runs in Blender or in Blender as a
Python module (bpy from PyPI): `python usd_frames.py -- FPS FRAMES FILE...`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drape_eval  # noqa: E402


def main():
    a = drape_eval.args()
    if len(a) < 3:
        raise SystemExit("usage: usd_frames.py -- FPS FRAME,FRAME,... FILE...")
    fps, frames, files = float(a[0]), [float(f) for f in a[1].split(",")], a[2:]
    import bpy
    if not bpy.app.build_options.usd:
        raise SystemExit("usd_frames.py: this Blender (%s) is built without USD" % bpy.app.version_string)
    out = {"files": []}
    for path in files:
        scene = drape_eval.empty_scene(fps)
        res = bpy.ops.wm.usd_import(filepath=path)
        if res != {"FINISHED"}:
            raise SystemExit("USD import of %s returned %s" % (path, res))
        objs = drape_eval.mesh_objects()
        r = {"file": path, "fps": scene.render.fps, "blender": bpy.app.version_string,
             "objects": [{"name": o.name, "vertices": len(o.data.vertices)} for o in objs], "frames": []}
        for f in frames:
            drape_eval.set_frame(scene, f)
            r["frames"].append({"frame": f, "positions": [drape_eval.evaluated_positions(o) for o in objs]})
        out["files"].append(r)
    drape_eval.emit(out)


try:
    main()
except BaseException as e:  # noqa: BLE001 -- report any failure as a non-zero exit
    import traceback
    traceback.print_exc()
    sys.stderr.write("usd_frames.py: %s\n" % e)
    sys.stderr.flush()
    os._exit(1)
