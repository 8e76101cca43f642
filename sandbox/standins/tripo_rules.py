"""What Tripo's API v3 accepts and answers, as the official SDK ``tripo3d`` 1.0.0 shows it.

The request fields of each generation path are the parameters of the SDK's call for it
(``tripo3d/client.py`` ``text_to_model``, ``image_to_model``, ``multiview_to_model``, with their
documented pass-through keywords); a field outside them is refused (1004), so a v2 field such as
``type``, ``model_version``, ``file`` or ``style`` never goes unnoticed. Codes and prices are Tripo's
Errors and Pricing pages (``api/services/tripo/__init__.py`` names them).
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

from sandbox.state import SandboxState, Task

MODELS = frozenset(
    {
        "Turbo-v1.0-20250506",
        "P1-20260311",
        "v3.1-20260211",
        "v3.0-20250812",
        "v2.5-20250123",  # client.py text_to_model: the SDK's default model_version
        "v2.0-20240919",
    }
)
RETIRED_MODELS = frozenset({"v1.3-20240522", "v1.4-20240625"})
MAX_PROMPT, MAX_NEGATIVE_PROMPT = 1024, 255

_COMMON = {
    "model", "face_limit", "texture", "pbr", "model_seed", "texture_seed", "texture_quality",
    "geometry_quality", "auto_size", "quad", "compress", "generate_parts", "smart_low_poly",
    "export_uv", "texture_version", "export_orientation",
}  # fmt: skip
_IMAGE_EXTRA = {"texture_alignment", "orientation"}
#: The generation paths, their task type and the fields the SDK may send there.
PATHS = {
    "/v3/generation/text-to-model": ("text_to_model", {"prompt", "negative_prompt", "image_seed"} | _COMMON),
    "/v3/generation/image-to-model": (
        "image_to_model",
        {"input", "enable_image_autofix"} | _IMAGE_EXTRA | _COMMON,
    ),
    "/v3/generation/multiview-to-model": ("multiview_to_model", {"inputs"} | _IMAGE_EXTRA | _COMMON),
}
#: client.py import_model (``input``) and texture_model (its parameters, ``texture_prompt`` an object).
MODEL_PATHS = {
    "/v3/models/import": ("import_model", {"input"}),
    "/v3/models/texture": (
        "texture_model",
        {
            "input", "model", "texture", "pbr", "model_seed", "texture_seed", "texture_quality",
            "texture_alignment", "part_names", "bake", "compress", "texture_prompt", "delight",
        },
    ),
}  # fmt: skip
TEXTURE_MODELS = frozenset({"v2.5-20250123", "v3.0-20250812", "v3.5-20260815"})  # client.py texture_model
#: Pricing: texture_model 10 credits; it names no price for import_model.
MODEL_PRICES = {"import_model": 0, "texture_model": 10}
BOOL_FIELDS = ("texture", "pbr", "quad", "auto_size", "smart_low_poly", "generate_parts", "export_uv")
INT_FIELDS = ("image_seed", "model_seed", "texture_seed")
CHOICES = {
    "texture_quality": ("standard", "detailed"),
    "geometry_quality": ("standard", "detailed"),
    "texture_alignment": ("original_image", "geometry"),
    "orientation": ("default", "align_image"),
    "compress": ("geometry",),
}
#: Pricing: (untextured, textured) credits by task type, for H2/H3 and for P1; options on H2/H3.
PRICES = {
    "text_to_model": ((10, 20), (30, 40)),
    "image_to_model": ((20, 30), (40, 50)),
    "multiview_to_model": ((20, 30), (40, 50)),
}
OPTION_PRICES = {"texture_quality": 10, "smart_low_poly": 10, "quad": 5, "generate_parts": 20}

#: The Errors table: code → (HTTP status, message, suggestion).
ERRORS = {
    1000: (500, "Unknown error on sever side", "Please contact the support with request id"),
    1002: (
        401,
        "Authentication failed",
        "Check if your credentials is valid, and ensure you set it correctly",
    ),
    1003: (400, "The request body is malformed", "Refer to the API documentation for request schema"),
    1004: (400, "One or more of your parameter is invalid", "Refer to the API documentation for parameters"),
    2000: (429, "You have exceeded the limit of generation", "Please retry later."),
    2001: (404, "Task not found.", "Please check if you passed the correct task id."),
    2003: (400, "The input file is empty.", "Please check if you passed file."),
    2004: (400, "The file type is unsupported.", "Please check if the file you input is supported."),
    2008: (400, "Task is rejected because the input violates our content policy.", "Modify your input."),
    2010: (403, "You need more credits to start a new task.", "Please purchase more credits."),
    2014: (500, "Audit service error.", "Please retry or contact support."),
    2015: (400, "The version has been deprecated, please try higher version.", "Try higher version please."),
    2017: (400, "Invalid model version.", "Please check the available versions."),
    2019: (404, "File not found.", "The referenced file does not exist in storage."),
}
KNOB_ERRORS = {"refuse": 2008, "busy": 2000, "audit": 2014, "outdated": 2015}
KNOB_STATES = frozenset({"banned", "expired", "cancelled", "failed", "unknown"})
FILE_NAMES = ("model.glb", "base_model.glb", "rendered_image.png")


class TripoError(Exception):
    """An error answered the way the Errors page shows; ``detail`` goes after the table's message."""

    def __init__(self, code: int, detail: str = "") -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


