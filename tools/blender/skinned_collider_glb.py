"""skinned_collider_glb.py -- OUT.glb

Writes, with Blender's own glTF exporter, a cloth over a skinned body
proxy: a 0.6 m grid "Cloth" (12 x 12 quads) 0.3 m up, and a 0.4 m cube
"COL_body" (drape's naming for a mesh collider) deformed by an armature of
two bones, Root holding its bottom four vertices and Lift its top four.
Lift is keyframed to move 0.3 m up from frame 1 to frame 25 (linearly, 24
fps), so the cube's top rises from 0.2 m to 0.5 m while its bottom stays.
The exporter writes the armature as a skin and the bone's keys as a joint
animation. The cube is not parented to the armature (its Armature modifier
is enough), so the skinned mesh's node is a root, as the glTF validator
asks.
"""
import sys

import bpy


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        raise SystemExit("usage: blender -b --factory-startup --python skinned_collider_glb.py -- OUT.glb")
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 25
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=13, y_subdivisions=13, size=0.6, location=(0, 0, 0.3))
    bpy.context.active_object.name = "Cloth"

    bpy.ops.object.armature_add(enter_editmode=True, location=(0, 0, 0))
    arm = bpy.context.active_object
    arm.name = "Armature"
    bones = arm.data.edit_bones
    root = bones[0]
    root.name = "Root"
    root.head, root.tail = (0, 0, -0.2), (0, 0, 0)
    lift = bones.new("Lift")
    lift.head, lift.tail = (0, 0, 0), (0, 0, 0.2)
    bpy.ops.object.mode_set(mode='OBJECT')

    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0, 0, 0))
    body = bpy.context.active_object
    body.name = "COL_body"
    top = [v.index for v in body.data.vertices if v.co.z > 0]
    bottom = [v.index for v in body.data.vertices if v.co.z <= 0]
    body.vertex_groups.new(name="Lift").add(top, 1.0, 'REPLACE')
    body.vertex_groups.new(name="Root").add(bottom, 1.0, 'REPLACE')
    body.modifiers.new("Armature", 'ARMATURE').object = arm

    pb = arm.pose.bones["Lift"]
    pb.location = (0, 0, 0)
    pb.keyframe_insert("location", frame=1)
    pb.location = (0, 0.3, 0)  # along the bone, which points up
    pb.keyframe_insert("location", frame=25)
    for fc in arm.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = 'LINEAR'
    bpy.ops.export_scene.gltf(filepath=argv[0], export_format='GLB', export_animations=True, export_skins=True)


main()
