"""A batch's session part: which lines the library answers, sending the rest into a grid, the summary.

In the UI the operator (``operators.batch``, its flow ``batch_run``) only sends the jobs; the
watcher imports them as they land, each in its grid slot, and asks ``conclude_settled`` on every
beat, which writes the summary once every job of a batch is settled. In background mode the
operator waits and concludes itself.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from mathutils import Vector

from .. import preferences
from ..api.errors import KilnError
from ..api.features.quality.options import GameOptions
from ..api.jobs import Job, JobRequest, JobState
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..language import said as said_text
from . import library, runtime, state
from .arguments import preferred_options
from .messenger import sentence
from .placement import Placement
from .quality_report import job_report
from .starting import start_job

if TYPE_CHECKING:
    from ..api.features import batch
    from ..api.jobs import JobEngine
    from .messenger import Report

log = logging.getLogger(__name__)


def reusable(
    items: list[batch.BatchItem], reuse: str, context: bpy.types.Context
) -> dict[int, library.Entry]:
    """Lines whose identical request is in the library (a batch never stops to ask: ASK uses them)."""
    found = {index: library.reusable(item.request, reuse, context) for index, item in enumerate(items)}
    return {index: entry for index, entry in found.items() if entry is not None}


def send(
    context: bpy.types.Context,
    items: list[batch.BatchItem],
    reused: dict[int, library.Entry] | None = None,
    game: tuple[GameOptions, str] = (GameOptions(), ""),
) -> list[str]:
    """Submit every item not reused (the engine bounds how many are in flight), reserve every grid
    slot, and put the library's copies in theirs; returns the ids of the jobs sent."""
    from ..api.features import batch  # loaded by the first batch: most sessions send none

    groups = batch.group_names((item.request.label for item in items), bpy.data.collections.keys())
    job_ids: list[str] = []
    copies: dict[str, tuple[library.Entry, JobRequest, str]] = {}
    for index, (item, group) in enumerate(zip(items, groups, strict=True)):
        if reused and index in reused:
            copies[f"library:{index}"] = (reused[index], item.request, group)
        else:
            request = replace(item.request, game=item.row.apply(*game).to_text())
            job_ids.append(start_job(context, request, group=group).id)
    at_cursor = preferences.get(context).placement == "CURSOR"
    slots = job_ids + list(copies)
    grid_slots = state.current.grid_slots
    grid_slots.reserve(slots, context.scene.cursor.location.copy() if at_cursor else Vector())
    options = preferred_options(context)
    for slot, (entry, request, group) in copies.items():
        try:
            library.append(
                context, entry, Placement(options, group=group, grid=grid_slots.take(slot)), request
            )
        except OSError as exc:
            log.warning("Could not append %s from the Kiln library: %s", entry.blend, exc)
    return job_ids


def conclude(job_ids: list[str], summary_path: str) -> tuple[list[Job], Message]:
    """The batch is over: free its grid, write the summary when asked; returns the jobs and a headline."""
    from ..api.features import batch
    from . import review_sheet

    state.current.grid_slots.forget(job_ids)
    engine = runtime.engine()
    jobs = [job for job in map(engine.get, job_ids) if job is not None]
    reports = {job.id: report for job in jobs if (report := job_report(job)) is not None}
    summary = batch.summarize(jobs, reports)
    outcome = {"n": summary["imported"], "total": len(jobs)}
    headline = message(words.BATCH_OUTCOME, **outcome)
    if summary_path:
        try:
            batch.write_summary(Path(summary_path), summary)
            review_sheet.write_review(Path(summary_path), jobs, reports, summary, engine.cache_dir)
        except (OSError, KilnError) as exc:
            log.warning("Could not write the batch summary %s: %s", summary_path, exc)
            headline = message(words.BATCH_OUTCOME_NO_SUMMARY, path=summary_path, **outcome)
    return jobs, headline


def follow(followed: state.FollowedBatch) -> None:
    """Write the batch's summary once its last job settles (the watcher asks on every beat)."""
    state.current.followed.append(followed)


def _settled_here(job: Job | None, auto_import: bool) -> bool:
    """Nothing more will happen to the job in this file: imported, failed, or ready but not coming in."""
    if job is None or job.state.is_active:
        return job is None
    if job.state is not JobState.READY:
        return True
    return not auto_import or job.origin != runtime.current_origin()


def conclude_settled(engine: JobEngine, auto_import: bool) -> list[Report]:
    """Conclude every followed batch whose jobs are all settled (main thread, never waits); what to say."""
    said: list[Report] = []
    for followed in list(state.current.followed):
        if all(_settled_here(engine.get(job_id), auto_import) for job_id in followed.job_ids):
            state.current.followed.remove(followed)
            _, headline = conclude(followed.job_ids, followed.summary_path)
            done = sentence(
                words.BATCH_DONE, file=followed.source, outcome=said_text(headline, as_report=True)
            )
            said.append(("INFO", done))
    return said