def error_body(code: int, detail: str = "") -> tuple[int, dict[str, Any]]:
    """(status, body) of an error: the SDK's envelope (_http.py _api_error_from_body) with a request id."""
    status, msg, suggestion = ERRORS[code]
    body = {
        "code": code,
        "message": f"{msg} {detail}".strip(),
        "suggestion": suggestion,
        "request_id": f"req_{uuid.uuid4().hex}",
    }
    return status, body


def check_fields(path: str, body: dict[str, Any]) -> None:
    """Each field known for its path, of the SDK's type and values (1004 otherwise)."""
    unknown = sorted(set(body) - {**PATHS, **MODEL_PATHS}[path][1])
    if unknown:
        raise TripoError(1004, f"Unknown parameter: {unknown[0]}.")
    for name in BOOL_FIELDS:
        if name in body and not isinstance(body[name], bool):
            raise TripoError(1004, f"{name} must be a boolean.")
    for name in (*INT_FIELDS, "face_limit"):
        value = body.get(name)
        if name in body and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise TripoError(1004, f"{name} must be a non-negative integer.")
    if body.get("face_limit", 1) == 0:
        raise TripoError(1004, "face_limit must be positive.")
    for name, allowed in CHOICES.items():
        if name in body and body[name] not in allowed:
            raise TripoError(1004, f"{name} must be one of {', '.join(allowed)}.")


def check_model(body: dict[str, Any]) -> str:
    model = body.get("model", "v2.5-20250123")
    if model in RETIRED_MODELS:
        raise TripoError(2015)
    if model not in MODELS:
        raise TripoError(2017)
    return str(model)


def price_of(task_type: str, model: str, body: dict[str, Any]) -> int:
    """Pricing: the task's base (textured or not; P1 apart) plus options on H2/H3."""
    p1 = model.startswith("P1")
    price = PRICES[task_type][1 if p1 else 0][1 if textured(body) else 0]
    if not p1:
        price += OPTION_PRICES["texture_quality"] if body.get("texture_quality") == "detailed" else 0
        price += sum(OPTION_PRICES[k] for k in ("smart_low_poly", "quad", "generate_parts") if body.get(k))
    return price


def textured(body: dict[str, Any]) -> bool:
    """pbr on (its default) forces texture on (Generation)."""
    return body.get("texture", True) is not False or body.get("pbr", True) is not False


def poll_data(state: SandboxState, task: Task, spec: dict[str, Any]) -> dict[str, Any]:
    """The task as ``GET /v3/tasks/{id}`` shows it (SDK models.py Task.from_dict, TaskOutput.from_dict)."""
    status, progress, error = task.snapshot()
    knob = spec["knob"]
    word = {"queued": "queued", "running": "running", "completed": "success", "failed": "failed"}[status]
    error_code, error_msg = None, None
    if isinstance(error, dict) and error.get("status") in KNOB_STATES:
        word = error["status"]
        error_code, error_msg = error.get("error_code"), error.get("error_msg")
    elif status == "failed":
        error_code, error_msg = 1001, str(error) if isinstance(error, str) else "Fatal error on server side"
    elif knob in KNOB_STATES and status in ("running", "completed"):
        word = knob
        error_code = {"banned": 2008, "failed": 1001}.get(knob)
    data: dict[str, Any] = {
        "task_id": task.id,
        "type": spec["type"],
        "status": word,
        "input": spec["input"],
        "output": {},
        "progress": 0 if word == "queued" else 100 if word == "success" else progress,
        "created_at": datetime.fromtimestamp(spec["created"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "queuing_num": 3 if word == "queued" else -1,
        "running_left_time": max(0, round(task.eta_seconds - (time.monotonic() - task.created)))
        if word == "running"
        else -1,
    }
    if word == "success":
        base = f"{state.cdn_base_url or task.base_url}/files/{task.id}"
        signed = f"?auth_key={int(time.time()) + 300}-0-0-{uuid.uuid4().hex}"
        mesh = "model.glb" if spec["textured"] else "base_model.glb"
        # v3 answers one signed model_url (models.py TaskOutput: "apiv3 returns a single model_url").
        data["output"] = {
            "model_url": f"{base}/{mesh}{signed}",
            "rendered_image_url": f"{base}/rendered_image.png{signed}",
        }
        data["credits_consumed"] = spec["price"]
    if error_code is not None:
        data["error_code"] = error_code
    if error_msg:
        data["error_msg"] = error_msg
    return data
