"""Request checks of the Meshy stand-in (sandbox/standins/meshy.py): each field as Meshy's pages allow.

Models per Meshy's deprecations page (https://docs.meshy.ai/api/deprecations, checked 2026-11-28):
an active or deprecated model is taken; a retired one is refused with an error, as the page says
("Requests that use a retired model return an error"). The page gives no code or wording for that
error, so the stand-in answers 400 with a ``message`` that says the model is retired and names its
replacement (the shape of every Meshy error, the errors page).
"""
# No `from __future__ import annotations` here: FastAPI resolves the handlers' annotations at runtime.

import base64
import binascii
import json
from typing import Any

from fastapi import Request
from PIL import Image

from sandbox import app as interface_app
from sandbox import images

#: Models the generation endpoints take (deprecations page: meshy-7.1, meshy-6, meshy-6-lite active;
#: meshy-7 deprecated, still working); ``latest`` "always points to the newest standard model".
AI_MODELS = frozenset({"meshy-7.1", "meshy-7", "meshy-6", "meshy-6-lite", "latest"})
LATEST = "meshy-7.1"
#: Retired models and the day each was retired (deprecations page).
RETIRED_MODELS = {"meshy-5": "2026-10-10", "meshy-4": "2026-03-20", "meshy-3": "2025-07"}
ART_STYLES = frozenset({"realistic", "sculpture"})
TOPOLOGIES = frozenset({"quad", "triangle"})
POLYCOUNT = (100, 300_000)
#: www.meshy.ai/api "Pricing" and the MCP server 0.5.2's dist/instructions.js: a preview 20, an image
#: job 20 plain / 30 textured, for Meshy 6 and 7 alike (no page prices meshy-7.1 otherwise).
PREVIEW_COST = 20
IMAGE_COST = (20, 30)


class MeshyError(Exception):
    """An error answered as Meshy's errors page shows: the status and ``{"message": …}``."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("message", ""))
        self.status, self.body, self.headers = status, body, headers or {}


def refuse(message: str, status: int = 400) -> MeshyError:
    return MeshyError(status, {"message": message})


def model_of(body: dict[str, Any]) -> str:
    """The model a generation asks for (``latest`` when none): a retired one is refused."""
    value = body.get("ai_model", "latest")
    if isinstance(value, str) and value in RETIRED_MODELS:
        raise refuse(
            f"The model {value} was retired on {RETIRED_MODELS[value]} and is no longer available. "
            f"Use {LATEST} or meshy-6 instead."
        )
    if value not in AI_MODELS:
        raise refuse(f"ai_model must be one of {', '.join(sorted(AI_MODELS))}.")
    return LATEST if value == "latest" else str(value)


async def json_object(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except ValueError:
        raise refuse("The request body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise refuse("The request body must be a JSON object.")
    return body


def choice(body: dict[str, Any], name: str, allowed: frozenset[str], default: str) -> str:
    value = body.get(name, default)
    if value not in allowed:
        raise refuse(f"{name} must be one of {', '.join(sorted(allowed))}.")
    return str(value)


def flag(body: dict[str, Any], name: str) -> None:
    if name in body and not isinstance(body[name], bool):
        raise refuse(f"{name} must be a boolean.")


def mesh_fields(body: dict[str, Any]) -> None:
    """``topology``, ``target_polycount`` and ``should_remesh``, as the text and image pages allow."""
    choice(body, "topology", TOPOLOGIES, "triangle")
    flag(body, "should_remesh")
    if "target_polycount" in body:
        value = body["target_polycount"]
        low, high = POLYCOUNT
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise refuse(f"target_polycount must be an integer from {low} to {high}.")


def image_job_cost(body: dict[str, Any]) -> int:
    model_of(body)
    flag(body, "should_texture")
    flag(body, "enable_pbr")
    mesh_fields(body)
    plain, textured = IMAGE_COST
    return textured if body.get("should_texture", True) else plain


async def image_of(ref: str) -> Image.Image:
    """An image given as a base64 data URI or a public address (loopback only here)."""
    if ref.startswith("data:"):
        head, _, payload = ref.partition(",")
        if not head.endswith(";base64") or head[5:].split(";")[0] not in ("image/png", "image/jpeg"):
            raise refuse("image_url must be a data URI of a .jpg, .jpeg or .png image.")
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise refuse("The data URI is not valid base64.") from None
    elif ref.startswith(("http://", "https://")):
        data = await interface_app._fetch(ref)
    else:
        raise refuse("image_url must be a public URL or a data URI.")
    if images.sniff_format(data) not in ("png", "jpeg"):
        raise refuse("We currently support .jpg, .jpeg, and .png formats.")
    return await interface_app._decode(data)


def model_file(ref: str) -> None:
    """A model as a data URI of application/octet-stream (a GLB here) or a public address."""
    if ref.startswith(("http://", "https://")):
        return
    head, _, payload = ref.partition(",")
    if head != "data:application/octet-stream;base64":
        raise refuse("model_url must be a public URL or a data URI of type application/octet-stream.")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise refuse("The data URI is not valid base64.") from None
    if data[:4] != b"glTF":
        raise refuse("Supported formats: .glb, .gltf, .obj, .fbx, .stl.")
