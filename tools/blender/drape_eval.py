"""Helpers shared by drape's headless Blender test scripts.

Run the scripts as `blender -b --factory-startup --python SCRIPT -- ARGS`.
Each prints exactly one line starting with MARKER followed by a JSON object;
everything else Blender prints on stdout is noise the Go side skips.
"""
import json
import math
import sys

MARKER = "DRAPE_JSON "


def args():
    """Returns the arguments after `--`."""
    argv = sys.argv
    return argv[argv.index("--") + 1:] if "--" in argv else []


def numpy_bool_shim():
    """Restores numpy.bool, removed in numpy 1.24, which Blender 3.4's glTF
    importer still uses."""
    import numpy
    numpy.bool = bool


def empty_scene(fps):
    """Clears the factory scene and sets its frame rate. Blender's glTF
    importer maps keyframe time t to frame t * scene.render.fps (it ignores
    fps_base), so only integer rates are exact."""
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = int(round(fps))
    scene.render.fps_base = 1.0
    return scene


def set_frame(scene, frame):
    """Moves the scene to a possibly fractional frame."""
    whole = math.floor(frame)
    scene.frame_set(int(whole), subframe=frame - whole)


def mesh_objects():
    """Returns the scene's mesh objects sorted by name."""
    import bpy
    return sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o.name)


def evaluated_positions(obj):
    """Returns the world-space vertex positions of obj after its shape keys
    and modifiers, flat [x0, y0, z0, x1, ...] in Blender's Z-up axes."""
    import bpy
    dg = bpy.context.evaluated_depsgraph_get()
    eo = obj.evaluated_get(dg)
    me = eo.to_mesh()
    mw = eo.matrix_world
    out = []
    for v in me.vertices:
        p = mw @ v.co
        out.extend((p.x, p.y, p.z))
    eo.to_mesh_clear()
    return out


def describe(obj):
    """Returns what a round trip must keep: materials, image textures, UV
    maps, shape keys."""
    mats = []
    for slot in obj.material_slots:
        m = slot.material
        if m is None:
            continue
        images = []
        if m.use_nodes and m.node_tree:
            images = sorted(n.image.name for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image)
        mats.append({"name": m.name, "images": images})
    keys = obj.data.shape_keys
    return {
        "name": obj.name,
        "parent": obj.parent.name if obj.parent else "",
        "vertices": len(obj.data.vertices),
        "materials": mats,
        "uv_layers": [uv.name for uv in obj.data.uv_layers],
        "shape_keys": len(keys.key_blocks) if keys else 0,
        "modifiers": [m.type for m in obj.modifiers],
    }


def emit(result):
    """Prints the result line the Go test parses."""
    sys.stdout.write(MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()
