"""The generate operators: the same jobs whether clicked in the Sidebar or called from a script.

What a job needs (its request, the library, the image check, the launch) loads with the first click,
not when Kiln registers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..api.checks import inputs
from ..api.errors import InputError, KilnError
from ..api.words import catalogue as words
from ..options import declare
from ..session import spending
from ..session.arguments import GameOutputProperties, ImportOptionProperties, ServiceProperties
from ..session.blocking import blocks, has_event_loop
from ..session.messenger import refuse, tell
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.jobs import JobRequest
    from ..api.words.kinds import Label


def _confirm_spend(
    op: spending.PriceQuestion, context: bpy.types.Context, event: bpy.types.Event, request: JobRequest
) -> set[OperatorResult]:
    """The invoke of a generate operator: ask first when the artist wants to confirm this much, or
    before the session's first job of unknown price."""
    from ..session import library

    assert isinstance(op, bpy.types.Operator)
    if library.reusable(request, op.reuse, context) is not None:  # type: ignore[attr-defined]
        return op.execute(context)  # free
    return spending.confirm_spend(op, context, event, request, words.CONFIRM_GENERATE.name)


def _send_or_reuse(
    op: bpy.types.Operator, context: bpy.types.Context, request: JobRequest, reuse: str
) -> set[OperatorResult]:
    """Use the library's copy of an identical request (ALWAYS; ASK when nobody can be asked), or send it."""
    from ..session import library
    from ..session.launching import launch

    entry = library.reusable(request, reuse, context)
    if entry is not None and reuse == "ASK" and not blocks():
        tell(op, "WARNING", words.LIBRARY_OFFER_REPORT, name=entry.label, date=entry.date)
        return {"CANCELLED"}
    if entry is not None:
        return library.use_copy(op, context, entry, request)
    return launch(op, context, request)


class KILN_OT_generate_from_text(
    spending.PriceQuestion, ServiceProperties, ImportOptionProperties, GameOutputProperties, OnlineOperator
):
    """Generate a 3D mesh from a text prompt and put it in the scene when it is ready"""

    bl_idname = "kiln.generate_from_text"
    bl_label = words.OP_GENERATE_FROM_TEXT.name
    bl_description = words.OP_GENERATE_FROM_TEXT.tip
    bl_options = {"REGISTER"}

    prompt: StringProperty(name=words.ARG_PROMPT.name, description=words.ARG_PROMPT.tip)  # type: ignore[valid-type]
    resolution: declare("resolution")  # type: ignore[valid-type]
    provider: StringProperty(name=words.ARG_PROVIDER.name, description=words.ARG_PROVIDER.tip)  # type: ignore[valid-type]
    quality: StringProperty(name=words.ARG_QUALITY.name, description=words.ARG_QUALITY.tip)  # type: ignore[valid-type]
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return _confirm_spend(self, context, event, self._request())

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        self.price_answered(context)
        try:
            inputs.check_prompt(self.prompt)
        except InputError as exc:
            return refuse(self, exc.message)
        return _send_or_reuse(self, context, self._request(), self.reuse)

    def _request(self) -> JobRequest:
        from ..session.job_requests import text_request

        return self.with_service(text_request(self.prompt, self.resolution, self.provider, self.quality))

    def priced_request(self) -> JobRequest:
        return self._request()


