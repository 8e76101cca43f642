"""A stand-in of Tripo's API v2, written from its public documentation (docs.tripo3d.ai), not from Kiln.

What it follows (pages named as in ``api/services/tripo/__init__.py``):

* General: everything under ``/v2/openapi``; answers ``{"code": 0, "data": {…}}``; errors
  ``{"code", "message", "suggestion"}`` with the HTTP status of the Errors table; an
  ``X-Tripo-Trace-ID`` header on every answer.
* Upload: ``POST /v2/openapi/upload`` (``/upload/sts`` too: the documentation shows both), multipart
  ``file``, webp/jpeg/png, 20–6000 px a side → ``data.image_token``.
* Generation: ``POST /v2/openapi/task`` with ``type`` text_to_model, image_to_model or
  multiview_to_model and their fields, checked as documented (codes 1003, 1004, 2002, 2003, 2004,
  2008, 2010, 2015, 2017, 2019).
* Task: ``GET /v2/openapi/task/{task_id}``: queued → running → success (or failed, banned, expired,
  cancelled, unknown), progress 0–100, ``output`` links (model, pbr_model, base_model,
  rendered_image) that carry signed-looking query strings; a task of another key is 2001.
* Balance (SDK): ``GET /v2/openapi/user/balance`` → ``{"balance", "frozen"}``.
* Pricing: credits per task and option; out of credits is HTTP 403 with code 2010.

Result files are served without auth at ``/files/…``, on the second loopback host when it is bound
(a CDN, as Tripo's links are), so a test sees whether the key ever went there.

Knobs (for tests): a prompt containing ``tripo:<word>`` — ``banned``, ``expired``, ``cancelled``,
``failed`` or ``unknown`` makes the task end so (``unknown`` stays unknown); ``refuse`` answers 2008,
``busy`` 2000, ``audit`` 2014, ``outdated`` 2015 at submit. ``Sandbox.fail_now(task_id, error)``
ends any task as failed; an ``error`` mapping ``{"status": "banned", "error_code": 2008,
"error_msg": "…"}`` ends it in that state instead.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

import requests
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from PIL import Image
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException

from sandbox import images
from sandbox.state import Kind, SandboxState, Task
from sandbox.webhooks import is_loopback_host

PREFIX = "/v2/openapi"
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # "maximum size of 20MB" (Generation, file.url)
MIN_SIDE, MAX_SIDE = 20, 6000
MAX_PROMPT = 1024
MAX_NEGATIVE_PROMPT = 255
MODEL_VERSIONS = frozenset(
    {
        "Turbo-v1.0-20250506",
        "P1-20260311",
        "v3.1-20260211",
        "v3.0-20250812",
        "v2.5-20250123",
        "v2.0-20240919",
        "v1.4-20240625",
    }
)
DEPRECATED_VERSIONS = frozenset({"v1.3-20240522"})
DEFAULT_VERSION = "v2.5-20250123"
STYLES = frozenset(
    {
        "person:person2cartoon",
        "animal:venom",
        "object:clay",
        "object:steampunk",
        "object:christmas",
        "object:barbie",
        "gold",
        "ancient_bronze",
    }
)
TYPES = ("text_to_model", "image_to_model", "multiview_to_model")
BOOL_FIELDS = ("texture", "pbr", "quad", "auto_size", "smart_low_poly", "generate_parts", "export_uv")
#: Pricing: (untextured, textured) credits by task type, for H2/H3 and for P1; options on H2/H3.
PRICES = {
    "text_to_model": ((10, 20), (30, 40)),
    "image_to_model": ((20, 30), (40, 50)),
    "multiview_to_model": ((20, 30), (40, 50)),
}
OPTION_PRICES = {"texture_quality": 10, "smart_low_poly": 10, "quad": 5, "generate_parts": 20}
KNOB = re.compile(r"tripo:(\w+)")

#: The Errors table: code → (HTTP status, message, suggestion).
ERRORS = {
    1000: (500, "Unknown error on sever side", "Please contact the support with request id"),
    1002: (
        401,
        "Authentication failed",
        "Check if your credentials is valid, and ensure you set it correctly",
    ),
    1003: (400, "The request body is malformed", "Refer to the API documentation for request schema"),
    1004: (
        400,
        "One or more of your parameter is invalid",
        "Refer to the API documentation for parameter requirements",
    ),
    2000: (429, "You have exceeded the limit of generation", "Please retry later."),
    2001: (404, "Task not found.", "Please check if you passed the correct task id."),
    2002: (400, "The task type is unsupported.", "Please check if you passed the correct task type."),
    2003: (
        400,
        "The input file is empty.",
        "Please check if you passed file, or it may be rejected by our firewall.",
    ),
    2004: (400, "The file type is unsupported.", "Please check if the file you input is supported."),
    2008: (
        400,
        "Task is rejected because the input violates our content policy.",
        "Please modify your input and retry. If you believe the input should be valid, please contact us.",
    ),
    2010: (
        403,
        "You need more credits to start a new task.",
        "Please review your usage at Billing and purchase more credits.",
    ),
    2014: (
        500,
        "Audit service error.",
        "Content moderation service encountered an error. Please retry or contact support.",
    ),
    2015: (400, "The version has been deprecated, please try higher version.", "Try higher version please."),
    2017: (
        400,
        "Invalid model version.",
        "The model_version parameter is invalid. Please check the available versions.",
    ),
    2019: (
        404,
        "File not found.",
        "The referenced file does not exist in storage. Please verify the file reference.",
    ),
}


class TripoError(Exception):
    """An error answered the way the Errors page shows; ``detail`` goes after the table's message."""

    def __init__(self, code: int, detail: str = "") -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


