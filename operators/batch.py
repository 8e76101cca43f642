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
from ..api.words import catalogue as words
from ..language import report, said
from ..options import declare
from ..session import batches, job_requests, spending, state, watcher
from ..session.arguments import GameOutputProperties
from ..session.blocking import blocks
from ..session.launching import tell_not_in_scene, wait_then_import
from ..session.messenger import refuse, tell
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


class KILN_OT_generate_batch(GameOutputProperties, OnlineOperator):
    """Generate a mesh for every line of a prompt file (.txt: a prompt a line; .csv: prompt or image)"""

    bl_idname = "kiln.generate_batch"
    bl_label = words.OP_GENERATE_BATCH.name
    bl_description = words.OP_GENERATE_BATCH.tip
    bl_options = {"REGISTER"}

    filepath: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_PROMPT_FILE.name, description=words.ARG_PROMPT_FILE.tip, subtype="FILE_PATH"
    )
    filter_glob: StringProperty(default="*.txt;*.csv", options={"HIDDEN"})  # type: ignore[valid-type]
    summary_path: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_SUMMARY_FILE.name, description=words.ARG_SUMMARY_FILE.tip, subtype="FILE_PATH"
    )
    resolution: declare("resolution")  # type: ignore[valid-type]
    max_credits: declare("max_credits")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]
    confirmed: BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.confirmed and self.filepath:  # sent back by execute: it says what the batch costs, and asks
            parsed = self._read()
            if parsed is not None and parsed.items:
                reused = batches.reusable(parsed.items, self.reuse, context)
                to_send = [item.request for index, item in enumerate(parsed.items) if index not in reused]
                note = report(words.BATCH_FROM_LIBRARY, n=len(reused)) if reused else ""
                return spending.ask_first(self, context, event, to_send, words.CONFIRM_SEND.name, note)
            return self.execute(context)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def _read(self) -> batch.Batch | None:
        try:
            return batch.read_batch(self._path(), resolution=job_requests.resolution(self.resolution))
        except InputError:
            return None

    def _path(self) -> Path:
        return Path(bpy.path.abspath(self.filepath.strip()))

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problems = setup_problems(context)
        if problems:
            return refuse(self, *problems)
        if not self.filepath.strip():
            return refuse(self, words.PROMPT_FILE_NOT_CHOSEN)
        path = self._path()
        try:
            parsed = batch.read_batch(path, resolution=job_requests.resolution(self.resolution))
        except InputError as exc:
            return refuse(self, exc.message)
        for problem in [*(line.said for line in parsed.problems), *parsed.notes]:
            tell(self, "WARNING", problem)
        if not parsed.items:
            return refuse(self, words.BATCH_NOTHING_USABLE, file=path.name)
        reused = batches.reusable(parsed.items, self.reuse, context)
        to_send = [item for index, item in enumerate(parsed.items) if index not in reused]
        cost = spending.estimate_for((item.request for item in to_send), context)
        refusal = spending.over_limit(cost, self.max_credits)
        if refusal:
            return refuse(self, refusal)
        if not self.confirmed and to_send and not blocks(self):
            # In the UI a batch always says what it costs and asks first: back through invoke.
            bpy.ops.kiln.generate_batch(  # type: ignore[attr-defined]
                "INVOKE_DEFAULT",
                filepath=self.filepath,
                summary_path=self.summary_path,
                resolution=self.resolution,
                max_credits=self.max_credits,
                reuse=self.reuse,
                confirmed=True,
                **self.given_game_arguments(),
            )
            return {"CANCELLED"}
        tell(
            self,
            "INFO",
            words.BATCH_SENDING,
            file=path.name,
            n=len(to_send),
            cost=spending.cost_text(cost, for_report=True),
        )
        if reused:
            tell(self, "INFO", words.BATCH_FROM_LIBRARY, n=len(reused))
        try:
            # Lines with an export but no folder given: export/ beside the prompt file.
            # A summary gets a review sheet: the helper renders each result's picture for it.
            options = replace(self.game_options(context), review=bool(self.summary_path.strip()))
            game = (options, str(path.parent / "export"))
            job_ids = batches.send(context, parsed.items, reused, game)
        except KilnError as exc:  # the job list cannot be written, or bad LOD ratios: nothing was sent
            return refuse(self, exc.message)
        if not job_ids:
            tell(self, "INFO", words.BATCH_ALL_FROM_LIBRARY, file=path.name)
            return {"FINISHED"}
        summary_path = bpy.path.abspath(self.summary_path.strip()) if self.summary_path.strip() else ""
        if not blocks(self):
            batches.follow(state.FollowedBatch(path.name, job_ids, summary_path))
            watcher.ensure_running()
            tell(self, "INFO", words.BATCH_GENERATING, n=len(job_ids), file=path.name)
            return {"FINISHED"}

        try:
            wait_then_import(context, job_ids)
        except KilnError as exc:
            return refuse(self, exc.message)
        jobs, headline = batches.conclude(job_ids, summary_path)
        if not tell_not_in_scene(self, jobs):
            return refuse(self, words.BATCH_NONE_SUCCEEDED, file=path.name, outcome=said(headline))
        tell(self, "INFO", words.BATCH_DONE, file=path.name, outcome=said(headline))
        return {"FINISHED"}


classes = (KILN_OT_generate_batch,)
