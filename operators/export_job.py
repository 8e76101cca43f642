"""Export a finished job for a game engine, after the fact: ``bpy.ops.kiln.export_job``.

The work is ``session.exports``: the helper Blender writes the export off the main thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.errors import KilnError
from ..options import declare
from ..session import exports, runtime
from ..session.blocking import blocks
from ..session.messenger import refuse

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


class KILN_OT_export_job(bpy.types.Operator):
    """Export this job's result for a game engine (its fix-ups, LODs and collision, named for the engine)"""

    bl_idname = "kiln.export_job"
    bl_label = "Export"
    bl_options = {"REGISTER"}

    job_id: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]
    engine: declare("export_engine")  # type: ignore[valid-type]
    directory: StringProperty(name="Folder", subtype="DIR_PATH")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.directory.strip():
            return self.execute(context)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = runtime.engine(context).get(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        problem = ""
        if job is None:
            problem = "that job is no longer in the list"
        elif not job.mesh_path or not Path(job.mesh_path).is_file():
            problem = "this job has no downloaded mesh to export (press Retry, or Import first)"
        elif not self.directory.strip():
            problem = "choose a folder to export to"
        if problem or job is None:
            return refuse(self, problem)
        options = exports.export_options(job, self.engine, bpy.path.abspath(self.directory.strip()))
        work = exports.export_in_helper(job, options, context)
        if not blocks(self):
            exports.follow(job, options, work)
            self.report({"INFO"}, f"Kiln: exporting “{job.request.label[:40]}”…")
            return {"FINISHED"}
        paths, error = work()
        if paths is None:
            paths, error = exports.export_in_place(job, options, context)
        level, message = exports.said(paths, error)
        self.report({level}, message)  # type: ignore[arg-type]
        return {"FINISHED"} if level == "INFO" else {"CANCELLED"}


classes = (KILN_OT_export_job,)
