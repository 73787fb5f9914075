"""Drape Cloth: bake cloth with the drape simulator from Properties > Physics."""

bl_info = {
    "name": "Drape Cloth",
    "author": "drape contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > Drape Cloth",
    "description": "Bake cloth with the drape simulator (XPBD) and play it back through a Mesh Cache modifier",
    "doc_url": "https://github.com/drape-sim/drape/tree/main/addon",
    "category": "Physics",
}

if "bpy" in locals():
    import importlib
    for _m in (runner, quality, scene_export, meshcheck, properties, operators, panels, preferences):  # noqa: F821
        importlib.reload(_m)
else:
    from . import runner, quality, scene_export, meshcheck, properties, operators, panels, preferences

import bpy  # noqa: E402

classes = properties.classes + preferences.classes + operators.classes + panels.classes


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    properties.register_props()


def unregister():
    for state in list(operators._jobs.values()):
        state.job.cancel()
    operators._jobs.clear()
    properties.unregister_props()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
