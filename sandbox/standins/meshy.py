"""Stand-in of Meshy's API, written from its public documentation (https://docs.meshy.ai/api).

Paths under ``/openapi`` as documented, so ``KILN_MESHY_BASE_URL=http://127.0.0.1:PORT`` replaces
only the origin: ``POST /openapi/v2/text-to-3d`` (``mode`` preview, then refine with
``preview_task_id``), ``POST /openapi/v1/image-to-3d`` (``image_url``: a public address or a base64
``data:`` URI), ``POST /openapi/v1/multi-image-to-3d`` (``image_urls``, 1 to 4), ``GET`` and
``DELETE`` on each path + ``/{id}``, ``GET /openapi/v1/balance``. Auth is ``Authorization: Bearer``.
Every create answers 202 ``{"result": "<id>"}``; errors are the HTTP status with ``{"message": …}``
(the errors page); 402 when credits are short, at Meshy's published prices. ``GET`` on an endpoint's
path lists the key's tasks. Models as Meshy's deprecations page gives them (checked 2026-11-28):
meshy-7.1 (what ``latest`` means), meshy-7, meshy-6 and meshy-6-lite taken; a retired model
(meshy-5 since 2026-10-10) refused with an error (sandbox/standins/meshy_checks.py). ``art_style``
is still taken, deprecated, as Meshy still takes it. Meshy's own client, ``@meshy-ai/meshy-mcp-server``,
runs against this stand-in in tests/python/services/test_meshy_vendor_contract.py.

Task objects carry what the task-object sections list (``status`` PENDING, IN_PROGRESS, SUCCEEDED,
FAILED, CANCELED; ``progress``; ``model_urls``; ``thumbnail_url``; ``task_error.message``;
millisecond timestamps), with odd-but-legal variations of their own: empty strings for links not
made yet, ``progress`` as a number, extra fields (``preceding_tasks``, ``expires_at``, an empty
``texture_urls``). Result files are unauthenticated links on the second loopback host when it is
bound (a CDN, as Meshy's are), else on the API's own host.

Knobs for tests (sandbox/README.md, "Meshy"): magic words in a prompt (``[meshy:400]``,
``[meshy:403]``, ``[meshy:content]``, ``[meshy:429]``, ``[meshy:pending]``, ``[meshy:500]``,
``[meshy:credits-code]``, ``[meshy:fail]``), ``Sandbox.fail_now``, and a task's ``forced`` state
(``("CANCELED", None)``, ``("EXPIRED", None)``) for the states a test cannot wait for.
"""
# No `from __future__ import annotations` here: FastAPI resolves the handlers' annotations at runtime.

import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from PIL import Image
from starlette.exceptions import HTTPException as StarletteHTTPException

from sandbox import app as interface_app
from sandbox.standins.meshy_checks import (
    ART_STYLES,
    PREVIEW_COST,
    MeshyError,
    choice,
    flag,
    image_job_cost,
    image_of,
    json_object,
    mesh_fields,
    model_file,
    model_of,
)
from sandbox.standins.meshy_checks import refuse as _refuse
from sandbox.state import KEY_SHAPE, SandboxState, Task

TEXT_PATH = "/openapi/v2/text-to-3d"
IMAGE_PATH = "/openapi/v1/image-to-3d"
MULTI_PATH = "/openapi/v1/multi-image-to-3d"
RETEXTURE_PATH = "/openapi/v1/retexture"
BALANCE_PATH = "/openapi/v1/balance"
ENDPOINTS = {
    "text-to-3d": TEXT_PATH,
    "image-to-3d": IMAGE_PATH,
    "multi-image-to-3d": MULTI_PATH,
    "retexture": RETEXTURE_PATH,
}

MAX_PROMPT = 600
MAX_IMAGES = 4
#: Retexture: 10 credits; ``text_style_prompt`` at most 600 characters; the model as a public URL or
#: a base64 data URI of MIME type application/octet-stream (.glb, .gltf, .obj, .fbx, .stl).
RETEXTURE_COST = 10
MAX_STYLE_PROMPT = 600
#: www.meshy.ai/api "Pricing": a refine 10 (the preview and image prices are in meshy_checks).
REFINE_COST = 10
#: Meshy keeps a task's files for 3 days (help.meshy.ai, asset retention).
KEEP_MS = 3 * 24 * 3600 * 1000
#: A generated mesh's resolution in the shared state (the fastest of its durations).
RESOLUTION = 1024

