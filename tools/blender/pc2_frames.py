"""pc2_frames.py -- FRAMES MESH CACHE [MESH CACHE ...]

For each (MESH, CACHE) pair: clears the scene (24 fps), imports the base mesh
MESH (an .obj through Blender's C++ OBJ importer with its default axes, a
Y-up file to the Z-up scene, keeping the order of the v lines; or a
.glb/.gltf through the glTF importer), adds to every mesh object a Mesh Cache
modifier reading CACHE (.pc2 as PC2, .mdd as MDD; the import's object
rotation is first applied to the mesh, see below; default settings: Frame
time mode, frame start 0, so sample k plays at scene frame k), and for each
scene frame in FRAMES (comma-separated) records the evaluated world-space
vertex positions. Prints one JSON line (see drape_eval.emit) shaped like
gltf_frames.py's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drape_eval  # noqa: E402


def main():
    a = drape_eval.args()
    if len(a) < 3 or len(a) % 2 != 1:
        raise SystemExit("usage: blender -b --factory-startup --python pc2_frames.py -- FRAME,FRAME,... MESH CACHE [MESH CACHE ...]")
    frames = [float(f) for f in a[0].split(",")]
    drape_eval.numpy_bool_shim()
    import bpy
    out = {"files": []}
    for mesh, cache in zip(a[1::2], a[2::2]):
        scene = drape_eval.empty_scene(24)
        if mesh.lower().endswith(".obj"):
            res = bpy.ops.wm.obj_import(filepath=mesh)
        else:
            res = bpy.ops.import_scene.gltf(filepath=mesh)
        if res != {"FINISHED"}:
            raise SystemExit("import of %s returned %s" % (mesh, res))
        objs = drape_eval.mesh_objects()
        # Blender's C++ OBJ importer keeps the file's coordinates and turns
        # the Y-up file upright with a 90 degree rotation of the object; bake
        # that rotation into the mesh so its vertices are in Blender's Z-up
        # axes, as those of a mesh modelled in Blender are, which is what a
        # cache written with drape's Blender axes targets.
        for o in objs:
            o.data.transform(o.matrix_basis)
            o.matrix_basis.identity()
        for o in objs:
            mod = o.modifiers.new("drape cache", "MESH_CACHE")
            mod.cache_format = "MDD" if cache.lower().endswith(".mdd") else "PC2"
            mod.filepath = cache
        r = {"file": cache, "fps": scene.render.fps, "objects": [drape_eval.describe(o) for o in objs], "frames": []}
        for f in frames:
            drape_eval.set_frame(scene, f)
            r["frames"].append({"frame": f, "positions": [drape_eval.evaluated_positions(o) for o in objs]})
        out["files"].append(r)
    drape_eval.emit(out)


try:
    main()
except BaseException as e:  # noqa: BLE001
    import traceback
    traceback.print_exc()
    sys.stderr.write("pc2_frames.py: %s\n" % e)
    sys.stderr.flush()
    os._exit(1)
