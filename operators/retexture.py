"""Re-texture the selected mesh on a service that documents it: new textures from a prompt or an
image, the result beside the original (which stays as it is).

The job model and the re-texture's own session code load with the first use, not when Kiln registers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.checks import inputs
from ..api.errors import InputError, KilnError
from ..api.words import catalogue as words
from ..options import declare
from ..session import spending
from ..session.arguments import ServiceProperties
from ..session.messenger import refuse
from ..session.setup import OnlineOperator, setup_problems

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.jobs import JobRequest


class KILN_OT_retexture_selected(spending.PriceQuestion, ServiceProperties, OnlineOperator):
    """New textures for the selected mesh from a prompt or an image; the result lands beside it"""

    bl_idname = "kiln.retexture_selected"
    bl_label = words.OP_RETEXTURE_SELECTED.name
    bl_description = words.OP_RETEXTURE_SELECTED.tip
    bl_options = {"REGISTER"}

    prompt: StringProperty(name=words.ARG_STYLE_PROMPT.name, description=words.ARG_STYLE_PROMPT.tip)  # type: ignore[valid-type]
    filepath: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_STYLE_IMAGE.name, description=words.ARG_STYLE_IMAGE.tip, subtype="FILE_PATH"
    )
    wait: declare("wait")  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        """A re-texture is a paid job: it asks as Generate does (Ask Above, the first unknown price)."""
        return spending.confirm_spend(
            self, context, event, self.priced_request(), words.OP_RETEXTURE_SELECTED.name
        )

    def priced_request(self) -> JobRequest:
        """What sets the price: a re-texture on the chosen service (the mesh is exported only when sent)."""
        from ..api.jobs import JobRequest

        return self.with_service(JobRequest(kind="retexture"))

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        problems = setup_problems(context, self.chosen_service(context))
        if problems:
            return refuse(self, *problems)
        self.price_answered(context)
        try:
            request = self._request(context)
        except KilnError as exc:
            return refuse(self, exc.message)
        from ..session.launching import launch

        return launch(self, context, request)

    def _request(self, context: bpy.types.Context) -> JobRequest:
        """Checked before the export (the service, the style), then the mesh exported and its size checked."""
        from ..api.jobs import JobRequest
        from ..api.jobs.service_side import refusal_of
        from ..session import retexture

        obj = retexture.chosen_mesh(context)
        prompt, image = self.prompt.strip(), self.filepath.strip()
        if bool(prompt) == bool(image):
            raise InputError(words.RETEXTURE_PROMPT_OR_IMAGE)
        image_path = ""
        if image:
            path = Path(bpy.path.abspath(image))
            inputs.read_image_file(path)
            image_path = str(path)
        else:
            inputs.check_prompt(prompt)
        request = self.with_service(
            JobRequest(
                kind="retexture", prompt=prompt, image_path=image_path, retexture_of=obj.name, name=obj.name
            )
        )
        refused = refusal_of(request)
        if refused is not None:
            raise InputError(refused)
        model = retexture.export_mesh(context, obj)
        retexture.check_size(model, request.service_id)
        return replace(request, model_path=str(model))


classes = (KILN_OT_retexture_selected,)
