"""Settings of the Drape add-on: DRAPE_PG_object_settings on every Object
(Object.drape) and the bake's live progress on the WindowManager."""

import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty,
                       PointerProperty, StringProperty)

# drape's fabric presets (`drape presets`), named here for the menu; an
# override turned on starts at its preset's value as drape has it.
FABRIC_PRESETS = [
    ("cotton", "Cotton", "Medium-weight woven cotton"),
    ("silk", "Silk", "Light, flowing silk"),
    ("denim", "Denim", "Heavy, stiff denim"),
    ("wool", "Wool", "Soft, thick wool"),
    ("leather", "Leather", "Heavy leather, resists bending"),
    ("rubber", "Rubber", "Stretchy rubber sheet"),
]

# A material's fabric: the cloth's own, or a preset for the faces drawn
# with it (a stiff collar, denim trousers), baked as a drape region.
MATERIAL_FABRICS = [("CLOTH", "Cloth's Fabric", "The faces of this material take the cloth object's fabric")] + \
    FABRIC_PRESETS

ROLES = [
    ("NONE", "None", "Not part of drape bakes"),
    ("CLOTH", "Cloth", "Bake this mesh as cloth with drape"),
    ("COLLIDER", "Collider", "The cloth collides with this object"),
]

SHAPES = [
    ("SPHERE", "Sphere", "A sphere fitted to the object's bounds (diameter = largest dimension)"),
    ("CAPSULE", "Capsule", "A capsule along the object's longest local axis"),
    ("CONE", "Cone", "A capped cone along the object's local Z (radii measured from the mesh)"),
    ("PLANE", "Plane", "An infinite plane through the origin, normal = the object's local +Z"),
    ("BOX", "Box", "A box fitted to the object's bounds, rotated with it"),
    ("MESH", "Mesh", "The object's evaluated mesh (must be closed)"),
]


# Blender 4.5 and newer warn about a "//" path in a path property unless it
# says that it takes one; older ones do not know the option.
_BLEND_RELATIVE = {"options": {'PATH_SUPPORTS_BLEND_RELATIVE'}} if bpy.app.version >= (4, 5, 0) else {}


def _pin_target_poll(self, obj):
    """Pin To offers the mesh objects whose Drape Role is Collider."""
    return obj.type == 'MESH' and obj.drape.role == 'COLLIDER'


def _update_range(self, context):
    if self.frame_end < self.frame_start:
        self.frame_end = self.frame_start


def _from_preset(key):
    """Returns the update of use_KEY: turning the override on starts it at
    the value of the object's fabric preset as drape has it (`drape presets
    --json`), so the add-on keeps no copy of drape's numbers; the property's
    own default only marks a value nobody set."""
    def update(self, context):
        if not getattr(self, "use_" + key) or getattr(self, key) != self.bl_rna.properties[key].default:
            return  # off, or a value already set (a script sets it first)
        from . import operators, runner
        exe = operators.cached_binary(context)
        preset = runner.drape_preset(exe, self.fabric) if exe else None
        if preset and isinstance(preset.get(key), (int, float)):
            setattr(self, key, float(preset[key]))
    return update


def _thickness_from_drape(self, context):
    """Turning Thickness on starts it at what drape picks for this mesh
    without it (`drape presets --json`: a fraction of the mean edge length
    within a range)."""
    if not self.use_thickness or self.thickness != self.bl_rna.properties["thickness"].default:
        return
    from . import operators, runner
    exe = operators.cached_binary(context)
    d = runner.drape_defaults(exe) if exe else None
    obj = getattr(context, "object", None)
    if not d or obj is None or obj.type != 'MESH' or obj.drape.as_pointer() != self.as_pointer():
        return
    try:
        lo, hi, frac = float(d["thickness_min"]), float(d["thickness_max"]), float(d["thickness_edge_fraction"])
    except (KeyError, TypeError, ValueError):
        return
    me, mw = obj.data, obj.matrix_world
    me.calc_loop_triangles()
    total, n = 0.0, 0
    for t in me.loop_triangles:
        p = [mw @ me.vertices[i].co for i in t.vertices]
        for k in range(3):
            total += (p[k] - p[(k + 1) % 3]).length
            n += 1
    if n:
        self.thickness = min(hi, max(lo, frac * total / n))


