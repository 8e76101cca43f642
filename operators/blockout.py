"""Blockout to assets: one job per selected placeholder, each result fitted into its place, variants.

The requests are all built (``plan``) before the first is sent, so a run that cannot go as a
whole (a bad image, a credit cap) is refused before it costs anything. The fitting happens at
import (``scene_import.import_job``), wherever the job is imported from: the job remembers its
placeholder by name (``JobRequest.placeholder``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty

from ..api.checks import inputs
from ..api.errors import KilnError
from ..api.features.blockout import FITS, JobSource, job_source, variant_after
from ..api.jobs import JobRequest, JobState
from . import credit_guard, job_requests, library, runtime, variants, watcher
from .blocking import blocks
from .common import WAIT_DESCRIPTION, OnlineOperator, setup_problem, wait_then_import
from .game_options import GameOutputProperties
from .generate import save_blender_image
from .import_options import ImportOptionProperties
from .job_requests import AUTO, TEXT_RESOLUTIONS
from .messenger import refuse
from .placement import Placement
from .scene_import import choose_options
from .scene_objects import custom

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

log = logging.getLogger(__name__)

FIT_ITEMS = (
    ("CONTAIN", "Contain", "Largest uniform scale that fits inside the placeholder"),
    ("HEIGHT", "Height", "Uniform scale to the placeholder's height"),
    ("NONE", "None", "As generated, only placed"),
)
assert tuple(item[0] for item in FIT_ITEMS) == FITS
IMAGE_AUTO_RESOLUTION = 1536


@dataclass
class Plan:
    """The jobs a selection becomes, and the objects left out with why."""

    requests: list[JobRequest] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def placeholders(context: bpy.types.Context) -> list[bpy.types.Object]:
    """The selected placeholders; a selected result stands for its placeholder."""
    found: dict[str, bpy.types.Object] = {}
    for obj in context.selected_objects:
        name = custom(obj, variants.PLACEHOLDER_KEY)
        target = bpy.data.objects.get(name) if isinstance(name, str) else obj
        if target is not None:
            found.setdefault(target.name, target)
    return list(found.values())


def source_of(obj: bpy.types.Object) -> JobSource | None:
    """What a placeholder asks for (``kiln_image``, ``kiln_prompt`` or its name)."""
    return job_source(obj.name, custom(obj, "kiln_prompt"), custom(obj, "kiln_image"))


def quick_request(obj: bpy.types.Object, resolution: int | None) -> JobRequest | None:
    """The request without reading any image (for the panel's count and estimate)."""
    source = source_of(obj)
    if source is None:
        return None
    if source.kind == "image":
        return JobRequest(kind="image", resolution=resolution or IMAGE_AUTO_RESOLUTION, placeholder=obj.name)
    return JobRequest(kind="text", prompt=source.value, resolution=resolution, placeholder=obj.name)


def plan(objects: list[bpy.types.Object], resolution: int | None) -> Plan:
    """Every request, checked, before anything is sent; unusable objects are named with the reason."""
    result = Plan()
    for obj in objects:
        source = source_of(obj)
        if source is None:
            result.skipped.append(f"{obj.name} (no kiln_prompt, kiln_image or usable name)")
            continue
        try:
            result.requests.append(_request(obj.name, source, resolution))
        except KilnError as exc:
            result.skipped.append(f"{obj.name} ({exc.user_message})")
    return result


def _request(name: str, source: JobSource, resolution: int | None) -> JobRequest:
    if source.kind == "text":
        prompt = inputs.check_prompt(source.value)
        return JobRequest(kind="text", prompt=prompt, resolution=resolution, name=name, placeholder=name)
    image_name = source.value if source.value in bpy.data.images else ""
    path = save_blender_image(image_name) if image_name else Path(bpy.path.abspath(source.value))
    inputs.read_image_file(path)
    return JobRequest(
        kind="image",
        image_path=str(path),
        resolution=resolution or IMAGE_AUTO_RESOLUTION,
        name=name,
        blender_image=image_name,
        placeholder=name,
    )


def has_result(request: JobRequest) -> bool:
    """Whether the request's placeholder already shows a result: asking again means another variant."""
    return bool(request.placeholder and variants.variants_of(request.placeholder))


def variant_sentence(requests: list[JobRequest]) -> str:
    """Says that placeholders with a result are sent again for a new variant; empty when none has one."""
    again = sum(has_result(r) for r in requests)
    if not again:
        return ""
    which = (
        "1 placeholder already has a result" if again == 1 else f"{again} placeholders already have a result"
    )
    return f"{which}: a new variant is generated (sent again, never taken from the Kiln library)."


class KILN_OT_generate_from_selection(ImportOptionProperties, GameOutputProperties, OnlineOperator):
    """Generate a mesh for every selected placeholder and put it in the placeholder's place"""

    bl_idname = "kiln.generate_from_selection"
    bl_label = "Generate from Selection"
    bl_options = {"REGISTER"}

    resolution: EnumProperty(name="Resolution", items=TEXT_RESOLUTIONS, default=AUTO)  # type: ignore[valid-type]
    fit: EnumProperty(name="Fit", items=FIT_ITEMS, default="CONTAIN")  # type: ignore[valid-type]
    wait: BoolProperty(name="Wait", default=True, description=WAIT_DESCRIPTION)  # type: ignore[valid-type]
    reuse: EnumProperty(  # type: ignore[valid-type]
        name="Reuse",
        items=library.REUSE_ITEMS,
        default="ASK",
        description=f"{library.REUSE_DESCRIPTION} (a placeholder with a result always gets a new variant)",
    )
    max_credits: credit_guard.max_credits_property("selection")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        chosen = job_requests.resolution(self.resolution)
        requests = [r for r in (quick_request(o, chosen) for o in placeholders(context)) if r]
        cost = credit_guard.estimate_for(requests, context)
        if credit_guard.should_ask(cost, context):
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
        refusal = credit_guard.over_limit(
            credit_guard.estimate_for(to_send, context),
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
            job_id = engine.submit(self.with_game(request, context), origin=origin).id
            choose_options(job_id, options, self.fit)
            job_ids.append(job_id)
        return job_ids


def active_placeholder(context: bpy.types.Context) -> str:
    """The placeholder of the active object (itself, or the one it is a result of); '' when none."""
    obj = context.view_layer.objects.active if context.view_layer else None
    if obj is None:
        return ""
    name = custom(obj, variants.PLACEHOLDER_KEY)
    if isinstance(name, str):
        return name
    return obj.name if variants.variants_of(obj.name) else ""


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


def cycle(context: bpy.types.Context, placeholder: str, step: int) -> int | None:
    """Show the variant ``step`` away from the shown one; the active object follows it."""
    results = variants.variants_of(placeholder)
    number = variant_after(list(results), variants.shown_variant(placeholder, context), step)
    if number is None:
        return None
    variants.show_variant(context, placeholder, number)
    shown = [obj for obj in results[number] if obj.name in context.view_layer.objects]
    roots = [obj for obj in shown if obj.parent is None] or shown
    if roots:
        for obj in context.view_layer.objects:
            obj.select_set(obj in shown)
        context.view_layer.objects.active = roots[0]
    return number


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
