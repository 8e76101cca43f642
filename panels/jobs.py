"""The Jobs panel: every job, newest first, with what it is doing."""

from __future__ import annotations

import bpy

from ..operators import runtime


class KILN_PT_jobs(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = "Jobs"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        engine = runtime.engine_if_started()
        jobs = engine.jobs() if engine else []
        if not jobs:
            layout.label(text="No jobs yet")
        for job in reversed(jobs):
            row = layout.row()
            row.label(text=f"{job.request.label[:30]} · {job.state.value}")


classes = (KILN_PT_jobs,)


def register() -> None:
    pass


def unregister() -> None:
    pass
