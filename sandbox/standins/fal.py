"""A stand-in of fal.ai's queue, written from the official ``fal-client`` 1.0.3 and fal's model pages.

What it follows (``fal_client/client.py`` and ``auth.py``, named by function):

* ``SyncClient.submit``: ``POST /{owner}/{alias}[/{path}]`` with the model's input as JSON (a
  ``?fal_webhook=`` is taken and ignored) → ``{"request_id", "response_url", "status_url",
  "cancel_url", "queue_position"}``, the URLs under ``/{owner}/{alias}/requests/{id}`` (the app's
  sub-path left out, as ``SyncRequestHandle.from_request_id`` builds them).
* ``status``: ``GET …/requests/{id}/status[?logs=…]`` → ``IN_QUEUE`` with ``queue_position``,
  ``IN_PROGRESS`` with ``logs``, ``COMPLETED`` with ``logs`` and ``metrics`` (and ``error``,
  ``error_type`` when the request failed). ``logs`` is always present (``_parse_status`` reads it).
* ``get``: ``GET …/requests/{id}`` → the model's output; a failed request answers 422 with
  ``{"detail"}``; one still running answers 400 ("Request is still in progress").
* ``cancel``: ``PUT …/requests/{id}/cancel`` → 202 ``{"status": "CANCELLATION_REQUESTED"}``, or 400
  ``{"status": "ALREADY_COMPLETED"}``; a cancelled request completes with an error.
* ``auth.py``: ``Authorization: Key <key>``; anything else is 401 ``{"detail"}`` (``_raise_for_status``).
* Uploads (``SyncClient.upload``), which Kiln does not use but the vendor's client does:
  ``CDNTokenManager``: ``POST /storage/auth/token?storage_type=fal-cdn-v3`` with the key →
  ``{"token", "token_type", "base_url", "expires_at"}``; ``_upload_v3``: ``POST /files/upload`` with
  ``Authorization: <token_type> <token>`` (the token, not the key) → ``{"access_url"}``; the fallback
  ``_upload_via_storage``: ``POST /storage/upload/initiate?storage_type=gcs`` with the key →
  ``{"upload_url", "file_url"}``, then ``PUT upload_url``. The file host is the second loopback host.

The models (their model pages): ``fal-ai/trellis`` and ``fal-ai/trellis-2`` take ``image_url``,
``fal-ai/hunyuan3d/v2`` ``input_image_url`` (and ``textured_mesh``); an image is an http(s) address
(fetched from loopback hosts only) or a ``data:`` URL (``fal_client.encode``). Outputs:
``model_mesh`` (TRELLIS, Hunyuan3D 2) or ``model_glb`` (TRELLIS.2), each a File
``{"url", "content_type", "file_name", "file_size"}`` on the CDN: ``/files/…`` served without auth
on the second loopback host when it is bound, so a test sees whether the key ever went there.

Knobs (for tests): a data URL or address containing ``fal-ratelimit`` answers 429, ``fal-locked``
403 "User is locked. Reason: Exhausted balance"; ``Sandbox.fail_now(task_id, error)`` ends a request
with ``error`` (COMPLETED with an error, as fal shows a failed request).
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from PIL import Image
from starlette.concurrency import run_in_threadpool

from sandbox import images
from sandbox.state import SandboxState, Task
from sandbox.webhooks import is_loopback_host

#: app id → (the image field, the output field) as each model page shows them.
MODELS = {
    "fal-ai/trellis": ("image_url", "model_mesh"),
    "fal-ai/trellis-2": ("image_url", "model_glb"),
    "fal-ai/hunyuan3d/v2": ("input_image_url", "model_mesh"),
}
#: Dollars a request costs, as the model pages list them (the sandbox charges whole cents).
CENTS = {"fal-ai/trellis": 2, "fal-ai/trellis-2": 30, "fal-ai/hunyuan3d/v2": 16}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
DATA_URL = re.compile(r"data:(image/(?:png|jpeg|webp));base64,([A-Za-z0-9+/=\s]+)", re.ASCII)
CANCELLED = "Request was cancelled by the user."


class FalError(Exception):
    """An error answered as fal answers it: the status and ``{"detail": …}``."""

    def __init__(self, status: int, detail: object) -> None:
        super().__init__(str(detail))
        self.status, self.detail = status, detail


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(title="Kiln sandbox: fal.ai queue stand-in", version="1", description=__doc__)
    #: request id → (app id "owner/alias", the full app id, whether cancel was asked)
    requests_of: dict[str, dict[str, Any]] = {}

    @app.exception_handler(FalError)
    async def _fal_error(request: Request, exc: FalError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    def authorize(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme != "Key" or token.strip() not in state.keys:
            raise FalError(401, "Authentication is required to access this application.")
        return token.strip()

    def own(owner: str, alias: str, request_id: str, key: str) -> tuple[Task, dict[str, Any]]:
        found = requests_of.get(request_id)
        task = state.tasks.get(request_id)
        if found is None or task is None or task.key != key or found["app"] != f"{owner}/{alias}":
            raise FalError(404, "Request not found")
        return task, found

    uploads: dict[str, tuple[str, bytes]] = {}  # upload id → (content type, bytes)
    tokens: set[str] = set()  # CDN tokens handed out

    def cdn(request: Request) -> str:
        return state.cdn_base_url or str(request.base_url).rstrip("/")

    @app.post("/storage/auth/token")
    async def cdn_token(request: Request) -> dict[str, Any]:
        authorize(request)
        token = secrets.token_urlsafe(24)
        tokens.add(token)
        expires = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        return {"token": token, "token_type": "Bearer", "base_url": cdn(request), "expires_at": expires}

    @app.post("/files/upload")
    async def upload_v3(request: Request) -> dict[str, Any]:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" or token not in tokens:
            raise FalError(401, "A CDN token is required to upload.")
        upload_id = secrets.token_hex(8)
        uploads[upload_id] = (request.headers.get("content-type", ""), await request.body())
        return {"access_url": f"{cdn(request)}/files/uploaded/{upload_id}"}

    @app.post("/storage/upload/initiate")
    async def initiate(request: Request) -> dict[str, Any]:
        authorize(request)
        upload_id = secrets.token_hex(8)
        uploads[upload_id] = ("", b"")
        return {
            "upload_url": f"{cdn(request)}/storage/put/{upload_id}?signature={secrets.token_hex(8)}",
            "file_url": f"{cdn(request)}/files/uploaded/{upload_id}",
        }

    @app.put("/storage/put/{upload_id}")
    async def put_upload(upload_id: str, request: Request) -> Response:
        if upload_id not in uploads:
            return Response(b"NoSuchUpload", 404, media_type="text/plain")
        uploads[upload_id] = (request.headers.get("content-type", ""), await request.body())
        return Response(b"", 200)

    @app.get("/files/uploaded/{upload_id}")
    async def get_upload(upload_id: str) -> Response:
        found = uploads.get(upload_id)
        if found is None or not found[1]:
            return Response(b"Not Found", 404, media_type="text/plain")
        return Response(found[1], media_type=found[0] or "application/octet-stream")

    @app.get("/files/{task_id}/{name}")
    async def get_file(task_id: str, name: str) -> Response:
        task = state.tasks.get(task_id)
        if task is None or task.status != "completed" or name != "model.glb":
            return Response(b"Not Found", 404, media_type="text/plain")
        return Response(task.artifacts.result().glb, media_type="model/gltf-binary")

    @app.get("/{owner}/{alias}/requests/{request_id}/status")
    async def status(owner: str, alias: str, request_id: str, request: Request) -> dict[str, Any]:
        key = authorize(request)
        state.count_poll()
        task, found = own(owner, alias, request_id, key)
        base = f"{str(request.base_url).rstrip('/')}/{owner}/{alias}/requests/{request_id}"
        return status_body(task, found, base, request.query_params.get("logs") in ("1", "true"))

    @app.get("/{owner}/{alias}/requests/{request_id}")
    async def result(owner: str, alias: str, request_id: str, request: Request) -> dict[str, Any]:
        key = authorize(request)
        task, found = own(owner, alias, request_id, key)
        word, error = state_of(task, found)
        if word != "COMPLETED":
            raise FalError(400, "Request is still in progress")
        if error is not None:
            raise FalError(422, error)
        glb = task.artifacts.result().glb
        base = state.cdn_base_url or task.base_url
        file = {
            "url": f"{base}/files/{task.id}/model.glb",
            "content_type": "model/gltf-binary",
            "file_name": "model.glb",
            "file_size": len(glb),
        }
        return {MODELS[found["model"]][1]: file, "seed": 42, "timings": {"inference": 1.0}}

    @app.put("/{owner}/{alias}/requests/{request_id}/cancel")
    async def cancel(owner: str, alias: str, request_id: str, request: Request) -> JSONResponse:
        key = authorize(request)
        task, found = own(owner, alias, request_id, key)
        if state_of(task, found)[0] == "COMPLETED":
            return JSONResponse({"status": "ALREADY_COMPLETED"}, status_code=400)
        found["cancelled"] = True
        return JSONResponse({"status": "CANCELLATION_REQUESTED"}, status_code=202)

    @app.post("/{owner}/{alias}")
    @app.post("/{owner}/{alias}/{path:path}")
    async def submit(owner: str, alias: str, request: Request, path: str = "") -> dict[str, Any]:
        key = authorize(request)
        with state.lock:
            state.submit_attempts += 1
        model = f"{owner}/{alias}" + (f"/{path}" if path else "")
        if model not in MODELS:
            raise FalError(404, f"Application '{alias}' not found")
        try:
            body = await request.json()
        except ValueError:
            raise FalError(422, "The request body is not JSON.") from None
        if not isinstance(body, dict):
            raise FalError(422, "The request body must be an object.")
        field = MODELS[model][0]
        image = await read_image(body.get(field), field)
        cents = CENTS[model] * (3 if body.get("textured_mesh") is True else 1)
        task = state.create_task(
            key=key,
            kind="image",
            resolution=1024,
            image=image,
            base_url=str(request.base_url).rstrip("/"),
            endpoint="fal-queue",
            cost=cents,
        )
        if task is None:
            raise FalError(
                403,
                "User is locked. Reason: Exhausted balance. Top up your balance at fal.ai/dashboard/billing.",
            )
        task.submit_body = body  # the request as received: tests read which field carried what
        requests_of[task.id] = {"app": f"{owner}/{alias}", "model": model, "cancelled": False}
        base = f"{str(request.base_url).rstrip('/')}/{owner}/{alias}/requests/{task.id}"
        return {
            "request_id": task.id,
            "response_url": base,
            "status_url": base + "/status",
            "cancel_url": base + "/cancel",
            "queue_position": 0,
        }

    return app


def state_of(task: Task, found: dict[str, Any]) -> tuple[str, Any]:
    """(fal's word, the error or None) of a request now: queued, running, or completed."""
    status, _progress, error = task.snapshot()
    if found["cancelled"] and status != "completed":
        return "COMPLETED", CANCELLED
    if status == "queued":
        return "IN_QUEUE", None
    if status == "running":
        return "IN_PROGRESS", None
    if status == "failed":
        return "COMPLETED", error if isinstance(error, str) else "The generator could not produce a mesh."
    return "COMPLETED", None


def status_body(task: Task, found: dict[str, Any], base: str, logs: bool) -> dict[str, Any]:
    word, error = state_of(task, found)
    body: dict[str, Any] = {"status": word, "request_id": task.id, "response_url": base}
    if word == "IN_QUEUE":
        body["queue_position"] = 0
        return body
    body["logs"] = [{"message": "Generating the mesh", "level": "INFO", "source": "user"}] if logs else None
    if word == "COMPLETED":
        body["metrics"] = {"inference_time": 1.0}
        if error is not None:
            body["error"] = error
            body["error_type"] = "request_cancelled" if error == CANCELLED else "runner_error"
    return body


async def read_image(value: object, field: str) -> Image.Image:
    """An image given as a ``data:`` URL or an http(s) address (loopback only: no outside network)."""
    if not isinstance(value, str) or not value:
        raise FalError(
            422, [{"loc": ["body", field], "msg": "field required", "type": "value_error.missing"}]
        )
    if "fal-ratelimit" in value:
        raise FalError(429, "Too many requests: the concurrent request limit was reached.")
    if "fal-locked" in value:
        raise FalError(
            403, "User is locked. Reason: Exhausted balance. Top up your balance at fal.ai/dashboard/billing."
        )
    found = DATA_URL.fullmatch(value)
    if found is not None:
        try:
            data = base64.b64decode("".join(found.group(2).split()), validate=True)
        except (binascii.Error, ValueError):
            raise FalError(422, f"{field} is not a valid data URL.") from None
    elif urlsplit(value).scheme in ("http", "https") and is_loopback_host(urlsplit(value).hostname):
        data = await run_in_threadpool(fetch, value)
    else:
        raise FalError(422, f"{field} could not be downloaded.")
    if len(data) > MAX_IMAGE_BYTES or images.sniff_format(data) is None:
        raise FalError(422, f"{field} is not an image fal can read.")
    try:
        return await run_in_threadpool(images.decode, data)
    except Exception:  # Pillow raises many types for broken files
        raise FalError(422, f"{field} could not be decoded.") from None


def fetch(url: str) -> bytes:
    try:
        with requests.get(url, timeout=10, stream=True) as response:
            if response.status_code != 200:
                raise FalError(422, "The image could not be downloaded.")
            data = bytearray()
            for block in response.iter_content(64 * 1024):
                data += block
                if len(data) > MAX_IMAGE_BYTES:
                    raise FalError(422, "The image is too large.")
            return bytes(data)
    except requests.RequestException:
        raise FalError(422, "The image could not be downloaded.") from None
