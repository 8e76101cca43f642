"""A stand-in of Tripo's API v3, written from the official SDK ``tripo3d`` 1.0.0, not from Kiln.

It answers every call the SDK makes for the jobs Kiln offers, as ``tripo3d/client.py`` and
``tripo3d/_http.py`` expect them (fields and codes: :mod:`sandbox.standins.tripo_rules`):

* Auth: ``Authorization: Bearer tsk_…`` (1002 otherwise). Answers ``{"code": 0, "data": {…}}``;
  errors ``{"code", "message", "suggestion", "request_id"}`` with the status of Tripo's Errors table.
* ``POST /v3/files``: multipart ``file`` (up to 150 MB) → ``data.file_token`` (``file_…``).
* ``POST /v3/files/presign`` ``{"format"}`` → ``data.file_token``, ``presigned_url``, ``expires_in``;
  the PUT goes to the CDN host (``/uploads/{token}``), which refuses any ``Authorization`` header
  (as object storage refuses a second auth mechanism).
* ``POST /v3/generation/text-to-model`` (``prompt``), ``…/image-to-model`` (``input``: a file_token or
  an http(s) address), ``…/multiview-to-model`` (``inputs``: exactly 4, ``[front, left, back, right]``,
  ``null`` where missing, front given, at least 2); ``model`` one Tripo offers (a retired one → 2015,
  others → 2017) → ``data.task_id``. Charged as Tripo's Pricing page says.
* ``POST /v3/models/import`` (``input``: the file_token of an uploaded GLB) and ``/v3/models/texture``
  (``input``: an import task of this key, ``texture_prompt`` ``{"text"}`` or ``{"image"}``, ``model``
  one of the SDK's texture models): a re-texture's two tasks.
* ``GET /v3/tasks/{task_id}``: queued → running → success (or failed, banned, expired, cancelled,
  unknown) with ``output.model_url`` and ``output.rendered_image_url`` (signed-looking links on the
  CDN host); a task of another key is 2001.
* ``GET /v3/account/balance`` → ``{"balance", "frozen"}``.
* Every other path (``/v2/openapi/…`` included: shut down on 2026-10-31) is a plain 404.

Result files are served without auth at ``/files/…``, on the second loopback host when it is bound
(a CDN, as Tripo's links are), so a test sees whether the key ever went there.

Knobs (for tests): a prompt containing ``tripo:<word>`` — ``banned``, ``expired``, ``cancelled``,
``failed`` or ``unknown`` makes the task end so (``unknown`` stays unknown); ``refuse`` answers 2008,
``busy`` 2000, ``audit`` 2014, ``outdated`` 2015 at submit. ``Sandbox.fail_now(task_id, error)``
ends any task as failed; an ``error`` mapping ``{"status": "banned", "error_code": 2008,
"error_msg": "…"}`` ends it in that state instead. ``Task.submit_body`` keeps each generation
request as received.
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
from sandbox.standins.tripo_rules import (
    FILE_NAMES,
    KNOB_ERRORS,
    MAX_NEGATIVE_PROMPT,
    MAX_PROMPT,
    MODEL_PATHS,
    MODEL_PRICES,
    PATHS,
    TEXTURE_MODELS,
    TripoError,
    check_fields,
    check_model,
    error_body,
    poll_data,
    price_of,
    textured,
)
from sandbox.state import Kind, SandboxState
from sandbox.webhooks import is_loopback_host

MAX_UPLOAD_BYTES = 150 * 1024 * 1024  # client.py upload_file: "The API caps uploads at 150 MB"
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MIN_SIDE, MAX_SIDE = 20, 6000
PRESIGN_FORMATS = frozenset({"png", "jpg", "jpeg", "webp", "glb", "obj", "fbx", "stl"})
KNOB = re.compile(r"tripo:(\w+)")
_FILE_TOKEN = re.compile(r"^file_[0-9a-f]{32}$")
TEXTURE_MODELS_DEFAULT = "v2.5-20250123"


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(title="Kiln sandbox: Tripo stand-in (API v3)", version="3", description=__doc__)
    app.state.fault_kinds = {("POST", path): "submit" for path in (*PATHS, *MODEL_PATHS)}
    uploads: dict[str, tuple[str, bytes | None]] = {}  # file_token → (key, bytes; None until PUT)
    specs: dict[str, dict[str, Any]] = {}  # task id → what Tripo would echo back

    @app.exception_handler(TripoError)
    async def _tripo_error(request: Request, exc: TripoError) -> JSONResponse:
        status, body = error_body(exc.code, exc.detail)
        return JSONResponse(body, status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"message": str(exc.detail)}, status_code=exc.status_code)

    def authorize(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or token.strip() not in state.keys:
            raise TripoError(1002)
        return token.strip()

    @app.post("/v3/files")
    async def upload(request: Request) -> dict[str, Any]:
        key = authorize(request)
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise TripoError(1003, "Send the file as multipart/form-data.")
        form = await request.form()
        file = form.get("file")
        if not isinstance(file, UploadFile):
            raise TripoError(2003)
        data = await file.read(MAX_UPLOAD_BYTES + 1)
        if not data:
            raise TripoError(2003)
        if len(data) > MAX_UPLOAD_BYTES:
            raise TripoError(1004, "The file is larger than 150MB.")
        token = f"file_{uuid.uuid4().hex}"
        uploads[token] = (key, data)
        return {"code": 0, "data": {"file_token": token}}

    @app.post("/v3/files/presign")
    async def presign(request: Request) -> dict[str, Any]:
        key = authorize(request)
        body = await json_body(request)
        if body.get("format") not in PRESIGN_FORMATS or set(body) != {"format"}:
            raise TripoError(1004, "format must be a supported file extension.")
        token = f"file_{uuid.uuid4().hex}"
        uploads[token] = (key, None)
        base = state.cdn_base_url or str(request.base_url).rstrip("/")
        url = f"{base}/uploads/{token}?X-Amz-Expires=900&X-Amz-Signature={uuid.uuid4().hex}"
        return {"code": 0, "data": {"file_token": token, "presigned_url": url, "expires_in": 900}}

    @app.put("/uploads/{token}")
    async def presigned_put(token: str, request: Request) -> Response:
        if "authorization" in request.headers:
            xml = b"<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message>"
            return Response(xml + b"</Error>", 400, media_type="application/xml")
        found = uploads.get(token)
        data = await request.body()
        if found is None or found[1] is not None or not data or len(data) > MAX_UPLOAD_BYTES:
            return Response(b"<Error><Code>AccessDenied</Code></Error>", 403, media_type="application/xml")
        uploads[token] = (found[0], data)
        return Response(b"", 200)

    @app.get("/v3/account/balance")
    async def balance(request: Request) -> dict[str, Any]:
        key = authorize(request)
        # The SDK types both as floats (models.py Balance): sent as such (an odd-but-legal 980.0).
        return {"code": 0, "data": {"balance": float(state.credits[key]), "frozen": 0.0}}

    async def generate(request: Request) -> dict[str, Any]:
        key = authorize(request)
        path = request.url.path
        body = await json_body(request)
        task_type = PATHS[path][0]
        check_fields(path, body)
        model = check_model(body)
        prompt: str | None = None
        image: Image.Image | None = None
        if task_type == "text_to_model":
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
        elif task_type == "image_to_model":
            image = await read_input(body.get("input"), key)
        else:
            slots = body.get("inputs")
            if not isinstance(slots, list) or len(slots) != 4:
                raise TripoError(1004, "inputs must hold exactly 4 items: [front, left, back, right].")
            if not all(s is None or isinstance(s, str) for s in slots) or slots[0] is None:
                raise TripoError(1004, "The front image cannot be omitted.")
            given = [s for s in slots if s is not None]
            if len(given) < 2:
                raise TripoError(1004, "Do not use less than two images.")
            decoded = [await read_input(s, key) for s in given]
            image = decoded[0]
        price = price_of(task_type, model, body)
        with state.lock:
            if state.credits[key] < price:
                raise TripoError(2010)
        kind: Kind = "text" if task_type == "text_to_model" else "image"
        base_url = str(request.base_url).rstrip("/")
        task = state.create_task(
            key=key, kind=kind, resolution=1024, prompt=prompt, image=image, base_url=base_url,
            endpoint="tripo-task", cost=price,
        )  # fmt: skip
        if task is None:
            raise TripoError(2010)
        specs[task.id] = {
            "type": task_type,
            "input": {k: v for k, v in body.items() if k not in ("input", "inputs")},
            "knob": knob_of(prompt or ""),
            "textured": textured(body),
            "price": price,
            "created": time.time(),
        }
        task.submit_body = body  # the request as received: tests read which field carried what
        return {"code": 0, "data": {"task_id": task.id}}

    for generation_path in PATHS:
        app.add_api_route(generation_path, generate, methods=["POST"])

    async def model_task(request: Request) -> dict[str, Any]:
        """import_model (an uploaded GLB) and texture_model (an import task of this key, a style)."""
        key = authorize(request)
        path = request.url.path
        body = await json_body(request)
        task_type = MODEL_PATHS[path][0]
        check_fields(path, body)
        value = body.get("input")
        prompt = "an imported model"
        if task_type == "import_model":
            found = uploads.get(value) if isinstance(value, str) and _FILE_TOKEN.match(value) else None
            if found is None or found[0] != key or found[1] is None:
                raise TripoError(2019)
            if found[1][:4] != b"glTF":
                raise TripoError(2004, "Import takes GLB, OBJ, FBX or STL.")
        else:
            source = state.tasks.get(value) if isinstance(value, str) else None
            if source is None or source.key != key or specs.get(value, {}).get("type") != "import_model":
                raise TripoError(2001, "input must be an import_model task of yours.")
            if body.get("model", TEXTURE_MODELS_DEFAULT) not in TEXTURE_MODELS:
                raise TripoError(2017)
            style = body.get("texture_prompt")
            if not isinstance(style, dict) or not style or not set(style) <= {"text", "image", "style_image"}:
                raise TripoError(1004, "texture_prompt must hold text, image or style_image.")
            if "text" in style:
                prompt = style["text"] if isinstance(style["text"], str) and style["text"].strip() else ""
                if not prompt or len(prompt) > MAX_PROMPT:
                    raise TripoError(1004, "texture_prompt.text must be 1 to 1024 characters.")
            for name in ("image", "style_image"):
                if name in style:
                    await read_input(style[name], key)
        price = MODEL_PRICES[task_type]
        task = state.create_task(
            key=key, kind="text", resolution=1024, prompt=prompt, base_url=str(request.base_url).rstrip("/"),
            endpoint="tripo-model", cost=price,
        )  # fmt: skip
        if task is None:
            raise TripoError(2010)
        specs[task.id] = {
            "type": task_type, "input": {k: v for k, v in body.items() if k != "input"}, "knob": "",
            "textured": task_type == "texture_model", "price": price, "created": time.time(),
        }  # fmt: skip
        task.submit_body = body
        return {"code": 0, "data": {"task_id": task.id}}

    for model_path in MODEL_PATHS:
        app.add_api_route(model_path, model_task, methods=["POST"])

    @app.get("/v3/tasks/{task_id}")
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

    async def read_input(value: object, key: str) -> Image.Image:
        """An ``input`` string: a file_token of this key's uploads, or an http(s) address."""
        if not isinstance(value, str) or not value.strip():
            raise TripoError(1004, "input must be a file_token, a URL or a task_id.")
        if value.startswith(("http://", "https://")):
            return await checked_image(await fetch(value))
        found = uploads.get(value) if _FILE_TOKEN.match(value) else None
        if found is None or found[0] != key or found[1] is None:
            raise TripoError(2019)
        return await checked_image(found[1])

    return app