#: Magic words in a prompt → the refusal Meshy would answer (status, body, headers).
MAGIC: dict[str, tuple[int, dict[str, Any], dict[str, str]]] = {
    "[meshy:400]": (400, {"message": "Invalid request: target_polycount is out of range."}, {}),
    "[meshy:403]": (403, {"message": "Forbidden"}, {}),
    "[meshy:content]": (400, {"message": "Your prompt violates our content policy."}, {}),
    "[meshy:429]": (429, {"message": "Too many requests. Please slow down."}, {"Retry-After": "7"}),
    "[meshy:pending]": (
        429,
        {"message": "You have too many pending tasks.", "code": "TooManyPendingTasks"},
        {},
    ),
    "[meshy:500]": (500, {"message": "Internal server error."}, {}),
    "[meshy:credits-code]": (400, {"message": "Not enough credits.", "code": "InsufficientCredits"}, {}),
}
FAIL_WORD = "[meshy:fail]"
FAIL_MESSAGE = "The model could not be generated from this input."
#: The sandbox's own states → Meshy's words (a forced state is said as it was forced).
STATES = {"queued": "PENDING", "running": "IN_PROGRESS", "completed": "SUCCEEDED", "failed": "FAILED"}


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(
        title="Kiln sandbox: Meshy",
        version="1.0",
        description="Local stand-in of Meshy's API (dev only). See sandbox/README.md, Meshy.",
    )
    #: What Meshy knows of each task beyond the shared state: its endpoint, type and request.
    meta: dict[str, dict[str, Any]] = {}

    @app.exception_handler(MeshyError)
    async def _meshy_error(request: Request, exc: MeshyError) -> JSONResponse:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(interface_app.ApiError)
    async def _shared_error(request: Request, exc: interface_app.ApiError) -> JSONResponse:
        # The shared image checks (fetch, decode) speak the interface's shape; Meshy says only a message.
        return JSONResponse({"message": exc.message}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"message": str(exc.detail)}, status_code=exc.status_code)

    def authorize(request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not KEY_SHAPE.match(token) or token not in state.keys:
            raise _refuse("Invalid API key.", 401)
        return token

    def charge_or_refuse(key: str, cost: int) -> None:
        if state.credits[key] < cost:
            raise MeshyError(402, {"message": "Insufficient credits."})

    def created(
        task: Task | None, key: str, cost: int, endpoint: str, kind: str, body: dict[str, Any]
    ) -> Response:
        if task is None:
            raise MeshyError(402, {"message": "Insufficient credits."})
        task.submit_body = body
        meta[task.id] = {"endpoint": endpoint, "type": kind, "cost": cost}
        if FAIL_WORD in str(body.get("prompt", "")).lower():
            task.planned_error = FAIL_MESSAGE
        return JSONResponse({"result": task.id}, status_code=202)

    @app.post(TEXT_PATH, summary="Create a Text to 3D preview or refine task")
    async def text_to_3d(request: Request) -> Response:
        key = authorize(request)
        body = await json_object(request)
        mode = body.get("mode")
        model_of(body)
        if mode == "preview":
            prompt = body.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise _refuse("prompt is required.")
            if len(prompt) > MAX_PROMPT:
                raise _refuse(f"prompt must be at most {MAX_PROMPT} characters.")
            _magic(prompt)
            # Deprecated for Meshy-6 previews (changelog 2026-01-22) but still taken, as Meshy does.
            choice(body, "art_style", ART_STYLES, "realistic")
            mesh_fields(body)
            cost = PREVIEW_COST
            charge_or_refuse(key, cost)
            task = state.create_task(
                key=key,
                kind="text",
                resolution=RESOLUTION,
                prompt=prompt,
                base_url=_base_url(request),
                endpoint="text-to-3d",
                cost=cost,
            )
            return created(task, key, cost, "text-to-3d", "text-to-3d-preview", body)
        if mode == "refine":
            preview_id = body.get("preview_task_id")
            preview = state.tasks.get(preview_id) if isinstance(preview_id, str) else None
            if (
                preview is None
                or preview.key != key
                or meta.get(preview.id, {}).get("type") != "text-to-3d-preview"
            ):
                raise _refuse("preview_task_id does not name a preview task of yours.")
            if preview.status != "completed":
                raise _refuse("The preview task has not succeeded yet.")
            flag(body, "enable_pbr")
            if "texture_prompt" in body and not isinstance(body["texture_prompt"], str):
                raise _refuse("texture_prompt must be a string.")
            charge_or_refuse(key, REFINE_COST)
            task = state.create_task(
                key=key,
                kind="text",
                resolution=RESOLUTION,
                prompt=preview.prompt,
                base_url=_base_url(request),
                endpoint="text-to-3d",
                cost=REFINE_COST,
            )
            return created(task, key, REFINE_COST, "text-to-3d", "text-to-3d-refine", body)
        raise _refuse('mode must be "preview" or "refine".')

    @app.post(IMAGE_PATH, summary="Create an Image to 3D task")
    async def image_to_3d(request: Request) -> Response:
        key = authorize(request)
        body = await json_object(request)
        if not isinstance(body.get("image_url"), str):
            raise _refuse("image_url is required.")
        cost = image_job_cost(body)
        charge_or_refuse(key, cost)
        image = await image_of(body["image_url"])
        return make_image_task(request, key, body, image, cost, "image-to-3d")

    @app.post(MULTI_PATH, summary="Create a Multi-Image to 3D task")
    async def multi_image_to_3d(request: Request) -> Response:
        key = authorize(request)
        body = await json_object(request)
        urls = body.get("image_urls")
        if not isinstance(urls, list) or not 1 <= len(urls) <= MAX_IMAGES:
            raise _refuse(f"image_urls must hold 1 to {MAX_IMAGES} images.")
        if not all(isinstance(url, str) for url in urls):
            raise _refuse("Each entry of image_urls must be a string.")
        cost = image_job_cost(body)
        charge_or_refuse(key, cost)
        decoded = [await image_of(url) for url in urls]
        return make_image_task(request, key, body, decoded[0], cost, "multi-image-to-3d")

    @app.post(RETEXTURE_PATH, summary="Create a Retexture task")
    async def retexture(request: Request) -> Response:
        key = authorize(request)
        body = await json_object(request)
        source = body.get("model_url")
        if not isinstance(source, str) and not isinstance(body.get("input_task_id"), str):
            raise _refuse("One of input_task_id or model_url is required.")
        if isinstance(source, str):
            model_file(source)
        style, image = body.get("text_style_prompt"), body.get("image_style_url")
        if not isinstance(style, str) and not isinstance(image, str):
            raise _refuse("One of text_style_prompt or image_style_url is required.")
        if isinstance(style, str) and len(style) > MAX_STYLE_PROMPT:
            raise _refuse(f"text_style_prompt must be at most {MAX_STYLE_PROMPT} characters.")
        flag(body, "enable_pbr")
        flag(body, "enable_original_uv")
        if isinstance(image, str):
            await image_of(image)
        prompt = style if isinstance(style, str) else "retextured model"
        _magic(prompt)
        charge_or_refuse(key, RETEXTURE_COST)
        task = state.create_task(
            key=key,
            kind="text",
            resolution=RESOLUTION,
            prompt=prompt,
            base_url=_base_url(request),
            endpoint="retexture",
            cost=RETEXTURE_COST,
        )
        return created(task, key, RETEXTURE_COST, "retexture", "retexture", body)

    def make_image_task(
        request: Request, key: str, body: dict[str, Any], image: Image.Image, cost: int, endpoint: str
    ) -> Response:
        task = state.create_task(
            key=key,
            kind="image",
            resolution=RESOLUTION,
            image=image,
            base_url=_base_url(request),
            endpoint=endpoint,
            cost=cost,
        )
        return created(task, key, cost, endpoint, endpoint, body)

    def owned(endpoint: str, task_id: str, key: str) -> Task:
        task = state.tasks.get(task_id)
        if task is None or task.key != key or meta.get(task_id, {}).get("endpoint") != endpoint:
            raise _refuse("Task not found.", 404)
        return task

    def task_routes(endpoint: str, path: str) -> None:
        def poll(task_id: str, request: Request) -> dict[str, Any]:
            key = authorize(request)
            state.count_poll()
            return task_object(owned(endpoint, task_id, key))

        def delete(task_id: str, request: Request) -> Response:
            # "Delete a task": it and its files are gone; a later GET answers 404.
            key = authorize(request)
            owned(endpoint, task_id, key)
            with state.lock:
                state.tasks.pop(task_id, None)
            meta.pop(task_id, None)
            return Response(status_code=200)

        def listed(request: Request) -> list[dict[str, Any]]:
            # "List tasks" (each endpoint's page): the key's tasks, newest first. Meshy's MCP server
            # asks the text-to-3d list to check a key when it starts (dist/services/meshy-client.js).
            key = authorize(request)
            mine = [
                t
                for t in list(state.tasks.values())
                if t.key == key and meta.get(t.id, {}).get("endpoint") == endpoint
            ]
            return [task_object(task) for task in reversed(mine)]

        app.add_api_route(path, listed, methods=["GET"], summary=f"List {endpoint} tasks")
        app.add_api_route(f"{path}/{{task_id}}", poll, methods=["GET"], summary=f"Retrieve a {endpoint} task")
        app.add_api_route(
            f"{path}/{{task_id}}", delete, methods=["DELETE"], summary=f"Delete a {endpoint} task"
        )

    for endpoint, path in ENDPOINTS.items():
        task_routes(endpoint, path)

    @app.get(BALANCE_PATH, summary="The account's credit balance")
    async def balance(request: Request) -> dict[str, Any]:
        key = authorize(request)
        return {"balance": state.credits[key]}

    @app.get("/files/{name}", summary="A result file (no auth, like a signed CDN link)")
    async def get_file(name: str) -> Response:
        task_id, _, ext = name.rpartition(".")
        task = state.tasks.get(task_id)
        if task is None or ext not in ("glb", "png") or task.status != "completed":
            raise _refuse("Not found.", 404)
        artifacts = task.artifacts.result()
        if ext == "glb":
            return Response(artifacts.glb, media_type="model/gltf-binary")
        return Response(artifacts.png, media_type="image/png")

    def task_object(task: Task) -> dict[str, Any]:
        """The task as Meshy's task object, odd-but-legal variations included."""
        status, progress, error = task.snapshot()
        word = STATES.get(status, str(status).upper())
        info = meta.get(task.id, {})
        created_ms = _ms(task.created_at)
        done = word == "SUCCEEDED"
        base = state.cdn_base_url or task.base_url
        body: dict[str, Any] = {
            "id": task.id,
            "type": info.get("type", ""),
            "status": word,
            "progress": progress if word != "PENDING" else 0,
            "created_at": created_ms,
            "started_at": created_ms + 1 if word != "PENDING" else 0,
            "finished_at": created_ms + 2 if word in ("SUCCEEDED", "FAILED", "CANCELED") else 0,
            "expires_at": created_ms + KEEP_MS,
            "preceding_tasks": 1 if word == "PENDING" else 0,
            "model_urls": {
                "glb": f"{base}/files/{task.id}.glb" if done else "",
                "fbx": "",
                "obj": "",
                "usdz": "",
            },
            "thumbnail_url": f"{base}/files/{task.id}.png" if done else "",
            "texture_urls": [],
            "task_error": {"message": ""},
        }
        if task.prompt is not None:
            body["prompt"] = task.prompt
        if done:
            body["face_count"] = task.artifacts.result().triangles
        if word in ("FAILED", "CANCELED", "EXPIRED") and error is not None:
            said = error.get("message") if isinstance(error, dict) else error
            body["task_error"] = {"message": str(said)}
        return body

    return app


def _magic(prompt: str) -> None:
    lowered = prompt.lower()
    for word, (status, body, headers) in MAGIC.items():
        if word in lowered:
            raise MeshyError(status, body, headers)


def _base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _ms(created_at: str) -> int:
    """Milliseconds since the epoch of a ``%Y-%m-%dT%H:%M:%SZ`` time (Meshy's timestamps are ms)."""
    try:
        return int(time.mktime(time.strptime(created_at, "%Y-%m-%dT%H:%M:%SZ")) * 1000)
    except ValueError:
        return int(time.time() * 1000)
