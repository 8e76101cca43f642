"""What can be done to a job from the list or a script: stop waiting, retry, import, remove, resume,
add one by its id, copy its details for support.

The job model and what follows a job load with the first action, not when Kiln registers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import bpy
from bpy.props import StringProperty

from ..api.errors import KilnError
from ..api.jobs.disk import ensure_folder
from ..api.services import info
from ..api.words import catalogue as words
from ..language import report, said, tip
from ..options import declare
from ..session import runtime, spending, watcher
from ..session.arguments import chosen_service
from ..session.blocking import blocks
from ..session.messenger import refuse, tell
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.jobs import Job


def _job(context: bpy.types.Context, job_id: str) -> Job:
    """The job an action applies to; raises KilnError (a disk problem, or the job is gone)."""
    job = runtime.engine(context).get(job_id)
    if job is None:
        raise KilnError(words.JOB_GONE)
    return job


class _JobOperator:
    """Mixin: the job an action applies to."""

    job_id: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]


class KILN_OT_cancel_job(_JobOperator, bpy.types.Operator):
    """Cancel this job on the service where it documents a way; elsewhere stop waiting for it"""

    bl_idname = "kiln.cancel_job"
    bl_label = words.OP_STOP_WAITING.name
    bl_description = words.OP_STOP_WAITING.tip
    bl_options = {"INTERNAL"}

    @classmethod
    def description(cls, context: bpy.types.Context, properties: Any) -> str:
        """The job's own service says which it is: a cancel there, or Stop Waiting (it may still charge)."""
        from ..api.jobs.service_side import cancels_on_service

        engine = runtime.engine_if_started()
        job = engine.get(properties.job_id) if engine is not None else None
        on_service = job is not None and cancels_on_service(job)
        return tip((words.OP_CANCEL_ON_SERVICE if on_service else words.OP_STOP_WAITING).tip)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        """A cancel that reaches the service (it deletes the task there: no Resume, credits spent) asks
        first; Stop Waiting leaves the task running and keeps Resume, so it does not."""
        from ..api.jobs.service_side import cancels_on_service

        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        if not cancels_on_service(job) or blocks():
            return self.execute(context)
        service = info(job.request.service_id).name
        return context.window_manager.invoke_confirm(
            self,
            event,
            title=report(words.CANCEL_ON_SERVICE_TITLE, service=service),
            message=report(words.CANCEL_ON_SERVICE_QUESTION, name=job.request.label, service=service),
            confirm_text=report(words.CANCEL_ON_SERVICE_CONFIRM, service=service),
        )

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
            asked = runtime.engine(context).cancel(self.job_id)
        except KilnError as exc:  # a disk problem, or a job another Blender works on
            return refuse(self, exc.message)
        if asked:
            tell(self, "INFO", words.NOTE_CANCELLING, service=info(job.request.service_id).name)
        return {"FINISHED"}


