"""The Generate panel: prompt or image in, one button out."""

from __future__ import annotations

import bpy

from ..operators.common import setup_problem


class KILN_PT_generate(bpy.types.Panel):
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Kiln"
    bl_label = "Generate"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        problem = setup_problem(context)
        col = layout.column()
        col.enabled = not problem
        col.operator("kiln.generate_from_text", icon='PLAY')
        if problem:
            layout.label(text=problem, icon='ERROR')


classes = (KILN_PT_generate,)
