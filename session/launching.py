"""What every networked operator checks first, and how a job is launched and followed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.errors import KilnError
from ..api.jobs import Job, JobRequest, JobState
from . import runtime, watcher
from .arguments import GameOutputProperties, ImportOptionProperties
from .blocking import blocks
from .messenger import refuse
from .scene_import import choose_options

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

OFFLINE_MESSAGE = (
    "Online access is off, so Kiln cannot reach the service. Turn on "
    "Edit ▸ Preferences ▸ System ▸ Network ▸ Allow Online Access"
)
OFFLINE_OVERRIDE_MESSAGE = "Online access is off: Blender was started with --offline-mode. Start it without"


def offline_message() -> str:
    return OFFLINE_OVERRIDE_MESSAGE if bpy.app.online_access_override else OFFLINE_MESSAGE


class OnlineOperator(bpy.types.Operator):
    """Base of every operator that reaches the service: greyed out while Blender's online access is off.

    The reason shows on hover, and a script calling the operator gets it in the RuntimeError.
    """

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if bpy.app.online_access:
            return True
        cls.poll_message_set(offline_message())
        return False


def setup_problem(context: bpy.types.Context) -> str:
    """Why no job can be sent right now, or an empty string."""
    if not bpy.app.online_access:
        return offline_message()
    chosen = preferences.credentials(context)
    if not chosen.base_url:
        return "No service URL is set. Add it in Edit ▸ Preferences ▸ Add-ons ▸ Kiln"
    if not chosen.api_key:
        return "No API key is set. Add your key in Edit ▸ Preferences ▸ Add-ons ▸ Kiln"
    return ""


def launch(op: bpy.types.Operator, context: bpy.types.Context, request: JobRequest) -> set[OperatorResult]:
    """Submit a job. Interactive: return at once, the watcher follows it. Blocking: wait and import."""
    try:
        if isinstance(op, GameOutputProperties):  # fix-ups and outputs, done by the helper Blender
            request = op.with_game(request, context)
        engine = runtime.engine(context)
        job = engine.record(request, origin=runtime.current_origin())
        if isinstance(op, ImportOptionProperties):  # options given as arguments, for this job's import
            choose_options(job.id, op.import_options(context))
        if not blocks(op):
            watcher.ensure_running()
            op.report({"INFO"}, f"Kiln: generating “{request.label[:40]}”")
            return {"FINISHED"}
        settled = wait_then_import(context, [job.id])
    except KilnError as exc:  # the job list cannot be written (nothing was sent), or no engine runs
        return refuse(op, exc.user_message)
    final = settled[0] if settled else None
    if final is None or final.state is not JobState.IMPORTED:
        return refuse(op, final.error if final and final.error else "the job did not finish")
    op.report({"INFO"}, f"Kiln: imported “{request.label[:40]}” (task {final.task_id})")
    return {"FINISHED"}


def wait_then_import(context: bpy.types.Context, job_ids: list[str]) -> list[Job]:
    """Background mode only: block until the jobs settle, import the finished ones; returns the jobs.

    There is no event loop to run the watcher, so the operator waits (fine: there is no UI) and
    imports before it returns, whatever file the jobs were started from. Jobs no longer in the
    list are left out.
    """
    engine = runtime.engine(context)
    engine.wait(job_ids)
    engine.drain_events()
    for job_id in job_ids:
        job = engine.get(job_id)
        if job is not None and job.state is JobState.READY:
            watcher.import_one(context, job)
    return [job for job in map(engine.get, job_ids) if job is not None]
