"""Blockout to assets: one job per selected placeholder, each result fitted into its place, variants.

What a selection asks for, and cycling variants, is ``session.blockout``; these are the operators.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import bpy

from ..api.errors import KilnError
from ..api.jobs import JobRequest, JobState
from ..options import declare
from ..session import job_requests, library, runtime, spending, variants, watcher
from ..session.arguments import GameOutputProperties, ImportOptionProperties
from ..session.blocking import blocks
from ..session.blockout import (
    active_placeholder,
    cycle,
    has_result,
    placeholders,
    plan,
    quick_request,
    variant_sentence,
)
from ..session.launching import OnlineOperator, setup_problem, wait_then_import
from ..session.messenger import refuse
from ..session.placement import Placement
from ..session.scene_import import choose_options

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

log = logging.getLogger(__name__)


class KILN_OT_generate_from_selection(ImportOptionProperties, GameOutputProperties, OnlineOperator):
    """Generate a mesh for every selected placeholder and put it in the placeholder's place"""

    bl_idname = "kiln.generate_from_selection"
    bl_label = "Generate from Selection"
    bl_options = {"REGISTER"}

    resolution: declare("resolution")  # type: ignore[valid-type]
    fit: declare("fit")  # type: ignore[valid-type]
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]
    max_credits: declare("max_credits")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        chosen = job_requests.resolution(self.resolution)
        requests = [r for r in (quick_request(o, chosen) for o in placeholders(context)) if r]
        cost = spending.estimate_for(requests, context)
        if spending.should_ask(cost, context):
            message = f"These {len(requests)} placeholder jobs cost {cost}. {variant_sentence(requests)}"
            return context.window_manager.invoke_confirm(
                self,
                event,
                title="Kiln: Spend Credits?",
                message=message.strip(),
                confirm_text="Generate",
            )
        return self.execute(context)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context)
        if problem:
            return refuse(self, problem)
        planned = plan(placeholders(context), job_requests.resolution(self.resolution))
        skipped = f"skipped {', '.join(planned.skipped)}" if planned.skipped else ""
        if not planned.requests:
            why = f" ({skipped})" if skipped else " (select placeholders first)"
            return refuse(self, f"no selected object can become a job, so nothing was sent{why}.")
        # Identical earlier results come from the library (free); a selection never stops to ask.
        # A placeholder that already has a result asks for another variant: the library's copy
        # would only repeat a result, so it is always sent (whatever ``reuse`` says).
        reused = [
            (r, e)
            for r in planned.requests
            if not has_result(r) and (e := library.reusable(r, self.reuse, context))
        ]
        to_send = [r for r in planned.requests if all(r is not done for done, _ in reused)]
        refusal = spending.over_limit(
            spending.estimate_for(to_send, context),
            self.max_credits,
            f"The selection ({len(to_send)} jobs)",
        )
        if refusal:
            return refuse(self, refusal)
        if skipped:
            self.report({"WARNING"}, f"Kiln: {skipped}")
        for request, entry in reused:
            self._use_copy(context, request, entry)
        if not to_send:
            self.report({"INFO"}, f"Kiln: {len(reused)} placeholders filled from the Kiln library (free)")
            return {"FINISHED"}
        try:
            job_ids = self._send(context, to_send)
            if not blocks(self):
                watcher.ensure_running()
                self.report({"INFO"}, f"Kiln: generating {len(job_ids)} placeholder replacements")
                return {"FINISHED"}
            jobs = wait_then_import(context, job_ids)
        except KilnError as exc:  # the job list cannot be written, or no engine runs
            return refuse(self, exc.user_message)
        for job in jobs:
            if job.state is not JobState.IMPORTED:
                self.report({"WARNING"}, f"Kiln: “{job.request.label[:40]}”: {job.error or job.state.value}")
        imported = sum(job.state is JobState.IMPORTED for job in jobs)
        if not imported:
            return refuse(self, "no placeholder was replaced.")
        self.report({"INFO"}, f"Kiln: replaced {imported} of {len(job_ids)} placeholders")
        return {"FINISHED"}

    def _use_copy(self, context: bpy.types.Context, request: JobRequest, entry: library.Entry) -> None:
        """The library's copy of an identical earlier result takes the placeholder's place."""
        how = Placement(self.import_options(context), self.fit, placeholder=request.placeholder)
        library.append(context, entry, how, request)
        log.info("“%s” filled from the Kiln library (generated %s)", request.placeholder, entry.date)

    def _send(self, context: bpy.types.Context, requests: list[JobRequest]) -> list[str]:
        engine = runtime.engine(context)
        origin = runtime.current_origin()
        options = self.import_options(context)
        job_ids = []
        for request in requests:
            job_id = engine.record(self.with_game(request, context), origin=origin).id
            choose_options(job_id, options, self.fit)
            job_ids.append(job_id)
        return job_ids


class _VariantOperator(bpy.types.Operator):
    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if active_placeholder(context):
            return True
        cls.poll_message_set("The active object is no placeholder and no result of one")
        return False


class _CycleVariant(_VariantOperator):
    step = 1

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        name = active_placeholder(context)
        number = cycle(context, name, self.step)
        if number is None:
            self.report({"WARNING"}, f"Kiln: “{name}” has no variant")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Kiln: “{name}” shows variant {number}")
        return {"FINISHED"}


class KILN_OT_variant_next(_CycleVariant):
    """Show the next variant of the active placeholder, hiding the others"""

    bl_idname = "kiln.variant_next"
    bl_label = "Next Variant"
    bl_options = {"REGISTER", "UNDO"}


class KILN_OT_variant_previous(_CycleVariant):
    """Show the previous variant of the active placeholder, hiding the others"""

    bl_idname = "kiln.variant_previous"
    bl_label = "Previous Variant"
    bl_options = {"REGISTER", "UNDO"}
    step = -1


class KILN_OT_variant_keep(_VariantOperator):
    """Keep the shown variant of the active placeholder and delete the others"""

    bl_idname = "kiln.variant_keep"
    bl_label = "Keep Variant"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        name = active_placeholder(context)
        shown = variants.shown_variant(name, context)
        if shown is None:
            self.report({"WARNING"}, f"Kiln: no variant of “{name}” is shown, so none was deleted")
            return {"CANCELLED"}
        removed = 0
        for number, objects in variants.variants_of(name).items():
            if number != shown:
                for obj in objects:
                    bpy.data.objects.remove(obj)
                removed += 1
        self.report({"INFO"}, f"Kiln: kept variant {shown} of “{name}”, deleted {removed}")
        return {"FINISHED"}


classes = (
    KILN_OT_generate_from_selection,
    KILN_OT_variant_next,
    KILN_OT_variant_previous,
    KILN_OT_variant_keep,
)