class KILN_OT_retry_job(_JobOperator, OnlineOperator):
    """Send the same request again as a new task (costs credits)"""

    bl_idname = "kiln.retry_job"
    bl_label = words.OP_RETRY.name
    bl_description = words.OP_RETRY.tip
    bl_options = {"INTERNAL"}

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        """Say what the new job costs and that the earlier one's result stays, then ask."""
        from ..api.jobs import JobKind, JobState

        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        if job.request.kind is JobKind.TASK:
            return self.execute(context)  # a followed task is only asked about again: free
        in_scene = job.state is JobState.IMPORTED
        question = spending.retry_question(job.request.label, [job.request], in_scene)
        over = spending.over_balance_note(spending.estimate_for([job.request]), job.request.service_id)
        return context.window_manager.invoke_confirm(
            self,
            event,
            title=report(words.RETRY_TITLE),
            message=f"{question} {over}".strip(),
            confirm_text=report(words.OP_RETRY.name),
        )

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problems = setup_problems(context)
        if problems:
            return refuse(self, *problems)
        try:
            job = _job(context, self.job_id)
            if job.state.is_active:
                tell(self, "WARNING", words.JOB_STILL_RUNNING)
                return {"CANCELLED"}
            runtime.engine(context).retry(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_resume_job(_JobOperator, OnlineOperator):
    """Check on this job's task again at no cost (after a stop, a time-out or a lost connection)"""

    bl_idname = "kiln.resume_job"
    bl_label = words.OP_RESUME.name
    bl_description = words.OP_RESUME.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
            if not job.task_id or job.state.is_active:
                tell(self, "WARNING", words.NOTHING_TO_RESUME)
                return {"CANCELLED"}
            runtime.engine(context).resume(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_resume_task(OnlineOperator):
    """Add a job by its task id (one started on another computer, or copied from the service's
    dashboard): Kiln follows it on its service and brings the mesh in when it is done"""

    bl_idname = "kiln.resume_task"
    bl_label = words.OP_ADD_BY_ID.name
    bl_description = words.OP_ADD_BY_ID.tip
    bl_options = {"REGISTER"}

    task_id: StringProperty(name=words.ARG_TASK_ID.name, description=words.ARG_TASK_ID.tip)  # type: ignore[valid-type]
    name: StringProperty(name=words.ARG_JOB_NAME.name, description=words.ARG_JOB_NAME.tip)  # type: ignore[valid-type]
    service: declare("service", options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def description(cls, context: bpy.types.Context, properties: Any) -> str:
        """Where the service cannot be asked about a task by its id alone, the tooltip says so."""
        service = info(chosen_service(properties, context))
        if service.capabilities.follows_by_id:
            return tip(words.OP_ADD_BY_ID.tip)
        return tip(words.ADD_BY_ID_NOT_ON_SERVICE, service=service.name)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        service = chosen_service(self.properties, context)
        if not info(service).capabilities.follows_by_id:
            return self.execute(context)  # which says why, in a sentence
        self.service = service  # the dialog shows the service the id is asked of
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.jobs import JobKind, JobRequest
        from ..session.launching import wait_then_import

        service = chosen_service(self.properties, context)
        if not info(service).capabilities.follows_by_id:
            return refuse(self, words.ADD_BY_ID_NOT_ON_SERVICE, service=info(service).name)
        problems = setup_problems(context, service)
        problems = problems or ([] if self.task_id.strip() else [words.ENTER_TASK_ID])
        if problems:
            return refuse(self, *problems)
        name = self.name.strip() or said(words.ADDED_JOB_NAME, id=self.task_id.strip())
        request = JobRequest(kind=JobKind.TASK, name=name).to_service(service)
        try:
            engine = runtime.engine(context)
            # Typed or pasted: spaces around it are the artist's, not the id's.
            job = engine.resume_task(self.task_id.strip(), request, origin=runtime.current_origin())
            if blocks(self):
                wait_then_import(context, [job.id])
        except KilnError as exc:
            return refuse(self, exc.message)
        if not blocks(self):
            watcher.ensure_running()
        return {"FINISHED"}


class KILN_OT_import_job(_JobOperator, bpy.types.Operator):
    """Bring this job's mesh into the current scene (again)"""

    bl_idname = "kiln.import_job"
    bl_label = words.OP_IMPORT.name
    bl_description = words.OP_IMPORT.tip
    bl_options = {"INTERNAL"}  # import_one pushes the one undo step itself

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.jobs import JobState

        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        if job.state not in (JobState.READY, JobState.IMPORTED) or not job.mesh_path:
            tell(self, "WARNING", words.NO_MESH_YET)
            return {"CANCELLED"}
        level, message = watcher.import_one(context, job)
        self.report({level}, message)
        return {"FINISHED"} if level == "INFO" else {"CANCELLED"}


class KILN_OT_remove_job(_JobOperator, bpy.types.Operator):
    """Take this job off the list (what it put in the scene stays)"""

    bl_idname = "kiln.remove_job"
    bl_label = words.OP_REMOVE.name
    bl_description = words.OP_REMOVE.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            runtime.engine(context).remove(self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        return {"FINISHED"}


class KILN_OT_clear_finished(bpy.types.Operator):
    """Take every finished, failed or stopped job off the list"""

    bl_idname = "kiln.clear_finished"
    bl_label = words.OP_CLEAR_FINISHED.name
    bl_description = words.OP_CLEAR_FINISHED.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.jobs import JobState

        try:
            engine = runtime.engine(context)
        except KilnError as exc:
            return refuse(self, exc.message)
        for job in engine.jobs():
            if job.state in (JobState.IMPORTED, JobState.FAILED, JobState.CANCELLED):
                engine.remove(job.id)
        return {"FINISHED"}


class KILN_OT_copy_details(_JobOperator, bpy.types.Operator):
    """Copy what support needs to know about this job (its task id, what happened) to the clipboard"""

    bl_idname = "kiln.copy_details"
    bl_label = words.OP_COPY_DETAILS.name
    bl_description = words.OP_COPY_DETAILS.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            job = _job(context, self.job_id)
        except KilnError as exc:
            return refuse(self, exc.message)
        from ..api.jobs.details import job_details

        context.window_manager.clipboard = job_details(job)
        tell(self, "INFO", words.DETAILS_COPIED)
        return {"FINISHED"}


class KILN_OT_open_cache_folder(bpy.types.Operator):
    """Open the folder where Kiln keeps downloaded meshes and previews"""

    bl_idname = "kiln.open_cache_folder"
    bl_label = words.OP_OPEN_CACHE_FOLDER.name
    bl_description = words.OP_OPEN_CACHE_FOLDER.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            folder = runtime.engine(context).cache_dir
            ensure_folder(folder, "open its cache folder")
        except KilnError as exc:
            return refuse(self, exc.message)
        bpy.ops.wm.path_open(filepath=str(folder))
        return {"FINISHED"}


class KILN_OT_wait_jobs(OnlineOperator):
    """Background mode: block until this Blender's jobs are imported or failed. UI: make sure they run"""

    bl_idname = "kiln.wait_jobs"
    bl_label = words.OP_WAIT_JOBS.name
    bl_description = words.OP_WAIT_JOBS.tip
    bl_options = {"REGISTER"}

    job_ids: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_JOB_IDS.name, description=words.ARG_JOB_IDS.tip, options={"SKIP_SAVE"}
    )

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.jobs import JobState
        from ..session.launching import job_outcome, wait_then_import

        try:
            engine = runtime.engine(context)
        except KilnError as exc:
            return refuse(self, exc.message)
        if not blocks(self):
            watcher.ensure_running()
            return {"FINISHED"}
        named = [part.strip() for part in self.job_ids.split(",") if part.strip()]
        if named:
            engine.wait_for_history()  # a named job may be an old one, read off the UI thread
        unknown = [job_id for job_id in named if engine.get(job_id) is None]
        if unknown:
            return refuse(self, words.NO_JOB_WITH_ID, ids=", ".join(unknown))
        ids = named or [
            job.id for job in engine.own_jobs() if job.state.is_active or job.state is JobState.READY
        ]
        try:
            settled = wait_then_import(context, ids)
        except KilnError as exc:
            return refuse(self, exc.message)
        failed = [job for job in settled if job.state in (JobState.FAILED, JobState.OUTCOME_UNKNOWN)]
        for job in failed:
            tell(
                self, "WARNING", words.JOB_NOT_IN_SCENE, name=job.request.label, reason=said(job_outcome(job))
            )
        return {"FINISHED"}


classes = (
    KILN_OT_cancel_job,
    KILN_OT_retry_job,
    KILN_OT_resume_job,
    KILN_OT_resume_task,
    KILN_OT_import_job,
    KILN_OT_remove_job,
    KILN_OT_clear_finished,
    KILN_OT_copy_details,
    KILN_OT_open_cache_folder,
    KILN_OT_wait_jobs,
)
