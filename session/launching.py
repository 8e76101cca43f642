"""How a job is launched and followed: at once with a window, to the end in background mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..api.errors import KilnError
from ..api.jobs import Job, JobRequest, JobState
from ..api.words import catalogue as words
from ..language import Said, said
from . import runtime, watcher
from .arguments import GameOutputProperties, ImportOptionProperties
from .blocking import blocks
from .messenger import refuse, tell
from .starting import start_job

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


def launch(op: bpy.types.Operator, context: bpy.types.Context, request: JobRequest) -> set[OperatorResult]:
    """Submit a job. Interactive: return at once, the watcher follows it. Blocking: wait and import."""
    try:
        if isinstance(op, GameOutputProperties):  # fix-ups and outputs, done by the helper Blender
            request = op.with_game(request, context)
        # Import options given as arguments, for this job's import.
        options = op.import_options(context) if isinstance(op, ImportOptionProperties) else None
        job = start_job(context, request, import_options=options)
        if not blocks(op):
            watcher.ensure_running()
            tell(op, "INFO", words.GENERATING, name=request.label)
            return {"FINISHED"}
        settled = wait_then_import(context, [job.id])
    except KilnError as exc:  # the job list cannot be written (nothing was sent), or no engine runs
        return refuse(op, exc.message)
    final = settled[0] if settled else None
    if final is None or final.state is not JobState.IMPORTED:
        return refuse(op, job_outcome(final))
    tell(op, "INFO", words.IMPORTED_ONE, name=request.label)
    return {"FINISHED"}


def job_outcome(job: Job | None) -> Said:
    """Why a job a script waited for is not in the scene: its own error, or that it did not finish."""
    if job is not None and job.error_message is not None:
        return job.error_message
    return job.error if job is not None and job.error else words.JOB_DID_NOT_FINISH


def tell_not_in_scene(op: bpy.types.Operator, jobs: list[Job]) -> int:
    """A warning for each job a script waited for that is not in the scene; how many are."""
    for job in jobs:
        if job.state is not JobState.IMPORTED:
            tell(op, "WARNING", words.JOB_NOT_IN_SCENE, name=job.request.label, reason=said(job_outcome(job)))
    return sum(job.state is JobState.IMPORTED for job in jobs)


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