class DRAPE_PG_object_settings(bpy.types.PropertyGroup):
    """The drape settings of one object: its role, and cloth or collider settings."""

    role: EnumProperty(name="Drape Role", items=ROLES, default="NONE",
                       description="What this object is in drape bakes")

    # cloth
    fabric: EnumProperty(name="Fabric", items=FABRIC_PRESETS, default="cotton",
                         description="drape fabric preset; the overrides below change single values of it")
    use_density: BoolProperty(name="Density", default=False, description="Override the preset's density",
                              update=_from_preset("density"))
    density: FloatProperty(name="Density", default=0.15, min=1e-4, soft_max=2.0, precision=3,
                           description="Mass per area [kg/m²]")
    use_stretch: BoolProperty(name="Stretch", default=False, description="Override the preset's stretch stiffness",
                              update=_from_preset("stretch"))
    stretch: FloatProperty(name="Stretch", default=1.0e4, min=1e-3, soft_max=1e6,
                           description="Stretch stiffness [N/m]")
    use_shear: BoolProperty(name="Shear", default=False, description="Override the preset's shear stiffness",
                            update=_from_preset("shear"))
    shear: FloatProperty(name="Shear", default=33.7, min=1e-3, soft_max=1e5, description="Shear stiffness [N/m]")
    use_bend: BoolProperty(name="Bend", default=False, description="Override the preset's bending stiffness",
                           update=_from_preset("bend"))
    bend: FloatProperty(name="Bend", default=9.8e-6, min=0.0, soft_max=1e-2, precision=6,
                        description="Bending stiffness [N·m]")
    use_damping: BoolProperty(name="Damping", default=False, description="Override the preset's damping",
                              update=_from_preset("damping"))
    damping: FloatProperty(name="Damping", default=0.05, min=0.0, soft_max=20.0, description="Velocity damping [1/s]")
    use_drag: BoolProperty(name="Air Drag", default=False, description="Override the preset's air drag",
                           update=_from_preset("drag"))
    drag: FloatProperty(name="Air Drag", default=1.0, min=0.0, soft_max=10.0, description="Air drag coefficient")

    substeps: IntProperty(name="Quality", default=0, min=0, max=1000, soft_max=100,
                          description="Substeps per frame; 0 uses drape's default (the panel says which: "
                                      "drape raises it for a fabric too stiff to bend with fewer). More is slower but "
                                      "stiffer and safer")
    use_scene_range: BoolProperty(name="Scene Frame Range", default=True,
                                  description="Bake the scene's frame range")
    frame_start: IntProperty(name="Start", default=1, min=0, update=_update_range, description="First baked frame")
    frame_end: IntProperty(name="End", default=120, min=0, update=_update_range, description="Last baked frame")
    use_sewing: BoolProperty(name="Sewing", default=False,
                             description="Pull the mesh's loose edges shut, sewing the panels they join together "
                                         "(as Blender's sewing springs)")
    sewing_speed: FloatProperty(name="Sewing Speed", default=0.5, min=0.001, max=100.0, soft_max=2.0, precision=3,
                                unit='VELOCITY', description="Speed at which the seams close [m/s]")
    use_volume: BoolProperty(name="Volume", default=False,
                             description="Closed pieces of the cloth (a pillow, a balloon) hold a volume instead of sagging "
                                         "like an empty bag")
    volume: FloatProperty(name="Volume", default=1.0, min=0.1, max=10.0, soft_max=3.0, precision=2,
                          description="Volume each closed piece holds, times its rest volume: 1 keeps it lofted, above 1 "
                                      "inflates it")
    use_thickness: BoolProperty(name="Thickness", default=False, update=_thickness_from_drape,
                                description="Set the cloth thickness; off lets drape scale it to the mesh")
    thickness: FloatProperty(name="Thickness", default=0.005, min=1e-5, soft_max=0.1, precision=4, unit='LENGTH',
                             description="Distance kept from colliders and from itself [m]")
    use_friction: BoolProperty(name="Friction", default=False, description="Override the fabric's collider friction",
                               update=_from_preset("friction"))
    friction: FloatProperty(name="Friction", default=0.5, min=0.0, soft_max=2.0,
                            description="Cloth-collider friction coefficient")
    self_collision: BoolProperty(name="Self Collision", default=False,
                                 description="Keep the cloth from passing through itself (slower)")
    sleep: BoolProperty(name="Sleep at Rest", default=False,
                        description="Stop simulating vertices that have come to rest once the whole cloth is calm "
                                    "(resting frames cost almost nothing; the result moves by under 1 mm)")
    pin_group: StringProperty(name="Pin Group", default="",
                              description="Vertex group whose weights pin the cloth (1 = held in place)")
    pin_target: PointerProperty(name="Pin To", type=bpy.types.Object, poll=_pin_target_poll,
                                description="Collider whose surface carries the pinned vertices (a cape's shoulders "
                                            "on a character's body): each rides on the part of it nearest to it, "
                                            "as it moves and deforms, instead of moving with this object")

    use_wind: BoolProperty(name="Wind", default=False, description="Blow wind on the cloth")
    wind_direction: FloatVectorProperty(name="Direction", size=3, default=(1.0, 0.0, 0.0), subtype='DIRECTION',
                                        description="Wind direction in world space")
    wind_speed: FloatProperty(name="Speed", default=5.0, min=0.0, soft_max=50.0, unit='VELOCITY',
                              description="Wind speed [m/s]")
    wind_gust: FloatProperty(name="Gust", default=0.0, min=0.0, max=1.0, subtype='FACTOR',
                             description="Relative variation of the wind speed")
    wind_turbulence: FloatProperty(name="Turbulence", default=0.0, min=0.0, max=1.0, subtype='FACTOR',
                                   description="Spatial variation of the wind")

    # collider
    collider_shape: EnumProperty(name="Shape", items=SHAPES, default="SPHERE",
                                 description="Collision shape fitted to this object")
    use_collider_friction: BoolProperty(name="Friction", default=False,
                                        description="Set this collider's friction")
    collider_friction: FloatProperty(name="Friction", default=0.5, min=0.0, soft_max=2.0,
                                     description="Friction between the cloth and this collider")
    collider_thickness: FloatProperty(name="Outer Thickness", default=0.0, min=0.0, soft_max=0.1, precision=4,
                                      unit='LENGTH', description="Extra distance kept from this collider [m]")

    # the bake on this object (set by drape.bake, cleared by drape.clear)
    cache_dir: StringProperty(name="Cache Folder", default="", subtype='DIR_PATH',
                              description="Where this object's bake lives", **_BLEND_RELATIVE)
    baked_frames: IntProperty(name="Baked Frames", default=0)
    bake_warning: StringProperty(name="Bake Warning", default="",
                                 description="What the last bake could not follow (a deforming collider)")
    baked_substeps: IntProperty(name="Baked Substeps", default=0,
                                description="The substeps per frame the last bake used")
    quality_ok: BoolProperty(name="Quality OK", default=True,
                             description="The last bake kept within the fabric's quality bounds")
    quality_summary: StringProperty(name="Quality", default="",
                                    description="The last bake's measured strain, penetration and intersecting "
                                                "pairs with their bounds")
    quality_warning: StringProperty(name="Quality Warning", default="",
                                    description="The bounds the last bake missed, one per line")

    # the mesh check (drape.check_mesh, also run by every bake)
    check_done: BoolProperty(name="Checked", default=False)
    nonmanifold_edges: IntProperty(name="Non-Manifold Edges", default=0)
    nonmanifold_verts: IntProperty(name="Non-Manifold Vertices", default=0)
    inside_verts: IntProperty(name="Vertices Inside Colliders", default=0)
    inside_colliders: StringProperty(name="Colliders Entered", default="")


classes = (DRAPE_PG_object_settings,)


def register_props():
    bpy.types.Object.drape = PointerProperty(type=DRAPE_PG_object_settings)
    bpy.types.Material.drape_fabric = EnumProperty(
        name="Drape Fabric", items=MATERIAL_FABRICS, default="CLOTH",
        description="Fabric of the cloth faces drawn with this material (a region of another fabric), or the cloth's own")
    bpy.types.WindowManager.drape_progress = FloatProperty(name="Progress", default=0.0, min=0.0, max=100.0,
                                                           subtype='PERCENTAGE', precision=0)


def unregister_props():
    del bpy.types.Material.drape_fabric
    del bpy.types.WindowManager.drape_progress
    del bpy.types.Object.drape
