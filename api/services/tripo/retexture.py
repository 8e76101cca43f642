"""Re-texturing a mesh on Tripo's API v3: two paid stages, as the SDK ``tripo3d`` 1.0.0 makes them.

Stage 0 uploads the exported GLB (``POST /v3/files``, multipart ``file``) and imports it
(``POST /v3/models/import`` ``{"input": file_token}``: client.py ``import_model``); stage 1 textures
the imported task (``POST /v3/models/texture`` ``{"input": <import task id>, "model", "texture_prompt":
{"text"} or {"image"}}``: client.py ``texture_model``). The engine sends stage 1 once stage 0's
task succeeded (``Client.stages``), with ``order.previous_task_id`` the import task.

Only the multipart upload is used: a mesh above the SDK's 50 MB multipart limit (client.py
``MULTIPART_MAX_BYTES``) is refused with a sentence before anything is sent, so the presigned
upload is never needed.
"""

from __future__ import annotations

from typing import Any

from ...checks.inputs import check_prompt
from ...errors import InputError
from ...http.ids import shown_task_id, task_id_problem
from ...words import catalogue as words
from ..order import Order
from . import INFO, MAX_PROMPT_CHARS, MULTIPART_MAX_BYTES

#: client.py TripoClient.import_model and texture_model.
IMPORT_PATH = "/v3/models/import"
TEXTURE_PATH = "/v3/models/texture"
#: client.py texture_model: ``model_version="v2.5-20250123"`` (also v3.0-20250812, v3.5-20260815),
#: always sent by the SDK; Kiln sends its default.
TEXTURE_MODEL = "v2.5-20250123"
GLB_MIME = "model/gltf-binary"
RETEXTURE_MAX_BYTES = MULTIPART_MAX_BYTES


def style_prompt(order: Order) -> str:
    """The style as text, checked (the SDK's ``text_prompt``; its length: Generation's prompt limit)."""
    prompt = check_prompt(order.prompt)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InputError(
            words.RETEXTURE_PROMPT_TOO_LONG, service=INFO.name, length=len(prompt), limit=MAX_PROMPT_CHARS
        )
    return prompt


def texture_body(order: Order, style: dict[str, str]) -> dict[str, Any]:
    """Stage 1's request: the import task, the texture model, the style, ``pbr`` where chosen."""
    imported = order.previous_task_id
    if not imported or task_id_problem(imported) is not None:
        raise InputError(
            words.SERVICE_ANSWER_UNUSABLE, details=f"import task {shown_task_id(imported)}"
        ).named(INFO.name)
    body: dict[str, Any] = {"input": imported, "model": TEXTURE_MODEL, "texture_prompt": style}
    if "pbr" in order.options:
        value = order.options["pbr"]
        if not isinstance(value, bool) and value not in (0, 1):
            raise InputError(words.TRIPO_OPTION_UNREADABLE, option="pbr")
        body["pbr"] = bool(value)
    return body
