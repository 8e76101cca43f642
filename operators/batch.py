"""Generate from a prompt file: one job per usable line, results in a grid, a summary at the end.

In the UI the operator only sends the jobs (the watcher imports them as they land, each in its
grid slot) and a timer writes the summary once every job is settled. In background mode it
waits for all of them, imports them, and reports before it returns.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from mathutils import Vector

from .. import preferences
from ..api.errors import InputError, KilnError
from ..api.features import batch
from ..api.features.quality.options import GameOptions
from ..api.jobs import Job, JobRequest, JobState
from ..helper_blender import game_ready
from . import (
    credit_guard,
    job_requests,
    job_state,
    library,
    messenger,
    review_sheet,
    runtime,
    watcher,
)
from .blocking import blocks
from .common import OnlineOperator, setup_problem, wait_then_import
from .game_options import GameOutputProperties
from .import_options import preferred_options
from .job_requests import AUTO, TEXT_RESOLUTIONS
from .messenger import refuse
from .placement import Placement

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

log = logging.getLogger(__name__)

FOLLOW_SECONDS = 1.0


class KILN_OT_generate_batch(GameOutputProperties, OnlineOperator):
    """Generate a mesh for every line of a prompt file (.txt: a prompt a line; .csv: prompt or image)"""

    bl_idname = "kiln.generate_batch"
    bl_label = "Generate Batch"
    bl_options = {"REGISTER"}

    filepath: StringProperty(name="Prompt File", subtype="FILE_PATH")  # type: ignore[valid-type]
    filter_glob: StringProperty(default="*.txt;*.csv", options={"HIDDEN"})  # type: ignore[valid-type]
    summary_path: StringProperty(  # type: ignore[valid-type]
        name="Summary File",
        subtype="FILE_PATH",
        description="Write a JSON summary here when every job is settled (optional)",
    )
    resolution: EnumProperty(  # type: ignore[valid-type]
        name="Resolution",
        items=TEXT_RESOLUTIONS,
        default=AUTO,
        description="For lines that do not give their own (images need 1024 or 1536: Auto sends 1536)",
    )
    max_credits: credit_guard.max_credits_property("batch")  # type: ignore[valid-type]
    reuse: EnumProperty(  # type: ignore[valid-type]
        name="Reuse",
        items=library.REUSE_ITEMS,
        default="ASK",
        description="Lines identical to a result in the Kiln asset library: use its copy (free; Ask does "
        "too, for a batch) or send them anyway (Never)",
    )
    confirmed: BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]
    estimate_text: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.confirmed and self.filepath:  # sent back by execute: the estimate needs a yes
            return context.window_manager.invoke_confirm(
                self,
                event,
                title="Kiln: Spend Credits?",
                message=f"This batch costs about {self.estimate_text}.",
                confirm_text="Send",
            )
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context)
        path = Path(bpy.path.abspath(self.filepath.strip()))
        parsed = None
        if not problem:
            try:
                parsed = batch.read_batch(path, resolution=job_requests.resolution(self.resolution))
            except InputError as exc:
                problem = exc.user_message
        if problem or parsed is None:
            return refuse(self, problem)
        for line in parsed.problems:
            self.report({"WARNING"}, f"Kiln: {path.name} {line} (skipped)")
        for note in parsed.notes:
            self.report({"WARNING"}, f"Kiln: {note}")
        if not parsed.items:
            return refuse(self, f"{path.name} has no usable line, so nothing was sent.")
        reused = _reusable(parsed.items, self.reuse, context)
        to_send = [item for index, item in enumerate(parsed.items) if index not in reused]
        cost = credit_guard.estimate_for((item.request for item in to_send), context)
        refusal = credit_guard.over_limit(cost, self.max_credits, f"{path.name} ({len(to_send)} jobs)")
        if refusal:
            return refuse(self, refusal)
        if not self.confirmed and credit_guard.should_ask(cost, context):
            self.report({"WARNING"}, f"Kiln: {path.name} would cost {cost}: confirm to send it.")
            bpy.ops.kiln.generate_batch(  # type: ignore[attr-defined]
                "INVOKE_DEFAULT",
                filepath=self.filepath,
                summary_path=self.summary_path,
                resolution=self.resolution,
                max_credits=self.max_credits,
                reuse=self.reuse,
                confirmed=True,
                estimate_text=str(cost),
                **self.given_game_arguments(),
            )
            return {"CANCELLED"}
        free = f"; {len(reused)} from the Kiln library (free)" if reused else ""
        self.report({"INFO"}, f"Kiln: {path.name}: {len(to_send)} jobs, estimated {cost}{free}")

        try:
            # Lines with an export but no folder given: export/ beside the prompt file.
            # A summary gets a review sheet: the helper renders each result's picture for it.
            options = replace(self.game_options(context), review=bool(self.summary_path.strip()))
            game = (options, str(path.parent / "export"))
            job_ids = _send(context, parsed.items, reused, game)
        except KilnError as exc:  # the job list cannot be written, or bad LOD ratios: nothing was sent
            return refuse(self, exc.user_message)
        if not job_ids:
            self.report(
                {"INFO"}, f"Kiln: {path.name}: every line came from the Kiln library; nothing was sent"
            )
            return {"FINISHED"}
        summary_path = bpy.path.abspath(self.summary_path.strip()) if self.summary_path.strip() else ""
        if not blocks(self):
            _follow(job_state.FollowedBatch(path.name, job_ids, summary_path))
            watcher.ensure_running()
            self.report({"INFO"}, f"Kiln: generating {len(job_ids)} meshes from {path.name}")
            return {"FINISHED"}

        try:
            wait_then_import(context, job_ids)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        jobs, headline = _conclude(job_ids, summary_path)
        for job in jobs:
            if job.state is not JobState.IMPORTED:
                self.report({"WARNING"}, f"Kiln: “{job.request.label[:40]}”: {job.error or job.state.value}")
        if not any(job.state is JobState.IMPORTED for job in jobs):
            return refuse(self, f"no job of {path.name} succeeded ({headline}).")
        self.report({"INFO"}, f"Kiln: {path.name}: {headline}")
        return {"FINISHED"}


def _reusable(
    items: list[batch.BatchItem], reuse: str, context: bpy.types.Context
) -> dict[int, library.Entry]:
    """Lines whose identical request is in the library (a batch never stops to ask: ASK uses them)."""
    found = {index: library.reusable(item.request, reuse, context) for index, item in enumerate(items)}
    return {index: entry for index, entry in found.items() if entry is not None}


def _send(
    context: bpy.types.Context,
    items: list[batch.BatchItem],
    reused: dict[int, library.Entry] | None = None,
    game: tuple[GameOptions, str] = (GameOptions(), ""),
) -> list[str]:
    """Submit every item not reused (the engine bounds how many are in flight), reserve every grid
    slot, and put the library's copies in theirs; returns the ids of the jobs sent."""
    engine = runtime.engine(context)
    origin = runtime.current_origin()
    groups = batch.group_names((item.request.label for item in items), bpy.data.collections.keys())
    job_ids: list[str] = []
    copies: dict[str, tuple[library.Entry, JobRequest, str]] = {}
    for index, (item, group) in enumerate(zip(items, groups, strict=True)):
        if reused and index in reused:
            copies[f"library:{index}"] = (reused[index], item.request, group)
        else:
            request = replace(item.request, game=item.row.apply(*game).to_text())
            job_ids.append(engine.submit(request, origin=origin, group=group).id)
    at_cursor = preferences.get(context).placement == "CURSOR"
    slots = job_ids + list(copies)
    grid_slots = job_state.state.grid_slots
    grid_slots.reserve(slots, context.scene.cursor.location.copy() if at_cursor else Vector())
    options = preferred_options(context)
    for slot, (entry, request, group) in copies.items():
        try:
            names = library.append(context, entry, Placement(options, group=group), request)
            grid_slots.place(context, slot, names)
        except OSError as exc:
            log.warning("Could not append %s from the Kiln library: %s", entry.blend, exc)
            grid_slots.forget([slot])
    return job_ids


