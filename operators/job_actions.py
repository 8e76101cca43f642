"""What can be done to a job from the list or a script: cancel, retry, import, remove, resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.errors import KilnError
from ..api.jobs import Job, JobKind, JobRequest, JobState
from ..api.jobs.disk import ensure_folder
from ..session import runtime, watcher
from ..session.blocking import blocks
from ..session.launching import OnlineOperator, setup_problem, wait_then_import
from ..session.messenger import refuse

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


def _job(context: bpy.types.Context, job_id: str) -> Job:
    """The job an action applies to; raises KilnError (a disk problem, or the job is gone)."""
    job = runtime.engine(context).get(job_id)
    if job is None:
        raise KilnError("that job is no longer in the list")
    return job


class _JobOperator:
    """Mixin: the job an action applies to."""

    job_id: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]


class KILN_OT_cancel_job(_JobOperator, bpy.types.Operator):
    """Stop tracking this job. The service has no cancel endpoint: the task may still run and be billed"""

    bl_idname = "kiln.cancel_job"
    bl_label = "Cancel Job"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            _job(context, self.job_id)
            runtime.engine(context).cancel(self.job_id)
        except KilnError as exc:  # a disk problem, or a job another Blender works on
            return refuse(self, exc.user_message)
        return {"FINISHED"}


class KILN_OT_retry_job(_JobOperator, OnlineOperator):
    """Send the same request again as a new task (costs credits)"""

    bl_idname = "kiln.retry_job"
    bl_label = "Retry Job"
    bl_options = {"INTERNAL"}

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context)
        if problem:
            return refuse(self, problem)
        try:
            job = _job(context, self.job_id)
            if job.state.is_active:
                self.report({"WARNING"}, "Kiln: this job is still running")
                return {"CANCELLED"}
            runtime.engine(context).retry(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_resume_job(_JobOperator, OnlineOperator):
    """Check on this job's task again (after a time-out or a lost connection)"""

    bl_idname = "kiln.resume_job"
    bl_label = "Resume Job"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
            if not job.task_id or job.state.is_active:
                self.report({"WARNING"}, "Kiln: there is no task to resume for this job")
                return {"CANCELLED"}
            runtime.engine(context).resume(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_resume_task(OnlineOperator):
    """Follow a task by its id, e.g. one started on another machine, and import it when done"""

    bl_idname = "kiln.resume_task"
    bl_label = "Resume Task by ID"
    bl_options = {"REGISTER"}

    task_id: StringProperty(name="Task ID")  # type: ignore[valid-type]
    name: StringProperty(name="Name", description="How the job is called in the list")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context) or ("" if self.task_id.strip() else "Enter a task id to resume")
        if problem:
            return refuse(self, problem)
        request = JobRequest(kind=JobKind.TASK, name=self.name.strip() or f"Task {self.task_id.strip()}")
        try:
            engine = runtime.engine(context)
            # Typed or pasted: spaces around it are the artist's, not the id's.
            job = engine.resume_task(self.task_id.strip(), request, origin=runtime.current_origin())
            if blocks(self):
                wait_then_import(context, [job.id])
        except KilnError as exc:
            return refuse(self, exc.user_message)
        if not blocks(self):
            watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_import_job(_JobOperator, bpy.types.Operator):
    """Import this job's mesh into the current scene (again)"""

    bl_idname = "kiln.import_job"
    bl_label = "Import"
    bl_options = {"INTERNAL"}  # import_one pushes the one undo step itself

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        if job.state not in (JobState.READY, JobState.IMPORTED) or not job.mesh_path:
            self.report({"WARNING"}, "Kiln: this job has no mesh to import yet")
            return {"CANCELLED"}
        level, message = watcher.import_one(context, job)
        self.report({level}, message)
        return {"FINISHED"} if level == "INFO" else {"CANCELLED"}


class KILN_OT_remove_job(_JobOperator, bpy.types.Operator):
    """Remove this job from the list (objects already in the scene stay)"""

    bl_idname = "kiln.remove_job"
    bl_label = "Remove Job"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            runtime.engine(context).remove(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        return {"FINISHED"}


class KILN_OT_clear_finished(bpy.types.Operator):
    """Remove every finished, failed or cancelled job from the list"""

    bl_idname = "kiln.clear_finished"
    bl_label = "Clear Finished"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            engine = runtime.engine(context)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        for job in engine.jobs():
            if job.state in (JobState.IMPORTED, JobState.FAILED, JobState.CANCELLED):
                engine.remove(job.id)
        return {"FINISHED"}


class KILN_OT_copy_task_id(_JobOperator, bpy.types.Operator):
    """Copy this job's task id to the clipboard (for support, or to resume elsewhere)"""

    bl_idname = "kiln.copy_task_id"
    bl_label = "Copy Task ID"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        task_id = job.task_id or job.refused_task_id
        if not task_id:
            return {"CANCELLED"}
        context.window_manager.clipboard = task_id
        self.report({"INFO"}, f"Copied task id {task_id}")
        return {"FINISHED"}


class KILN_OT_open_cache_folder(bpy.types.Operator):
    """Open the folder where Kiln keeps downloaded meshes and previews"""

    bl_idname = "kiln.open_cache_folder"
    bl_label = "Open Cache Folder"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            folder = runtime.engine(context).cache_dir
            ensure_folder(folder, "open its cache folder")
        except KilnError as exc:
            return refuse(self, exc.user_message)
        bpy.ops.wm.path_open(filepath=str(folder))
        return {"FINISHED"}


class KILN_OT_wait_jobs(OnlineOperator):
    """Background mode: block until this Blender's jobs are imported or failed. UI: make sure they run"""

    bl_idname = "kiln.wait_jobs"
    bl_label = "Wait for Kiln Jobs"
    bl_options = {"REGISTER"}

    job_ids: StringProperty(  # type: ignore[valid-type]
        name="Job IDs",
        description="Comma-separated ids of the jobs to wait for and import, other Blenders' included. "
        "Empty: the jobs this Blender started (or took over)",
        options={"SKIP_SAVE"},
    )

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            engine = runtime.engine(context)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        if not blocks(self):
            watcher.ensure_running()
            return {"FINISHED"}
        named = [part.strip() for part in self.job_ids.split(",") if part.strip()]
        if named:
            engine.wait_for_history()  # a named job may be an old one, read off the UI thread
        unknown = [job_id for job_id in named if engine.get(job_id) is None]
        if unknown:
            return refuse(self, f"no job with the id {', '.join(unknown)} is in the list")
        ids = named or [
            job.id for job in engine.own_jobs() if job.state.is_active or job.state is JobState.READY
        ]
        try:
            settled = wait_then_import(context, ids)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        failed = [job for job in settled if job.state in (JobState.FAILED, JobState.OUTCOME_UNKNOWN)]
        for job in failed:
            self.report({"WARNING"}, f"Kiln: “{job.request.label[:40]}”: {job.error}")
        return {"FINISHED"}


classes = (
    KILN_OT_cancel_job,
    KILN_OT_retry_job,
    KILN_OT_resume_job,
    KILN_OT_resume_task,
    KILN_OT_import_job,
    KILN_OT_remove_job,
    KILN_OT_clear_finished,
    KILN_OT_copy_task_id,
    KILN_OT_open_cache_folder,
    KILN_OT_wait_jobs,
)