async def json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise TripoError(1003) from None
    if not isinstance(body, dict):
        raise TripoError(1003)
    return body


def knob_of(prompt: str) -> str:
    found = KNOB.search(prompt)
    return found.group(1) if found else ""


async def checked_image(data: bytes) -> Image.Image:
    if not data:
        raise TripoError(2003)
    if len(data) > MAX_IMAGE_BYTES:
        raise TripoError(1004, "The image is larger than 20MB.")
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


async def fetch(url: str) -> bytes:
    """An address in ``input``, fetched from loopback hosts only (the sandbox has no outside network)."""
    if not is_loopback_host(urlsplit(url).hostname):
        raise TripoError(2003, "The stand-in fetches addresses only from loopback hosts.")

    def get() -> bytes:
        try:
            with requests.get(url, timeout=10, stream=True) as response:
                if response.status_code != 200:
                    raise TripoError(2003, f"The address answered {response.status_code}.")
                data = bytearray()
                for block in response.iter_content(64 * 1024):
                    data += block
                    if len(data) > MAX_IMAGE_BYTES:
                        raise TripoError(1004, "The file is larger than 20MB.")
                return bytes(data)
        except requests.RequestException:
            raise TripoError(2003, "The address could not be fetched.") from None

    return await run_in_threadpool(get)
