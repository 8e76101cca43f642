"""Export a finished job for a game engine, after the fact: ``bpy.ops.kiln.export_job``.

The work is ``session.exports``: the helper Blender writes the export off the main thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.errors import KilnError
from ..api.words import catalogue as words
from ..options import declare
from ..session import runtime
from ..session.blocking import blocks
from ..session.messenger import refuse, tell

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


class KILN_OT_export_job(bpy.types.Operator):
    """Export this job's result for a game engine (its fix-ups, LODs and collision, named for the engine)"""

    bl_idname = "kiln.export_job"
    bl_label = words.OP_EXPORT.name
    bl_description = words.OP_EXPORT.tip
    bl_options = {"REGISTER"}

    job_id: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]
    engine: declare("export_engine")  # type: ignore[valid-type]
    directory: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_EXPORT_FOLDER.name, description=words.ARG_EXPORT_FOLDER.tip, subtype="DIR_PATH"
    )

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.directory.strip():
            return self.execute(context)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = runtime.engine(context).get(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        if job is None:
            return refuse(self, words.JOB_GONE)
        if not job.mesh_path or not Path(job.mesh_path).is_file():
            return refuse(self, words.EXPORT_NO_MESH)
        if not self.directory.strip():
            return refuse(self, words.EXPORT_CHOOSE_FOLDER)
        from ..session import exports  # loaded by the first export, not when the add-on registers

        options = exports.export_options(job, self.engine, bpy.path.abspath(self.directory.strip()))
        work = exports.export_in_helper(job, options, context)
        if not blocks(self):
            exports.follow(job, options, work)
            tell(self, "INFO", words.EXPORTING, name=job.request.label)
            return {"FINISHED"}
        paths, error = work()
        if paths is None:
            paths, error = exports.export_in_place(job, options, context)
        level, what = exports.said(paths, error, options.export_dir)
        if level == "ERROR":
            return refuse(self, what)
        tell(self, level, what)
        return {"FINISHED"}


classes = (KILN_OT_export_job,)
