"""The FastAPI app: the three service endpoints, input checks, and the unauthenticated file links."""
# No `from __future__ import annotations` here: FastAPI must resolve the Annotated dependencies,
# which name closures inside create_app(), at runtime.

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any
from urllib.parse import urlsplit

import requests
from fastapi import Depends, FastAPI, Header, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from PIL import Image
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException

from sandbox import images
from sandbox.models import (
    ErrorBody,
    ImageSubmitResponse,
    ImageTo3DFields,
    Links,
    SubmitResponse,
    TaskResponse,
    TextTo3DRequest,
)
from sandbox.state import KEY_SHAPE, Kind, SandboxState, Task
from sandbox.webhooks import is_loopback_host, webhook_url_problem

#: Largest accepted image, uploaded or fetched from image_url (bytes).
MAX_IMAGE_BYTES = 10 * 1024 * 1024
FETCH_TIMEOUT_SECONDS = 10.0
SLOW_TICK_SECONDS = 0.1
IdempotencyKey = Annotated[
    str | None, Header(description="Sandbox only: the same key returns the same task.")
]
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 402, 404, 413, 415, 422, 429, 500, 503)
}


class ApiError(Exception):
    """An error answered as `{"error": {"code", "message"}}` with a fitting status."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _validation_error(errors: list[Any]) -> ApiError:
    """422 named after the first offending field: invalid_prompt, invalid_resolution, ..."""
    first = errors[0] if errors else {}
    fields = [str(part) for part in first.get("loc", ()) if part != "body"]
    code = f"invalid_{fields[0]}" if fields else "invalid_request"
    where = ".".join(fields) or "body"
    message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
    return ApiError(422, code, f"{where}: {message}")


def _inline_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON schema with $defs inlined, for hand-written OpenAPI request bodies."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


def _openapi_body(json_model: type[BaseModel], multipart: bool) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": _inline_schema(json_model)}}
    if multipart:
        form = _inline_schema(json_model)
        form["properties"]["image"] = {
            "type": "string",
            "format": "binary",
            "description": "PNG, JPEG or WebP",
        }
        content["multipart/form-data"] = {"schema": form}
    return {"requestBody": {"required": True, "content": content}}


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(
        title="Kiln sandbox",
        version="1.0",
        description="Local stand-in of the 3D generation service (dev only). See sandbox/README.md.",
    )
    bearer = HTTPBearer(auto_error=False, description="`<prefix>_live_<random>` secret key")

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        error = _validation_error(list(exc.errors()))
        return error_response(error.status, error.code, error.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    async def authorize(
        request: Request,
        _credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)] = None,
    ) -> str:
        """The caller's key, or 401: missing header, not `Bearer <key>`, wrong key shape, unknown key."""
        challenge = {"WWW-Authenticate": "Bearer"}
        header = request.headers.get("authorization")
        if not header:
            raise ApiError(401, "missing_api_key", "Send 'Authorization: Bearer <API_KEY>'.", challenge)
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise ApiError(
                401, "malformed_authorization", "Use 'Authorization: Bearer <API_KEY>'.", challenge
            )
        if not KEY_SHAPE.match(token):
            raise ApiError(401, "malformed_api_key", "API keys look like <prefix>_live_<random>.", challenge)
        if token not in state.keys:
            raise ApiError(401, "invalid_api_key", "This API key is not valid.", challenge)
        return token

    def submit_response(request: Request, task: Task, with_times: bool) -> dict[str, Any]:
        poll = str(request.url_for("get_task", task_id=task.id))
        model: SubmitResponse
        if with_times:
            model = ImageSubmitResponse(
                id=task.id,
                resolution=task.resolution,
                created_at=task.created_at,
                eta_seconds=task.eta_seconds,
                links=Links(poll=poll),
            )
        else:
            model = SubmitResponse(id=task.id, resolution=task.resolution, links=Links(poll=poll))
        task.submit_body = model.model_dump()
        return task.submit_body

    def short_of_credits(key: str, kind: Kind, resolution: int) -> ApiError:
        needed = state.cost(kind, resolution)
        left = state.credits[key]
        return ApiError(402, "insufficient_credits", f"This task costs {needed} credits; {left} left.")

    @app.post(
        "/v1/3d/text-to-3d",
        response_model=SubmitResponse,
        responses=ERRORS,
        openapi_extra=_openapi_body(TextTo3DRequest, multipart=False),
        summary="Submit a text-to-3D task",
    )
    async def text_to_3d(
        request: Request,
        key: Annotated[str, Depends(authorize)],
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        endpoint = "text-to-3d"
        replay = state.replay(key, endpoint, idempotency_key)
        if replay is not None:
            return replay.submit_body
        body = await _json_body(request)
        try:
            fields = TextTo3DRequest.model_validate(body)
        except ValidationError as exc:
            raise _validation_error(list(exc.errors())) from None
        task = state.create_task(
            key=key,
            kind="text",
            resolution=fields.resolution,
            prompt=fields.prompt,
            base_url=_base_url(request),
            endpoint=endpoint,
            idempotency_key=idempotency_key,
        )
        if task is None:
            raise short_of_credits(key, "text", fields.resolution)
        return submit_response(request, task, with_times=False)

    @app.post(
        "/v1/3d/image-to-3d",
        response_model=ImageSubmitResponse,
        responses=ERRORS,
        openapi_extra=_openapi_body(ImageTo3DFields, multipart=True),
        summary="Submit an image-to-3D task (JSON with image_url, or multipart with an image file)",
    )
    async def image_to_3d(
        request: Request,
        key: Annotated[str, Depends(authorize)],
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        endpoint = "image-to-3d"
        replay = state.replay(key, endpoint, idempotency_key)
        if replay is not None:
            return replay.submit_body
        raw_fields, upload = await _image_request(request)
        try:
            fields = ImageTo3DFields.model_validate(raw_fields)
        except ValidationError as exc:
            raise _validation_error(list(exc.errors())) from None
        if (upload is None) == (fields.image_url is None):
            which = "both" if upload is not None else "neither"
            raise ApiError(
                400, "invalid_image_source", f"Send exactly one of image and image_url ({which} sent)."
            )
        if fields.webhook_url is not None and (problem := webhook_url_problem(fields.webhook_url)):
            raise ApiError(400, "invalid_webhook_url", problem)
        if state.credits[key] < state.cost("image", fields.resolution):
            raise short_of_credits(key, "image", fields.resolution)
        data = await _read_upload(upload) if upload is not None else await _fetch(str(fields.image_url))
        image = await _decode(data)
        task = state.create_task(
            key=key,
            kind="image",
            resolution=fields.resolution,
            image=image,
            webhook_url=fields.webhook_url,
            base_url=_base_url(request),
            endpoint=endpoint,
            idempotency_key=idempotency_key,
        )
        if task is None:
            raise short_of_credits(key, "image", fields.resolution)
        return submit_response(request, task, with_times=True)

    @app.get(
        "/v1/3d/tasks/{task_id}",
        name="get_task",
        response_model=TaskResponse,
        response_model_exclude_none=True,
        responses=ERRORS,
        summary="Poll a task",
    )
    async def get_task(task_id: str, key: Annotated[str, Depends(authorize)]) -> dict[str, Any]:
        state.count_poll()
        task = state.tasks.get(task_id)
        if task is None or task.key != key:
            raise ApiError(404, "task_not_found", f"No task {task_id!r}.")
        return state.poll_body(task)

    @app.get("/files/{name}", summary="Download a result file (no auth, like a signed CDN link)")
    async def get_file(name: str) -> Response:
        task_id, _, ext = name.rpartition(".")
        task = state.tasks.get(task_id)
        if task is None or ext not in ("glb", "png") or task.status != "completed":
            raise ApiError(404, "not_found", f"No file {name!r}.")
        artifacts = task.artifacts.result()
        data, media_type = (
            (artifacts.glb, "model/gltf-binary") if ext == "glb" else (artifacts.png, "image/png")
        )
        if ext == "glb":
            data = _damage(state, data)
        if state.faults.slow:
            return _slow_response(data, media_type, state.faults.slow)
        return Response(data, media_type=media_type)

    return app


def _base_url(request: Request) -> str:
    """Scheme, host and port the client used: result links point back the same way."""
    return str(request.base_url).rstrip("/")


def _damage(state: SandboxState, data: bytes) -> bytes:
    """Apply the `corrupt` / `truncate` faults to one GLB download (one draw decides)."""
    faults, draw = state.faults, state.dice.roll()
    if draw < faults.corrupt:
        # Garble the JSON chunk: the header still says glTF, the scene cannot be parsed.
        return data[:20] + state.dice.bytes(min(256, len(data) - 20)) + data[20 + 256 :]
    if draw < faults.corrupt + faults.truncate:
        return data[: len(data) * 3 // 5]
    return data


def _slow_response(data: bytes, media_type: str, bytes_per_second: int) -> StreamingResponse:
    chunk = max(1, int(bytes_per_second * SLOW_TICK_SECONDS))

    async def trickle() -> AsyncIterator[bytes]:
        for start in range(0, len(data), chunk):
            yield data[start : start + chunk]
            await asyncio.sleep(SLOW_TICK_SECONDS)

    return StreamingResponse(trickle(), media_type=media_type, headers={"Content-Length": str(len(data))})


async def _json_body(request: Request) -> Any:
    content_type = request.headers.get("content-type", "application/json")
    if "json" not in content_type:
        raise ApiError(415, "unsupported_media_type", "Send the request body as application/json.")
    try:
        return json.loads(await request.body())
    except ValueError:
        raise ApiError(422, "invalid_json", "The request body is not valid JSON.") from None


async def _image_request(request: Request) -> tuple[dict[str, Any], UploadFile | None]:
    """(fields, uploaded file) from a JSON or a multipart/form-data body."""
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > MAX_IMAGE_BYTES + 1024 * 1024:
        raise ApiError(413, "image_too_large", f"Images are limited to {MAX_IMAGE_BYTES} bytes.")
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        upload = form.get("image")
        if isinstance(upload, str):
            raise ApiError(400, "invalid_image", "The image field must be a file upload.")
        fields = {
            name: value
            for name in ("image_url", "resolution", "webhook_url")
            if isinstance(value := form.get(name), str)
        }
        return fields, upload
    body = await _json_body(request)
    if not isinstance(body, dict):
        raise ApiError(422, "invalid_request", "The request body must be a JSON object.")
    if "image" in body:
        if body.get("image_url") is not None:
            raise ApiError(
                400, "invalid_image_source", "Send exactly one of image and image_url (both sent)."
            )
        raise ApiError(400, "invalid_image", "Upload the image file with multipart/form-data.")
    return body, None


async def _read_upload(upload: UploadFile) -> bytes:
    data = await upload.read(MAX_IMAGE_BYTES + 1)
    if len(data) > MAX_IMAGE_BYTES:
        raise ApiError(413, "image_too_large", f"Images are limited to {MAX_IMAGE_BYTES} bytes.")
    return data


async def _fetch(url: str) -> bytes:
    """Fetch image_url (loopback hosts only: the sandbox has no outside network), size-limited."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not is_loopback_host(parts.hostname):
        raise ApiError(
            400, "image_url_not_allowed", "The sandbox fetches image_url only from loopback hosts."
        )

    def fetch() -> bytes:
        try:
            with requests.get(url, timeout=FETCH_TIMEOUT_SECONDS, stream=True) as response:
                if response.status_code != 200:
                    raise ApiError(
                        400, "image_url_unreachable", f"image_url answered {response.status_code}."
                    )
                data = bytearray()
                for block in response.iter_content(64 * 1024):
                    data += block
                    if len(data) > MAX_IMAGE_BYTES:
                        raise ApiError(
                            413, "image_too_large", f"Images are limited to {MAX_IMAGE_BYTES} bytes."
                        )
                return bytes(data)
        except requests.RequestException as exc:
            raise ApiError(400, "image_url_unreachable", f"image_url could not be fetched: {exc}") from None

    return await run_in_threadpool(fetch)


async def _decode(data: bytes) -> Image.Image:
    if images.sniff_format(data) is None:
        raise ApiError(415, "unsupported_image_type", "The image must be PNG, JPEG or WebP.")
    try:
        return await run_in_threadpool(images.decode, data)
    except images.ImageTooLarge as exc:
        raise ApiError(413, "image_too_large", f"{str(exc).capitalize()}.") from None
    except Exception:  # Pillow raises many types for broken files
        raise ApiError(400, "invalid_image", "The image could not be decoded.") from None
