"""animated_collider_glb.py -- OUT.glb [BALL_NAME]

Writes, with Blender's own glTF exporter, the file an artist makes for a
cloth falling onto a moving body proxy: a 0.6 m grid "Cloth" (12 x 12
quads) 0.3 m up, and a UV sphere of radius 0.2 named COL_sphere_ball
(drape's collider naming; BALL_NAME instead when given, such as COL_ball
for a mesh collider) keyframed from 0.5 m below the origin at frame 1
to 0.5 m above it at frame 25, linearly, at 24 fps. Y-up in the file, as
the exporter writes it.
"""
import sys

import bpy


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) not in (1, 2):
        raise SystemExit("usage: blender -b --factory-startup --python animated_collider_glb.py -- OUT.glb [BALL_NAME]")
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 25
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=13, y_subdivisions=13, size=0.6, location=(0, 0, 0.3))
    bpy.context.active_object.name = "Cloth"
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, segments=32, ring_count=16, location=(0, 0, -0.5))
    ball = bpy.context.active_object
    ball.name = argv[1] if len(argv) > 1 else "COL_sphere_ball"
    ball.keyframe_insert("location", frame=1)
    ball.location = (0, 0, 0.5)
    ball.keyframe_insert("location", frame=25)
    for fc in ball.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = 'LINEAR'
    bpy.ops.export_scene.gltf(filepath=argv[0], export_format='GLB', export_animations=True)


main()
