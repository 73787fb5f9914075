"""collider_glb.py -- OUT.glb KIND

Writes, with Blender's own glTF exporter, the file an artist makes for a
cloth falling onto a moving body proxy: a 0.6 m grid "Cloth" (12 x 12
quads) 0.3 m up over a collider object named after drape's conventions,
animated over frames 1-25 at 24 fps (linear keys). Y-up in the file, as the
exporter writes it. KIND:

  sphere   a UV sphere of radius 0.2 named COL_sphere_ball, keyframed from
           0.5 m below the origin to 0.5 m above it;
  mesh     the same sphere named COL_ball (a mesh collider);
  skinned  a 0.4 m cube COL_body deformed by an armature of two bones, Root
           holding its bottom four vertices and Lift its top four; Lift is
           keyed 0.3 m up, so the cube's top rises from 0.2 m to 0.5 m while
           its bottom stays. The exporter writes the armature as a skin and
           the bone's keys as a joint animation. The cube is not parented to
           the armature (its Armature modifier is enough), so the skinned
           mesh's node is a root, as the glTF validator asks.
"""
import sys

import bpy


def linear(action):
    for fc in action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = 'LINEAR'


def ball(name):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, segments=32, ring_count=16, location=(0, 0, -0.5))
    obj = bpy.context.active_object
    obj.name = name
    obj.keyframe_insert("location", frame=1)
    obj.location = (0, 0, 0.5)
    obj.keyframe_insert("location", frame=25)
    linear(obj.animation_data.action)


def skinned():
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
    linear(arm.animation_data.action)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    kinds = {"sphere": lambda: ball("COL_sphere_ball"), "mesh": lambda: ball("COL_ball"), "skinned": skinned}
    if len(argv) != 2 or argv[1] not in kinds:
        raise SystemExit("usage: blender -b --factory-startup --python collider_glb.py -- OUT.glb sphere|mesh|skinned")
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 25
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=13, y_subdivisions=13, size=0.6, location=(0, 0, 0.3))
    bpy.context.active_object.name = "Cloth"
    kinds[argv[1]]()
    bpy.ops.export_scene.gltf(filepath=argv[0], export_format='GLB', export_animations=True, export_skins=True)


main()
