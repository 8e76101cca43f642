"""What every networked operator checks first, and how a job is launched and followed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.errors import KilnError
from ..api.jobs import JobRequest, JobState
from . import runtime, watcher

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

OFFLINE_MESSAGE = (
    "Online access is off, so Kiln cannot reach the service. Turn on "
    "Edit ▸ Preferences ▸ System ▸ Network ▸ Allow Online Access"
)
OFFLINE_OVERRIDE_MESSAGE = "Online access is off: Blender was started with --offline-mode. Start it without"


def offline_message() -> str:
    return OFFLINE_OVERRIDE_MESSAGE if bpy.app.online_access_override else OFFLINE_MESSAGE


def online_poll(cls: type[bpy.types.Operator]) -> bool:
    """Refuse networked operators while Blender's online access is off (the reason shows on hover)."""
    if bpy.app.online_access:
        return True
    cls.poll_message_set(offline_message())
    return False


def setup_problem(context: bpy.types.Context) -> str:
    """Why no job can be sent right now, or an empty string."""
    if not bpy.app.online_access:
        return offline_message()
    config = preferences.service_config(context)
    if not config.base_url:
        return "No service URL is set. Add it in Edit ▸ Preferences ▸ Add-ons ▸ Kiln (or set KILN_BASE_URL)"
    if not config.api_key:
        return "No API key is set. Add your key in Edit ▸ Preferences ▸ Add-ons ▸ Kiln (or set KILN_API_KEY)"
    return ""


WAIT_DESCRIPTION = (
    "Background mode only: wait until the mesh is imported before returning. Turn off to send "
    "several jobs at once, then call bpy.ops.kiln.wait_jobs()"
)


def launch(
    op: bpy.types.Operator, context: bpy.types.Context, request: JobRequest, *, wait: bool = True
) -> set[OperatorResult]:
    """Submit a job. UI: return at once, the watcher follows it. Background mode: wait and import."""
    try:
        engine = runtime.engine(context)
        job = engine.submit(request, origin=runtime.current_origin())
        if not (bpy.app.background and wait):
            watcher.ensure_running()
            op.report({"INFO"}, f"Kiln: generating “{request.label[:40]}”")
            return {"FINISHED"}
        engine.wait([job.id])
    except KilnError as exc:  # the job list cannot be written (nothing was sent), or no engine runs
        op.report({"ERROR"}, f"Kiln: {exc.user_message}")
        return {"CANCELLED"}
    watcher.import_ready(context, [job.id])
    final = engine.get(job.id)
    if final is None or final.state is not JobState.IMPORTED:
        reason = final.error if final and final.error else "the job did not finish"
        op.report({"ERROR"}, f"Kiln: {reason}")
        return {"CANCELLED"}
    op.report({"INFO"}, f"Kiln: imported “{request.label[:40]}” (task {final.task_id})")
    return {"FINISHED"}
