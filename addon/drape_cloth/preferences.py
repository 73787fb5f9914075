"""Add-on preferences: where the drape binary is."""

import bpy
from bpy.props import StringProperty

from . import runner


class DRAPE_AP_preferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    drape_path: StringProperty(
        name="drape binary", subtype='FILE_PATH', default="",
        description="Path of the drape executable, used when the add-on carries no working drape of its own "
                    "(the Extension zips do); empty looks on PATH")
    status: StringProperty(name="Status", default="", options={'SKIP_SAVE'})

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "drape_path")
        row = layout.row()
        row.operator("drape.check_binary", icon='FILE_REFRESH')
        if self.status:
            row.label(text=self.status, icon='INFO')
        col = layout.column(align=True)
        col.label(text="Looks for drape in the add-on's bin/ first (the Extension zips carry it), then here, "
                       "then on PATH")
        col.label(text="Needs drape %s or newer. Build it with: go build ./cmd/drape" %
                  ".".join(map(str, runner.MIN_VERSION)))


classes = (DRAPE_AP_preferences,)
