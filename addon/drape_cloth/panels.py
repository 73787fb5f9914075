"""The Drape Cloth panel in Properties > Physics."""

import bpy

from . import operators
from . import runner
from . import scene_export as sx


def substeps_hint(context):
    """Returns Quality 0's hint: drape's default substeps and the most it
    raises them to, as the drape the add-on runs says (`drape presets
    --json`), so the add-on repeats no number of drape's."""
    exe = operators.cached_binary(context)
    if exe is None:
        return "drape's default substeps (drape not found: set its path in the preferences)"
    d = runner.drape_defaults(exe) or {}
    if not isinstance(d.get("substeps"), int) or not isinstance(d.get("max_auto_substeps"), int):
        return "drape's default substeps"
    return "drape's default: %d substeps (up to %d for stiff fabrics)" % (d["substeps"], d["max_auto_substeps"])


def _wrapped(layout, context, text, icon='NONE'):
    """Draws text as labels wrapped to the panel's width, the icon on the
    first line only."""
    import textwrap
    width = getattr(getattr(context, "region", None), "width", 300) or 300
    ui = getattr(context.preferences.system, "ui_scale", 1.0) or 1.0
    chars = max(16, int((width - 60 * ui) / (8.5 * ui)))
    col = layout.column(align=True)
    for i, line in enumerate(textwrap.wrap(text, chars) or [""]):
        col.label(text=line, icon=icon if i == 0 else 'BLANK1' if icon != 'NONE' else 'NONE')


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
            if s.substeps == 0:
                if s.baked_substeps:
                    hint = "drape's default: %d substeps in the last bake" % s.baked_substeps
                else:
                    hint = substeps_hint(context)
                row = col.row()
                row.alignment = 'RIGHT'
                row.label(text=hint, icon='INFO')
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
        self.draw_check(context, box, s)
        if s.cache_dir or sx.drape_modifier(obj) is not None:
            if s.baked_frames:
                text = "Baked %d frames" % s.baked_frames
                if s.baked_substeps:
                    text += ", %d substeps" % s.baked_substeps
                _wrapped(box, context, text, 'CHECKMARK')
            if s.quality_summary or s.quality_warning:
                if s.quality_warning:
                    for line in s.quality_warning.split("\n"):
                        _wrapped(box, context, line, 'ERROR')
                else:
                    _wrapped(box, context, "Within the fabric's quality bounds", 'CHECKMARK')
                if s.quality_summary:
                    _wrapped(box, context, s.quality_summary[:1].upper() + s.quality_summary[1:])
            if s.bake_warning:
                _wrapped(box, context, s.bake_warning, 'ERROR')
            col = box.column(align=True)
            col.operator("drape.clear", icon='TRASH')
            col.operator("drape.to_shape_keys", icon='SHAPEKEY_DATA')
            col.operator("drape.export_gltf", icon='EXPORT')
            col.operator("drape.export_usd", icon='EXPORT')


    def draw_check(self, context, box, s):
        """The mesh check: non-manifold parts and vertices inside colliders,
        with the buttons that look again and select them."""
        row = box.row(align=True)
        row.operator("drape.check_mesh", icon='VIEWZOOM')
        found = s.check_done and (s.nonmanifold_edges or s.nonmanifold_verts or s.inside_verts)
        if found:
            row.operator("drape.select_problems", icon='RESTRICT_SELECT_OFF')
        if not s.check_done:
            return
        if s.nonmanifold_edges or s.nonmanifold_verts:
            _wrapped(box, context, "Non-manifold: %d edges, %d vertices" % (s.nonmanifold_edges, s.nonmanifold_verts),
                     'ERROR')
        if s.inside_verts:
            _wrapped(box, context, "%d vertices start inside %s" % (s.inside_verts, s.inside_colliders), 'ERROR')
        if not found:
            _wrapped(box, context, "Mesh is manifold, no vertex inside a collider", 'CHECKMARK')


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
