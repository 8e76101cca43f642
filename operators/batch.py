"""Generate from a prompt file: one job per usable line, results in a grid, a summary at the end.

The flow is ``session.batch_run``: in the UI the operator only sends the jobs (the watcher imports
them as they land, each in its grid slot, and writes the summary once every job is settled:
``session.batches``); in background mode it waits for all of them, imports them, and reports
before it returns.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, StringProperty

from ..api.errors import KilnError
from ..api.words import catalogue as words
from ..language import report, said
from ..options import declare
from ..session import spending
from ..session.arguments import GameOutputProperties, ServiceProperties
from ..session.messenger import announce, refuse
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.features.quality.options import GameOptions
    from ..session import batch_run


class KILN_OT_generate_batch(ServiceProperties, GameOutputProperties, OnlineOperator):
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
    #: The token of the image check that ran off the main thread (``session.image_lines``).
    checked: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.confirmed and self.filepath:  # sent back by execute: it says what the batch costs, and asks
            # The flow loads with the first batch, not when Kiln registers.
            from ..api.features.quality.options import GameOptions
            from ..session import batch_run, image_lines

            parsed = batch_run.read(self._given(GameOptions()))
            found = image_lines.Sorted()
            if parsed is not None and self.checked:
                parsed, found = batch_run.with_checked_images(parsed, image_lines.peek(self.checked))
                for refused in found.refused:  # said once, here: the send that follows leaves them out
                    announce("WARNING", refused)
            if parsed is not None and parsed.items:
                weighed = batch_run.weigh(parsed.items, self.reuse, context)
                to_send = [item.request for item in weighed.to_send]
                notes = [said(finding, as_report=True) for finding in found.found]
                if weighed.reused:
                    notes.append(report(words.BATCH_FROM_LIBRARY, n=len(weighed.reused)))
                confirm = words.IMAGE_SEND_ANYWAY if found.found else words.CONFIRM_SEND
                return spending.ask_first(self, context, event, to_send, confirm.name, " ".join(notes))
            return self.execute(context)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        if not self.filepath.strip():
            return refuse(self, words.PROMPT_FILE_NOT_CHOSEN)
        try:
            # A summary gets a review sheet: the helper renders each result's picture for it.
            game = replace(self.game_options(context), review=bool(self.summary_path.strip()))
        except KilnError as exc:  # bad LOD ratios: nothing was sent
            return refuse(self, exc.message)
        from ..session import batch_run

        return batch_run.run(self, context, self._given(game), self._ask_first, self._check_first)

    def _given(self, game: GameOptions) -> batch_run.Given:
        from ..session import batch_run, job_requests

        summary = bpy.path.abspath(self.summary_path.strip()) if self.summary_path.strip() else ""
        return batch_run.Given(
            path=Path(bpy.path.abspath(self.filepath.strip())),
            resolution=job_requests.resolution(self.resolution),
            reuse=self.reuse,
            max_credits=self.max_credits,
            summary_path=summary,
            game=game,
            confirmed=self.confirmed,
            checked=self.checked,
            **self.service_choice(),
        )

    def _ask_first(self) -> None:
        """Back through invoke, which says what the batch costs (and what its images show) and asks."""
        self._again(self.checked)

    def _check_first(self, token: str) -> None:
        """The images were checked on a thread: back through invoke with what was found."""
        from ..session.image_jobs import call_again

        call_again(lambda: self._again(token))

    def _again(self, token: str) -> None:
        bpy.ops.kiln.generate_batch(  # type: ignore[attr-defined]
            "INVOKE_DEFAULT",
            checked=token,
            filepath=self.filepath,
            summary_path=self.summary_path,
            resolution=self.resolution,
            max_credits=self.max_credits,
            reuse=self.reuse,
            confirmed=True,
            **self.given_game_arguments(),
            **self.given_service_arguments(),
        )


classes = (KILN_OT_generate_batch,)
