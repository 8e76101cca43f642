"""Blockout to assets: mark placeholders, one job per selected placeholder, each result fitted into its
place; cycle and keep the variants.

What a selection asks for, and cycling variants, is ``session.blockout``; these are the operators.
What they set in motion loads with the first use, not when Kiln registers.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.errors import KilnError
from ..api.words import catalogue as words
from ..language import report, tip
from ..options import declare
from ..session import spending, watcher
from ..session.arguments import GameOutputProperties, ImportOptionProperties, ServiceProperties
from ..session.blocking import blocks
from ..session.messenger import refuse, tell
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.features.library_index import Entry
    from ..api.jobs import JobRequest

log = logging.getLogger(__name__)


class KILN_OT_mark_placeholder(bpy.types.Operator):
    """Mark the selected objects as placeholders that ask for a mesh: what each should become"""

    bl_idname = "kiln.mark_placeholder"
    bl_label = words.OP_MARK_PLACEHOLDER.name
    bl_description = words.OP_MARK_PLACEHOLDER.tip
    bl_options = {"REGISTER", "UNDO"}

    prompt: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_PLACEHOLDER_PROMPT.name, description=words.ARG_PLACEHOLDER_PROMPT.tip
    )

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if context.selected_objects:
            return True
        cls.poll_message_set(tip(words.MARK_SELECT_FIRST))
        return False

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        active = context.view_layer.objects.active
        asked = active.get("kiln_prompt") if active is not None else None
        self.prompt = asked if isinstance(asked, str) else ""
        return context.window_manager.invoke_props_dialog(self, confirm_text=report(words.MARK_CONFIRM))

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..session.blockout import mark

        prompt = " ".join(self.prompt.split())
        if not prompt:
            return refuse(self, words.MARK_SAY_WHAT)
        marked = mark(list(context.selected_objects), prompt)
        if not marked:
            return refuse(self, words.MARK_NOTHING_MARKABLE)
        tell(self, "INFO", words.MARKED, n=len(marked), prompt=prompt)
        return {"FINISHED"}


class KILN_OT_generate_from_selection(
    ServiceProperties, ImportOptionProperties, GameOutputProperties, OnlineOperator
):
    """Generate a mesh for every selected placeholder and put it in the placeholder's place"""

    bl_idname = "kiln.generate_from_selection"
    bl_label = words.OP_GENERATE_FROM_SELECTION.name
    bl_description = words.OP_GENERATE_FROM_SELECTION.tip
    bl_options = {"REGISTER"}

    resolution: declare("resolution")  # type: ignore[valid-type]
    fit: declare("fit")  # type: ignore[valid-type]
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]
    max_credits: declare("max_credits")  # type: ignore[valid-type]
    #: The token of the image check that ran off the main thread (``session.image_lines``).
    checked: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        """In the UI, sending placeholders always says how many jobs and what they cost, and asks."""
        from ..session import job_requests
        from ..session.blockout import placeholders, quick_request, with_results

        chosen = job_requests.resolution(self.resolution)
        found = (quick_request(o, chosen) for o in placeholders(context))
        requests = [self.with_service(r, context) for r in found if r]
        if not requests:
            return self.execute(context)  # refused there, with the reason
        again = with_results(requests)
        note = report(words.BLOCKOUT_NEW_VARIANTS, n=again) if again else ""
        return spending.ask_first(self, context, event, requests, words.CONFIRM_GENERATE.name, note)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.jobs.service_side import refusal_of
        from ..session import image_lines, job_requests, library
        from ..session.blockout import has_result, not_placeholders, placeholders, plan, why_not
        from ..session.launching import tell_not_in_scene, wait_then_import

        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        chosen = job_requests.resolution(self.resolution)
        planned = plan(placeholders(context), chosen)
        skipped = planned.skipped + [why_not(obj) for obj in not_placeholders(context)]
        if not planned.requests:
            return refuse(self, words.BLOCKOUT_NOTHING_TO_SEND, *skipped[:3])
        planned = replace(planned, requests=[self.with_service(r, context) for r in planned.requests])
        refused = next(filter(None, map(refusal_of, planned.requests)), None)
        if refused is not None:  # a placeholder the service cannot take: nothing is sent
            return refuse(self, refused)
        checked = image_lines.placeholders_checked(self, planned.requests, self.checked, self._again)
        if checked is None:  # the images are being checked on a thread; this comes back with them
            return {"FINISHED"}
        if not checked:  # every image refused, each said
            return {"CANCELLED"}
        planned = replace(planned, requests=checked)
        # Identical earlier results come from the library (free); a selection never stops to ask.
        # A placeholder that already has a result asks for another variant: the library's copy
        # would only repeat a result, so it is always sent (whatever ``reuse`` says).
        reused = [
            (r, e)
            for r in planned.requests
            if not has_result(r) and (e := library.reusable(r, self.reuse, context))
        ]
        to_send = [r for r in planned.requests if all(r is not done for done, _ in reused)]
        refusal = spending.over_limit(spending.estimate_for(to_send, context), self.max_credits)
        if refusal:
            return refuse(self, refusal)
        for reason in skipped:
            tell(self, "WARNING", reason)
        for request, entry in reused:
            self._use_copy(context, request, entry)
        if not to_send:
            tell(self, "INFO", words.BLOCKOUT_ALL_FROM_LIBRARY, n=len(reused))
            return {"FINISHED"}
        try:
            job_ids = self._send(context, to_send)
            if not blocks(self):
                watcher.ensure_running()
                tell(self, "INFO", words.BLOCKOUT_GENERATING, n=len(job_ids))
                return {"FINISHED"}
            jobs = wait_then_import(context, job_ids)
        except KilnError as exc:  # the job list cannot be written, or no engine runs
            return refuse(self, exc.message)
        imported = tell_not_in_scene(self, jobs)
        if not imported:
            return refuse(self, words.BLOCKOUT_NONE_REPLACED)
        tell(self, "INFO", words.BLOCKOUT_REPLACED, n=imported, total=len(job_ids))
        return {"FINISHED"}

    def _again(self, token: str) -> None:
        """Called again from the image check's outcome, with the same arguments and its token."""
        from ..session import image_jobs

        arguments = {**image_jobs.given_arguments(self), "checked": token}
        op = bpy.ops.kiln.generate_from_selection  # type: ignore[attr-defined]
        image_jobs.call_again(lambda: op("EXEC_DEFAULT", **arguments))

    def _use_copy(self, context: bpy.types.Context, request: JobRequest, entry: Entry) -> None:
        """The library's copy of an identical earlier result takes the placeholder's place."""
        from ..session import library
        from ..session.placement import Placement

        how = Placement(self.import_options(context), self.fit, placeholder=request.placeholder)
        library.append(context, entry, how, request)
        log.info("“%s” filled from the Kiln library (generated %s)", request.placeholder, entry.date)

    def _send(self, context: bpy.types.Context, requests: list[JobRequest]) -> list[str]:
        from ..session.starting import start_job

        options = self.import_options(context)
        return [
            start_job(context, self.with_game(request, context), import_options=options, fit=self.fit).id
            for request in requests
        ]


