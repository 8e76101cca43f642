"""The generate operators: the same jobs whether clicked in the Sidebar or called from a script."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.checks import inputs
from ..api.errors import InputError, KilnError
from ..api.jobs import JobRequest
from ..options import declare
from ..session import library, spending
from ..session.arguments import GameOutputProperties, ImportOptionProperties
from ..session.blocking import blocks
from ..session.job_requests import save_blender_image, text_request
from ..session.launching import OnlineOperator, launch, setup_problem
from ..session.messenger import refuse

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


def _confirm_spend(
    op: bpy.types.Operator, context: bpy.types.Context, event: bpy.types.Event, request: JobRequest
) -> set[OperatorResult]:
    """The invoke of a generate operator: ask first when the artist wants to confirm this much."""
    cost = spending.estimate_for([request], context)
    free = library.reusable(request, op.reuse, context) is not None  # type: ignore[attr-defined]
    if free or not spending.should_ask(cost, context):
        return op.execute(context)
    return context.window_manager.invoke_confirm(
        op, event, title="Kiln: Spend Credits?", message=f"This job costs {cost}.", confirm_text="Generate"
    )


def _send_or_reuse(
    op: bpy.types.Operator, context: bpy.types.Context, request: JobRequest, reuse: str
) -> set[OperatorResult]:
    """Use the library's copy of an identical request (ALWAYS; ASK when nobody can be asked), or send it."""
    entry = library.reusable(request, reuse, context)
    if entry is not None and reuse == "ASK" and not blocks():
        op.report({"WARNING"}, f"Kiln: {library.asked_sentence(entry)}")
        return {"CANCELLED"}
    if entry is not None:
        return library.use_copy(op, context, entry, request)
    return launch(op, context, request)


class KILN_OT_generate_from_text(ImportOptionProperties, GameOutputProperties, OnlineOperator):
    """Generate a 3D mesh from a text prompt and put it in the scene when it is ready"""

    bl_idname = "kiln.generate_from_text"
    bl_label = "Generate from Text"
    bl_options = {"REGISTER"}

    prompt: StringProperty(name="Prompt", description="What to make, in plain words")  # type: ignore[valid-type]
    resolution: declare("resolution")  # type: ignore[valid-type]
    provider: StringProperty(  # type: ignore[valid-type]
        name="Image Model Provider",
        description="Provider of the reference-view image model (the service does not publish the values)",
    )
    quality: StringProperty(  # type: ignore[valid-type]
        name="Image Model Quality",
        description="Quality of the reference views (the service does not publish the values)",
    )
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return _confirm_spend(self, context, event, self._request())

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context)
        if not problem:
            try:
                inputs.check_prompt(self.prompt)
            except InputError as exc:
                problem = exc.user_message
        if problem:
            return refuse(self, problem)
        return _send_or_reuse(self, context, self._request(), self.reuse)

    def _request(self) -> JobRequest:
        return text_request(self.prompt, self.resolution, self.provider, self.quality)


class KILN_OT_generate_from_image(ImportOptionProperties, GameOutputProperties, OnlineOperator):
    """Generate a 3D mesh from one concept image (file, Blender image or URL)"""

    bl_idname = "kiln.generate_from_image"
    bl_label = "Generate from Image"
    bl_options = {"REGISTER"}

    filepath: StringProperty(name="Image File", subtype="FILE_PATH")  # type: ignore[valid-type]
    image_name: StringProperty(  # type: ignore[valid-type]
        name="Blender Image", description="Any image in this file, Render Result included"
    )
    image_url: StringProperty(name="Image URL", description="Public HTTPS URL of the image")  # type: ignore[valid-type]
    resolution: declare("image_resolution")  # type: ignore[valid-type]
    webhook_url: StringProperty(  # type: ignore[valid-type]
        name="Webhook URL", description="HTTPS address the service notifies when the mesh is done (optional)"
    )
    wait: declare("wait")  # type: ignore[valid-type]
    reuse: declare("reuse")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        priced = JobRequest(
            kind="image", image_url="https://priced.invalid/", resolution=int(self.resolution)
        )
        return _confirm_spend(self, context, event, priced)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problem = setup_problem(context)
        request = None
        if not problem:
            try:
                request = self._request()
            except KilnError as exc:  # unusable input, or the image cannot be saved for upload
                problem = exc.user_message
        if problem or request is None:
            return refuse(self, problem)
        return _send_or_reuse(self, context, request, self.reuse)

    def _request(self) -> JobRequest:
        sources = [s for s in (self.filepath, self.image_name, self.image_url) if s.strip()]
        if len(sources) != 1:
            raise InputError("Choose exactly one image: a file, a Blender image, or a URL.")
        resolution = int(self.resolution)
        webhook = self.webhook_url.strip()
        if webhook:
            inputs.check_web_url(webhook, "webhook URL")
        if self.image_url.strip():
            url = self.image_url.strip()
            inputs.check_web_url(url, "image URL")
            return JobRequest(kind="image", image_url=url, resolution=resolution, webhook_url=webhook)
        if self.image_name.strip():
            path = save_blender_image(self.image_name.strip())
            name = self.image_name.strip()
        else:
            path = Path(bpy.path.abspath(self.filepath.strip()))
            name = ""
        inputs.read_image_file(path)
        return JobRequest(
            kind="image",
            image_path=str(path),
            resolution=resolution,
            webhook_url=webhook,
            name=name,
            blender_image=name,
        )


classes = (KILN_OT_generate_from_text, KILN_OT_generate_from_image)
