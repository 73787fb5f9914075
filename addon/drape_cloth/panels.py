"""The Drape Cloth panel in Properties > Physics."""

import bpy

from . import operators
from . import scene_export as sx


def _toggled(col, s, heading, use, value):
    """Draws a row of a setting ticked on by use: its tick box, then its
    value, greyed out while unticked."""
    row = col.row(heading=heading)
    row.prop(s, use, text="")
    sub = row.row()
    sub.active = getattr(s, use)
    sub.prop(s, value, text="")


class DRAPE_PT_cloth(bpy.types.Panel):
    bl_label = "Drape Cloth"
    bl_idname = "DRAPE_PT_cloth"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"

    @classmethod
    def poll(cls, context):
        return context.object is not None

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        obj = context.object
        s = obj.drape
        layout.prop(s, "role")
        if s.role == 'CLOTH':
            if obj.type != 'MESH':
                layout.label(text="Only mesh objects can be cloth", icon='ERROR')
                return
            self.draw_bake(context, layout, obj)
            col = layout.column()
            col.prop(s, "fabric")
            col.prop(s, "substeps")
            col.prop(s, "self_collision")
            col.prop(s, "sleep")
            col.prop_search(s, "pin_group", obj, "vertex_groups", text="Pin Group")
            sub = col.column()
            sub.active = bool(s.pin_group)
            sub.prop(s, "pin_target")
            problem = sx.pin_target_problem(context, obj)
            if problem is not None:
                sub.label(text="%s %s" % (s.pin_target.name, problem[0]), icon='ERROR')
            mats = [m for m in obj.data.materials if m is not None]
            if mats:
                sub = col.column(heading="Fabric by Material")
                for m in mats:
                    sub.prop(m, "drape_fabric", text=m.name)
            for heading, use, value in (("Thickness", "use_thickness", "thickness"),
                                        ("Friction", "use_friction", "friction"),
                                        ("Sewing", "use_sewing", "sewing_speed"),
                                        ("Volume", "use_volume", "volume")):
                _toggled(col, s, heading, use, value)
        elif s.role == 'COLLIDER':
            col = layout.column()
            col.prop(s, "collider_shape")
            _toggled(col, s, "Friction", "use_collider_friction", "collider_friction")
            col.prop(s, "collider_thickness")
            col.label(text="Fitted to the object's bounds and animation", icon='INFO')

    def draw_bake(self, context, layout, obj):
        s = obj.drape
        state = operators.job_of(obj)
        box = layout.box()
        if state is not None:
            box.label(text="Baking: " + state.status, icon='SORTTIME')
            row = box.row()
            row.enabled = False
            row.prop(context.window_manager, "drape_progress", text="Progress", slider=True)
            box.operator("drape.cancel", icon='CANCEL')
            return
        row = box.row()
        row.scale_y = 1.4
        row.operator("drape.bake", icon='MOD_CLOTH')
        partners = sx.cloth_partners(context, obj)
        if partners:
            box.label(text="Bakes with: " + ", ".join(o.name for o in partners), icon='LINKED')
        if s.cache_dir or sx.drape_modifier(obj) is not None:
            if s.baked_frames:
                box.label(text="Baked %d frames" % s.baked_frames, icon='CHECKMARK')
            if s.bake_warning:
                box.label(text="Colliders deform: see the report", icon='ERROR')
            col = box.column(align=True)
            col.operator("drape.clear", icon='TRASH')
            col.operator("drape.to_shape_keys", icon='SHAPEKEY_DATA')
            col.operator("drape.export_gltf", icon='EXPORT')


class DRAPE_PT_cloth_range(bpy.types.Panel):
    bl_label = "Frame Range"
    bl_parent_id = "DRAPE_PT_cloth"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.drape.role == 'CLOTH'

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        s = context.object.drape
        layout.prop(s, "use_scene_range")
        col = layout.column(align=True)
        if s.use_scene_range:
            col.enabled = False
            col.prop(context.scene, "frame_start", text="Start")
            col.prop(context.scene, "frame_end", text="End")
        else:
            col.prop(s, "frame_start")
            col.prop(s, "frame_end")


class DRAPE_PT_cloth_fabric(bpy.types.Panel):
    bl_label = "Fabric Overrides"
    bl_parent_id = "DRAPE_PT_cloth"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.drape.role == 'CLOTH'

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        s = context.object.drape
        col = layout.column()
        for key in ("density", "stretch", "shear", "bend", "damping", "drag"):
            row = col.row(heading=s.bl_rna.properties[key].name)
            row.prop(s, "use_" + key, text="")
            sub = row.row()
            sub.active = getattr(s, "use_" + key)
            sub.prop(s, key, text="")


class DRAPE_PT_cloth_wind(bpy.types.Panel):
    bl_label = "Wind"
    bl_parent_id = "DRAPE_PT_cloth"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.drape.role == 'CLOTH'

    def draw_header(self, context):
        self.layout.prop(context.object.drape, "use_wind", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        s = context.object.drape
        col = layout.column()
        col.active = s.use_wind
        col.prop(s, "wind_direction")
        col.prop(s, "wind_speed")
        col.prop(s, "wind_gust")
        col.prop(s, "wind_turbulence")


classes = (DRAPE_PT_cloth, DRAPE_PT_cloth_range, DRAPE_PT_cloth_fabric, DRAPE_PT_cloth_wind)
