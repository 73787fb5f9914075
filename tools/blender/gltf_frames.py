"""gltf_frames.py -- FPS FRAMES FILE...

For each .glb/.gltf FILE: clears the scene, sets its frame rate to FPS,
imports FILE with Blender's own glTF importer, and for each scene frame in
FRAMES (comma-separated, may be fractional) evaluates the depsgraph and
records every mesh object's world-space vertex positions (Blender Z-up axes:
glTF (x, y, z) becomes (x, -z, y)), plus its materials, image textures, UV
maps and shape keys. Prints one JSON line (see drape_eval.emit):
{"files": [{"file", "fps", "objects": [...], "frames": [{"frame",
"positions": [[...] per object]}]}]}. Several files share one Blender start.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drape_eval  # noqa: E402


def main():
    a = drape_eval.args()
    if len(a) < 3:
        raise SystemExit("usage: blender -b --factory-startup --python gltf_frames.py -- FPS FRAME,FRAME,... FILE...")
    fps, frames, files = float(a[0]), [float(f) for f in a[1].split(",")], a[2:]
    drape_eval.numpy_bool_shim()
    import bpy
    out = {"files": []}
    for path in files:
        scene = drape_eval.empty_scene(fps)
        res = bpy.ops.import_scene.gltf(filepath=path)
        if res != {"FINISHED"}:
            raise SystemExit("glTF import of %s returned %s" % (path, res))
        objs = drape_eval.mesh_objects()
        r = {"file": path, "fps": scene.render.fps, "objects": [drape_eval.describe(o) for o in objs], "frames": []}
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
    sys.stderr.write("gltf_frames.py: %s\n" % e)
    sys.stderr.flush()
    os._exit(1)