def _conclude(job_ids: list[str], summary_path: str) -> tuple[list[Job], str]:
    """The batch is over: free its grid, write the summary when asked; returns the jobs and a headline."""
    job_state.state.grid_slots.forget(job_ids)
    engine = runtime.engine()
    jobs = [job for job in map(engine.get, job_ids) if job is not None]
    reports = {job.id: report for job in jobs if (report := game_ready.job_report(job)) is not None}
    summary = batch.summarize(jobs, reports)
    headline = f"{summary['imported']} of {len(jobs)} imported"
    if summary_path:
        try:
            batch.write_summary(Path(summary_path), summary)
            review_sheet.write_review(Path(summary_path), jobs, reports, summary, engine.cache_dir)
        except (OSError, KilnError) as exc:
            log.warning("Could not write the batch summary %s: %s", summary_path, exc)
            headline += f"; the summary could not be written to {summary_path}"
    return jobs, headline


def _follow(followed: job_state.FollowedBatch) -> None:
    job_state.state.followed.append(followed)
    if not bpy.app.timers.is_registered(_check_followed):
        bpy.app.timers.register(_check_followed, first_interval=FOLLOW_SECONDS, persistent=True)


def _settled_here(job: Job | None, auto_import: bool) -> bool:
    """Nothing more will happen to the job in this file: imported, failed, or ready but not coming in."""
    if job is None or job.state.is_active:
        return job is None
    if job.state is not JobState.READY:
        return True
    return not auto_import or job.origin != runtime.current_origin()


def _check_followed() -> float | None:
    """Timer (UI only, never waits): conclude every followed batch whose jobs are all settled."""
    engine = runtime.engine_if_started()
    if engine is None:
        job_state.state.followed.clear()
        return None
    auto_import = preferences.get().auto_import
    for followed in list(job_state.state.followed):
        if all(_settled_here(engine.get(job_id), auto_import) for job_id in followed.job_ids):
            job_state.state.followed.remove(followed)
            _, headline = _conclude(followed.job_ids, followed.summary_path)
            messenger.announce("INFO", f"Kiln: batch {followed.source}: {headline}")
    return FOLLOW_SECONDS if job_state.state.followed else None


classes = (KILN_OT_generate_batch,)


def unregister() -> None:
    """Stop following batches (``job_state`` forgets them); their jobs stay in the list."""
    if bpy.app.timers.is_registered(_check_followed):
        bpy.app.timers.unregister(_check_followed)