class _VariantOperator(bpy.types.Operator):
    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        from ..session.blockout import active_placeholder

        if active_placeholder(context):
            return True
        cls.poll_message_set(tip(words.VARIANT_NOT_A_PLACEHOLDER))
        return False


class _CycleVariant(_VariantOperator):
    step = 1

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..session.blockout import active_placeholder, cycle

        name = active_placeholder(context)
        number = cycle(context, name, self.step)
        if number is None:
            tell(self, "WARNING", words.VARIANT_NONE, name=name)
            return {"CANCELLED"}
        tell(self, "INFO", words.VARIANT_SHOWN, name=name, n=number)
        return {"FINISHED"}


class KILN_OT_variant_next(_CycleVariant):
    """Show the next variant of the active placeholder, hiding the others"""

    bl_idname = "kiln.variant_next"
    bl_label = words.OP_VARIANT_NEXT.name
    bl_description = words.OP_VARIANT_NEXT.tip
    bl_options = {"REGISTER", "UNDO"}


class KILN_OT_variant_previous(_CycleVariant):
    """Show the previous variant of the active placeholder, hiding the others"""

    bl_idname = "kiln.variant_previous"
    bl_label = words.OP_VARIANT_PREVIOUS.name
    bl_description = words.OP_VARIANT_PREVIOUS.tip
    bl_options = {"REGISTER", "UNDO"}
    step = -1


class KILN_OT_variant_keep(_VariantOperator):
    """Keep the shown variant of the active placeholder and delete the others"""

    bl_idname = "kiln.variant_keep"
    bl_label = words.OP_VARIANT_KEEP.name
    bl_description = words.OP_VARIANT_KEEP.tip
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..session import variants
        from ..session.blockout import active_placeholder

        name = active_placeholder(context)
        shown = variants.shown_variant(name, context)
        if shown is None:
            tell(self, "WARNING", words.VARIANT_NONE_SHOWN, name=name)
            return {"CANCELLED"}
        removed = 0
        for number, objects in variants.variants_of(name).items():
            if number != shown:
                for obj in objects:
                    bpy.data.objects.remove(obj)
                removed += 1
        if removed:
            tell(self, "INFO", words.VARIANT_KEPT, name=name, shown=shown, n=removed)
        else:
            tell(self, "INFO", words.VARIANT_ONLY_ONE, name=name)
        return {"FINISHED"}


classes = (
    KILN_OT_mark_placeholder,
    KILN_OT_generate_from_selection,
    KILN_OT_variant_next,
    KILN_OT_variant_previous,
    KILN_OT_variant_keep,
)