class KILN_OT_generate_from_image(
    spending.PriceQuestion, ServiceProperties, ImportOptionProperties, GameOutputProperties, OnlineOperator
):
    """Generate a 3D mesh from one concept image (file, Blender image or URL)"""

    bl_idname = "kiln.generate_from_image"
    bl_label = words.OP_GENERATE_FROM_IMAGE.name
    bl_description = words.OP_GENERATE_FROM_IMAGE.tip
    bl_options = {"REGISTER"}

    filepath: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_IMAGE_FILE.name, description=words.ARG_IMAGE_FILE.tip, subtype="FILE_PATH"
    )
    image_name: StringProperty(name=words.ARG_BLENDER_IMAGE.name, description=words.ARG_BLENDER_IMAGE.tip)  # type: ignore[valid-type]
    image_url: StringProperty(name=words.ARG_IMAGE_URL.name, description=words.ARG_IMAGE_URL.tip)  # type: ignore[valid-type]
    resolution: declare("image_resolution")  # type: ignore[valid-type]
    webhook_url: StringProperty(name=words.ARG_WEBHOOK_URL.name, description=words.ARG_WEBHOOK_URL.tip)  # type: ignore[valid-type]
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]

    preflight: EnumProperty(  # type: ignore[valid-type]
        name=words.ARG_PREFLIGHT.name,
        description=words.ARG_PREFLIGHT.tip,
        items=(
            ("ASK", words.PREFLIGHT_ASK.name, words.PREFLIGHT_ASK.tip),
            ("STRICT", words.PREFLIGHT_STRICT.name, words.PREFLIGHT_STRICT.tip),
        ),
        default="ASK",
    )
    prepare: BoolProperty(name=words.ARG_PREPARE.name, description=words.ARG_PREPARE.tip, default=True)  # type: ignore[valid-type]
    variants: declare("variants")  # type: ignore[valid-type]
    #: The token of the image check that ran off the main thread (``session.image_jobs``).
    checked: StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        from ..session import image_jobs, library

        if not has_event_loop():  # background mode: no timer brings a check's outcome back
            return self.execute(context)
        if not self.checked:  # first the image check, off the main thread; it calls this again
            return self._check_first(context, "INVOKE_DEFAULT")
        checked = image_jobs.peek(self.checked)
        if checked is None or checked.blocks(self.preflight == "STRICT"):
            return self.execute(context)  # which says why nothing is sent
        priced = [self.priced_request()] * self.variants
        free = self.variants == 1 and library.reusable(checked.request, self.reuse, context) is not None
        if free and not checked.preflight.said:
            return self.execute(context)
        if not checked.preflight.said:  # asked as every paid click is (variants: always, they are a run)
            twin = spending.running_twin(checked.request) if self.variants == 1 else None
            if twin is not None:
                return spending.ask_another(self, context, event, checked.request, twin)
            if self.variants == 1:
                return spending.confirm_spend(self, context, event, priced[0], words.CONFIRM_GENERATE.name)
        cost = spending.estimate_for(priced, context)
        note = image_jobs.question_note(checked)
        over = spending.over_balance_note(cost, priced[0].service_id)
        confirm = words.IMAGE_SEND_ANYWAY.name if note else words.CONFIRM_GENERATE.name
        return spending.ask_first(self, context, event, priced, confirm, f"{note} {over}".strip())

    def priced_request(self) -> JobRequest:
        from ..session.job_requests import image_price_request

        return self.with_service(image_price_request(self.resolution))

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..session import image_jobs

        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        self.price_answered(context)
        if not self.checked and has_event_loop():  # a script with a window: checked off the main thread too
            return self._check_first(context, "EXEC_DEFAULT")
        if self.checked:
            checked = image_jobs.take(self.checked)
        else:
            try:
                checked = image_jobs.check_inline(self._request(), self.prepare)
            except KilnError as exc:  # unusable input, or the image cannot be saved for upload
                return refuse(self, exc.message)
        relayed = bool(self.checked) and has_event_loop()  # called again by the check's outcome, a timer
        refused = image_jobs.sendable(self, checked, self.preflight == "STRICT", relayed=relayed)
        if refused is not None or checked is None:
            return refused or {"CANCELLED"}
        if self.variants > 1:
            return image_jobs.launch_variants(
                self, context, image_jobs.variant_requests(checked.request, self.variants)
            )
        return _send_or_reuse(self, context, checked.request, self.reuse)

    def _check_first(self, context: bpy.types.Context, mode: str) -> set[OperatorResult]:
        from ..session import image_jobs

        try:
            request = self._request()
        except KilnError as exc:  # unusable input, or the image cannot be saved for upload
            return refuse(self, exc.message)
        image_jobs.check_then_call_again(self, request, self.prepare, mode)
        return {"FINISHED"}

    def _request(self) -> JobRequest:
        from ..api.jobs import JobRequest
        from ..session.job_requests import save_blender_image

        sources = [s for s in (self.filepath, self.image_name, self.image_url) if s.strip()]
        if len(sources) != 1:
            raise InputError(words.CHOOSE_ONE_IMAGE)
        resolution = int(self.resolution)
        webhook = self.webhook_url.strip()
        if webhook:
            inputs.check_web_url(webhook, "webhook URL")
        if self.image_url.strip():
            url = self.image_url.strip()
            inputs.check_web_url(url, "image URL")
            return self.with_service(
                JobRequest(kind="image", image_url=url, resolution=resolution, webhook_url=webhook)
            )
        if self.image_name.strip():
            path = save_blender_image(self.image_name.strip())
            name = self.image_name.strip()
        else:
            path = Path(bpy.path.abspath(self.filepath.strip()))
            name = ""
        inputs.read_image_file(path)
        request = JobRequest(
            kind="image",
            image_path=str(path),
            resolution=resolution,
            webhook_url=webhook,
            name=name,
            blender_image=name,
        )
        return self.with_service(request)


def _view_argument(label: Label) -> object:
    """A view's argument: a file path or a Blender image's name."""
    return StringProperty(name=label.name, description=label.tip)  # type: ignore[func-returns-value]


class KILN_OT_generate_from_views(
    spending.PriceQuestion, ServiceProperties, ImportOptionProperties, GameOutputProperties, OnlineOperator
):
    """Generate one 3D mesh from several images of the same object (front, and back, left or right)"""

    bl_idname = "kiln.generate_from_views"
    bl_label = words.OP_GENERATE_FROM_VIEWS.name
    bl_description = words.OP_GENERATE_FROM_VIEWS.tip
    bl_options = {"REGISTER"}

    front: _view_argument(words.ARG_VIEW_FRONT)  # type: ignore[valid-type]
    back: _view_argument(words.ARG_VIEW_BACK)  # type: ignore[valid-type]
    left: _view_argument(words.ARG_VIEW_LEFT)  # type: ignore[valid-type]
    right: _view_argument(words.ARG_VIEW_RIGHT)  # type: ignore[valid-type]
    resolution: declare("image_resolution")  # type: ignore[valid-type]
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return _confirm_spend(self, context, event, self.priced_request())

    def priced_request(self) -> JobRequest:
        from ..session.job_requests import image_price_request

        return self.with_service(image_price_request(self.resolution))

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..session.job_requests import views_request

        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        self.price_answered(context)
        try:
            request = views_request(self.front, self.back, self.left, self.right)
        except KilnError as exc:  # a view that is neither a file nor a Blender image, or cannot be saved
            return refuse(self, exc.message)
        request = self.with_service(replace(request, resolution=int(self.resolution)))
        return _send_or_reuse(self, context, request, self.reuse)


classes = (KILN_OT_generate_from_text, KILN_OT_generate_from_image, KILN_OT_generate_from_views)
