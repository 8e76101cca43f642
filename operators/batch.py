"""Generate from a prompt file: one job per usable line, results in a grid, a summary at the end.

In the UI the operator only sends the jobs (the watcher imports them as they land, each in its
grid slot, and writes the summary once every job is settled: ``session.batches``). In background
mode it waits for all of them, imports them, and reports before it returns.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, StringProperty

from ..api.errors import InputError, KilnError
from ..api.features import batch
from ..api.jobs import JobState
from ..options import declare
from ..session import batches, job_requests, spending, state, watcher
from ..session.arguments import GameOutputProperties
from ..session.blocking import blocks
from ..session.launching import OnlineOperator, setup_problem, wait_then_import
from ..session.messenger import refuse

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


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
    resolution: declare("resolution")  # type: ignore[valid-type]
    max_credits: declare("max_credits")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]
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
        reused = batches.reusable(parsed.items, self.reuse, context)
        to_send = [item for index, item in enumerate(parsed.items) if index not in reused]
        cost = spending.estimate_for((item.request for item in to_send), context)
        refusal = spending.over_limit(cost, self.max_credits, f"{path.name} ({len(to_send)} jobs)")
        if refusal:
            return refuse(self, refusal)
        if not self.confirmed and spending.should_ask(cost, context):
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
            job_ids = batches.send(context, parsed.items, reused, game)
        except KilnError as exc:  # the job list cannot be written, or bad LOD ratios: nothing was sent
            return refuse(self, exc.user_message)
        if not job_ids:
            self.report(
                {"INFO"}, f"Kiln: {path.name}: every line came from the Kiln library; nothing was sent"
            )
            return {"FINISHED"}
        summary_path = bpy.path.abspath(self.summary_path.strip()) if self.summary_path.strip() else ""
        if not blocks(self):
            batches.follow(state.FollowedBatch(path.name, job_ids, summary_path))
            watcher.ensure_running()
            self.report({"INFO"}, f"Kiln: generating {len(job_ids)} meshes from {path.name}")
            return {"FINISHED"}

        try:
            wait_then_import(context, job_ids)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        jobs, headline = batches.conclude(job_ids, summary_path)
        for job in jobs:
            if job.state is not JobState.IMPORTED:
                self.report({"WARNING"}, f"Kiln: “{job.request.label[:40]}”: {job.error or job.state.value}")
        if not any(job.state is JobState.IMPORTED for job in jobs):
            return refuse(self, f"no job of {path.name} succeeded ({headline}).")
        self.report({"INFO"}, f"Kiln: {path.name}: {headline}")
        return {"FINISHED"}


classes = (KILN_OT_generate_batch,)