def error_response(code: int, detail: str = "") -> JSONResponse:
    status, msg, suggestion = ERRORS[code]
    body = {"code": code, "message": f"{msg} {detail}".strip(), "suggestion": suggestion}
    return JSONResponse(body, status_code=status)


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(title="Kiln sandbox: Tripo stand-in", version="2", description=__doc__)
    uploads: dict[str, tuple[str, bytes]] = {}  # image_token → (key, bytes)
    specs: dict[str, dict[str, Any]] = {}  # task id → what Tripo would echo back (type, input, knob)

    @app.middleware("http")
    async def trace_id(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers["X-Tripo-Trace-ID"] = str(uuid.uuid4())
        return response

    @app.exception_handler(TripoError)
    async def _tripo_error(request: Request, exc: TripoError) -> JSONResponse:
        return error_response(exc.code, exc.detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            {"code": 1004 if exc.status_code != 404 else 2001, "message": str(exc.detail), "suggestion": ""},
            status_code=exc.status_code,
        )

    def authorize(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or token.strip() not in state.keys:
            raise TripoError(1002)
        return token.strip()

    @app.post(PREFIX + "/upload")
    @app.post(PREFIX + "/upload/sts")
    async def upload(request: Request) -> dict[str, Any]:
        key = authorize(request)
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise TripoError(1003, "Send the image as multipart/form-data.")
        form = await request.form()
        file = form.get("file")
        if not isinstance(file, UploadFile):
            raise TripoError(2003)
        data = await file.read(MAX_IMAGE_BYTES + 1)
        if not data:
            raise TripoError(2003)
        if len(data) > MAX_IMAGE_BYTES:
            raise TripoError(1004, "The file is larger than 20MB.")
        await checked_image(data)
        token = str(uuid.uuid4())
        uploads[token] = (key, data)
        return {"code": 0, "data": {"image_token": token}}

    @app.get(PREFIX + "/user/balance")
    async def balance(request: Request) -> dict[str, Any]:
        key = authorize(request)
        # The SDK types both as floats: sent as such (an odd-but-legal 980.0).
        return {"code": 0, "data": {"balance": float(state.credits[key]), "frozen": 0.0}}

    @app.post(PREFIX + "/task")
    async def create_task(request: Request) -> dict[str, Any]:
        key = authorize(request)
        with state.lock:
            state.submit_attempts += 1
        try:
            body = await request.json()
        except ValueError:
            raise TripoError(1003) from None
        if not isinstance(body, dict):
            raise TripoError(1003)
        kind_word = body.get("type")
        if kind_word not in TYPES:
            raise TripoError(2002)
        version = body.get("model_version", DEFAULT_VERSION)
        if version in DEPRECATED_VERSIONS:
            raise TripoError(2015)
        if version not in MODEL_VERSIONS:
            raise TripoError(2017)
        check_fields(body)
        prompt: str | None = None
        image: Image.Image | None = None
        if kind_word == "text_to_model":
            prompt = body.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > MAX_PROMPT:
                raise TripoError(1004, "prompt must be 1 to 1024 characters.")
            negative = body.get("negative_prompt")
            if negative is not None and (
                not isinstance(negative, str) or len(negative) > MAX_NEGATIVE_PROMPT
            ):
                raise TripoError(1004, "negative_prompt must be at most 255 characters.")
            knob = knob_of(prompt)
            if knob in KNOB_ERRORS:
                raise TripoError(KNOB_ERRORS[knob])
        elif kind_word == "image_to_model":
            image = await read_file(body.get("file"), key)
        else:
            files = body.get("files")
            if not isinstance(files, list) or len(files) != 4:
                raise TripoError(1004, "files must hold exactly 4 items: [front, left, back, right].")
            if not all(isinstance(f, dict) for f in files) or not files[0]:
                raise TripoError(1004, "The front image cannot be omitted.")
            given = [f for f in files if f]
            if len(given) < 2:
                raise TripoError(1004, "Do not use less than two images.")
            decoded = [await read_file(f, key) for f in given]
            image = decoded[0]
        price = price_of(kind_word, version, body)
        with state.lock:
            if state.credits[key] < price:
                raise TripoError(2010)
        kind: Kind = "text" if kind_word == "text_to_model" else "image"
        task = state.create_task(
            key=key,
            kind=kind,
            resolution=1024,
            prompt=prompt,
            image=image,
            base_url=str(request.base_url).rstrip("/"),
            endpoint="tripo-task",
        )
        if task is None:
            raise TripoError(2010)
        with state.lock:  # create_task charged the sandbox's own price: the rest is Tripo's
            state.credits[key] -= max(0, price - state.cost(kind, 1024))
        specs[task.id] = {
            "type": kind_word,
            "input": {k: v for k, v in body.items() if k not in ("type", "file", "files")},
            "knob": knob_of(prompt or ""),
            "pbr": body.get("pbr", True) is not False,
            "texture": body.get("texture", True) is not False or body.get("pbr", True) is not False,
            "created": int(time.time()),
        }
        task.submit_body = body  # the request as received: tests read which field carried what
        return {"code": 0, "data": {"task_id": task.id}}

    @app.get(PREFIX + "/task/{task_id}")
    async def get_task(task_id: str, request: Request) -> dict[str, Any]:
        key = authorize(request)
        state.count_poll()
        task = state.tasks.get(task_id)
        if task is None or task.key != key or task_id not in specs:
            raise TripoError(2001)
        return {"code": 0, "data": poll_data(state, task, specs[task_id])}

    @app.get("/files/{task_id}/{name}")
    async def get_file(task_id: str, name: str) -> Response:
        task = state.tasks.get(task_id)
        if task is None or task.status != "completed" or name not in FILE_NAMES:
            return Response(b"<Error><Code>NoSuchKey</Code></Error>", 404, media_type="application/xml")
        artifacts = task.artifacts.result()
        if name.endswith(".glb"):
            return Response(artifacts.glb, media_type="model/gltf-binary")
        return Response(artifacts.png, media_type="image/png")

    async def read_file(file: object, key: str) -> Image.Image:
        """Generation's ``file`` object: exactly one of file_token, url, object."""
        if not isinstance(file, dict):
            raise TripoError(1004, "file must be an object.")
        sources = [name for name in ("file_token", "url", "object") if file.get(name) is not None]
        if len(sources) != 1:
            raise TripoError(1004, "Give exactly one of file_token, url and object.")
        if "type" in file and not isinstance(file["type"], str):
            raise TripoError(1004, "file.type must be a string.")
        if sources[0] == "file_token":
            found = uploads.get(file["file_token"]) if isinstance(file["file_token"], str) else None
            if found is None or found[0] != key:
                raise TripoError(2019)
            return await checked_image(found[1])
        if sources[0] == "object":
            raise TripoError(2019, "The stand-in has no STS storage.")
        return await checked_image(await fetch(file["url"]))

    return app


KNOB_ERRORS = {"refuse": 2008, "busy": 2000, "audit": 2014, "outdated": 2015}
KNOB_STATES = frozenset({"banned", "expired", "cancelled", "failed", "unknown"})
FILE_NAMES = ("model.glb", "pbr_model.glb", "base_model.glb", "rendered_image.png")


def knob_of(prompt: str) -> str:
    found = KNOB.search(prompt)
    return found.group(1) if found else ""


def check_fields(body: dict[str, Any]) -> None:
    """Generation's optional fields, each of its documented type and values (1004 otherwise)."""
    for name in BOOL_FIELDS:
        if name in body and not isinstance(body[name], bool):
            raise TripoError(1004, f"{name} must be a boolean.")
    if "face_limit" in body:
        limit = body["face_limit"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise TripoError(1004, "face_limit must be a positive integer.")
    if body.get("texture_quality", "standard") not in ("standard", "detailed"):
        raise TripoError(1004, "texture_quality must be standard or detailed.")
    if "style" in body and body["style"] not in STYLES:
        raise TripoError(1004, "style is not one of the styles.")


def price_of(kind_word: str, version: str, body: dict[str, Any]) -> int:
    """Pricing: the task's base (textured or not; P1 apart) plus options on H2/H3."""
    p1 = version.startswith("P1")
    textured = body.get("texture", True) is not False or body.get("pbr", True) is not False
    price = PRICES[kind_word][1 if p1 else 0][1 if textured else 0]
    if not p1:
        price += OPTION_PRICES["texture_quality"] if body.get("texture_quality") == "detailed" else 0
        price += sum(OPTION_PRICES[k] for k in ("smart_low_poly", "quad", "generate_parts") if body.get(k))
    return price


def poll_data(state: SandboxState, task: Task, spec: dict[str, Any]) -> dict[str, Any]:
    """The task as Task shows it, with the undocumented extras it warns about."""
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
        # Only queued (0) and success (100) are meaningful (Task); the rest is passed as it is.
        "progress": 0 if word == "queued" else 100 if word == "success" else progress,
        "create_time": spec["created"],
        "queuing_num": 3 if word == "queued" else -1,
        "running_left_time": max(0, round(task.eta_seconds - (time.monotonic() - task.created)))
        if word == "running"
        else -1,
    }
    if word == "success":
        base = f"{state.cdn_base_url or task.base_url}/files/{task.id}"
        signed = f"?auth_key={int(time.time()) + 300}-0-0-{uuid.uuid4().hex}"
        output: dict[str, Any] = {"rendered_image": f"{base}/rendered_image.png{signed}", "riggable": False}
        if spec["texture"]:
            output["model"] = f"{base}/model.glb{signed}"
            if spec["pbr"]:
                output["pbr_model"] = f"{base}/pbr_model.glb{signed}"
        else:
            output["base_model"] = f"{base}/base_model.glb{signed}"
        data["output"] = output
    if error_code is not None:
        data["error_code"] = error_code
    if error_msg:
        data["error_msg"] = error_msg
    return data


async def checked_image(data: bytes) -> Image.Image:
    if not data:
        raise TripoError(2003)
    if images.sniff_format(data) is None:
        raise TripoError(2004)
    try:
        image = await run_in_threadpool(images.decode, data)
    except images.ImageTooLarge:
        raise TripoError(1004, f"Each side must be {MIN_SIDE} to {MAX_SIDE} px.") from None
    except Exception:  # Pillow raises many types for broken files
        raise TripoError(2004, "The image could not be decoded.") from None
    if not all(MIN_SIDE <= side <= MAX_SIDE for side in image.size):
        raise TripoError(1004, f"Each side must be {MIN_SIDE} to {MAX_SIDE} px.")
    return image


async def fetch(url: object) -> bytes:
    """file.url, fetched from loopback hosts only (the sandbox has no outside network)."""
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        raise TripoError(1004, "file.url must be an http(s) address.")
    if not is_loopback_host(urlsplit(url).hostname):
        raise TripoError(2003, "The stand-in fetches file.url only from loopback hosts.")

    def get() -> bytes:
        try:
            with requests.get(url, timeout=10, stream=True) as response:
                if response.status_code != 200:
                    raise TripoError(2003, f"file.url answered {response.status_code}.")
                data = bytearray()
                for block in response.iter_content(64 * 1024):
                    data += block
                    if len(data) > MAX_IMAGE_BYTES:
                        raise TripoError(1004, "The file is larger than 20MB.")
                return bytes(data)
        except requests.RequestException:
            raise TripoError(2003, "file.url could not be fetched.") from None

    return await run_in_threadpool(get)
