"""A stand-in of Hunyuan3D's ``api_server.py``, written from its source, not from Kiln.

Two servers, one module (``version``):

* 2.1 (``Tencent-Hunyuan/Hunyuan3D-2.1``; ``--service hunyuan3d``): ``api_models.GenerationRequest``
  validated as pydantic does (``image`` required; ``remove_background``, ``texture`` false,
  ``seed`` 0…2³²−1, ``octree_resolution`` 64…512, ``num_inference_steps`` 1…20, ``guidance_scale``
  0.1…20, ``num_chunks`` 1000…20000, ``face_count`` 1000…100000; other fields dropped; a 422 with
  ``{"detail": [...]}`` otherwise). ``POST /send`` → ``{"uid"}``. ``GET /status/{uid}``:
  ``processing``, then ``texturing`` once the shape exists, ``completed`` with ``model_base64`` and
  ``initial_model_base64`` only once a textured file exists, so a job without texture stays
  ``texturing``; an unknown uid is ``processing``. ``GET /health``. ``POST /generate`` blocks and
  answers the file.
* 2.0 (``Tencent-Hunyuan/Hunyuan3D-2``; ``--service hunyuan3d-2.0``): the JSON read as a dict
  (``image`` required, else the job dies in its thread); ``mesh`` (base64 GLB) is textured instead of
  making a shape; ``completed`` with ``model_base64`` once ``{uid}.glb`` exists; no ``/health``.

Neither ever says a job failed: ``Sandbox.fail_now`` leaves it ``processing`` for ever, as a worker
thread that died does. No key is checked (each request's headers are recorded for tests).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from sandbox import images
from sandbox.state import SandboxState, Task

#: api_models.GenerationRequest (2.1): field → (default, low, high); ``image`` has no default.
FIELDS_21: dict[str, tuple[Any, float | None, float | None]] = {
    "remove_background": (True, None, None),
    "texture": (False, None, None),
    "seed": (1234, 0, 2**32 - 1),
    "octree_resolution": (256, 64, 512),
    "num_inference_steps": (5, 1, 20),
    "guidance_scale": (5.0, 0.1, 20.0),
    "num_chunks": (8000, 1000, 20000),
    "face_count": (40000, 1000, 100000),
}
#: The shape is done (2.1 writes ``{uid}_initial.glb``) at this share of the task's running time.
SHAPE_DONE = 50


def create_app(state: SandboxState, version: str = "2.1") -> FastAPI:
    app = FastAPI(title=f"Kiln sandbox: Hunyuan3D {version} api_server stand-in", description=__doc__)
    jobs: dict[str, dict[str, Any]] = {}  # uid → {"task", "texture", "mesh"}
    worker_id = uuid.uuid4().hex[:6]

    def owner_key() -> str:
        return sorted(state.keys)[0]

    def start(params: dict[str, Any], request: Request) -> str | None:
        """What ``ModelWorker.generate`` does with the params, on the stand-in's clock; None: the
        worker thread would die (no image, an image that does not decode)."""
        try:
            picture = images.decode(base64.b64decode(str(params.get("image", "")), validate=True))
        except (binascii.Error, ValueError, OSError):
            return None
        mesh = None
        if version == "2.0" and "mesh" in params:
            try:
                mesh = base64.b64decode(str(params["mesh"]), validate=True)
            except (binascii.Error, ValueError):
                return None
        task = state.create_task(
            key=owner_key(),
            kind="image",
            resolution=1024,
            image=picture,
            base_url=str(request.base_url).rstrip("/"),
            endpoint="hunyuan3d-send",
            cost=0,
        )
        assert task is not None  # the stand-in charges nothing
        task.submit_body = params
        uid = str(uuid.uuid4())
        jobs[uid] = {"task": task, "texture": bool(params.get("texture", False)), "mesh": mesh}
        return uid

    def status(uid: str) -> dict[str, Any]:
        job = jobs.get(uid)
        if job is None:
            return {"status": "processing"}  # no file by that name: the same answer as a running job
        task: Task = job["task"]
        word, progress, _ = task.snapshot()
        if word == "failed" or word == "queued":
            return {"status": "processing"}
        glb = job["mesh"] if job["mesh"] is not None and word == "completed" else None
        if version == "2.0":
            if word != "completed":
                return {"status": "processing"}
            model = glb if glb is not None else task.artifacts.result().glb
            return {"status": "completed", "model_base64": base64.b64encode(model).decode("ascii")}
        if word == "running" and progress < SHAPE_DONE:
            return {"status": "processing"}
        if word == "running" or not job["texture"]:
            return {"status": "texturing"}
        model = base64.b64encode(task.artifacts.result().glb).decode("ascii")
        return {"status": "completed", "model_base64": model, "initial_model_base64": model}

    if version == "2.1":

        @app.get("/health")
        async def health() -> dict[str, str]:
            return {"status": "healthy", "worker_id": worker_id}

    @app.post("/send")
    async def send(request: Request) -> JSONResponse:
        with state.lock:
            state.submit_attempts += 1
        params, problem = await _params(request, version)
        if problem is not None:
            return problem
        uid = start(params, request)
        if uid is None:  # the thread dies; the uid is answered anyway and stays "processing"
            uid = str(uuid.uuid4())
        return JSONResponse({"uid": uid})

    @app.get("/status/{uid}")
    async def get_status(uid: str) -> JSONResponse:
        state.count_poll()
        return JSONResponse(status(uid))

    @app.post("/generate")
    async def generate(request: Request) -> Response:
        params, problem = await _params(request, version)
        if problem is not None:
            return problem
        uid = start(params, request)
        if uid is None:
            return JSONResponse({"text": "server error", "error_code": 1}, status_code=404)
        task: Task = jobs[uid]["task"]
        while task.status not in ("completed", "failed"):
            await asyncio.sleep(0.05)
        if task.status == "failed":
            return JSONResponse({"text": "server error", "error_code": 1}, status_code=404)
        return Response(task.artifacts.result().glb, media_type="model/gltf-binary")

    return app


async def _params(request: Request, version: str) -> tuple[dict[str, Any], JSONResponse | None]:
    """The request's JSON as the server reads it: pydantic's checks on 2.1, a plain dict on 2.0."""
    try:
        body = await request.json()
    except ValueError:
        return {}, JSONResponse({"detail": [{"type": "json_invalid", "msg": "JSON decode error"}]}, 422)
    if not isinstance(body, dict):
        return {}, JSONResponse({"detail": [{"type": "model_attributes_type"}]}, 422)
    if version == "2.0":
        return body, None
    errors: list[dict[str, Any]] = []
    if not isinstance(body.get("image"), str):
        errors.append({"type": "missing", "loc": ["body", "image"], "msg": "Field required"})
    params: dict[str, Any] = {"image": body.get("image")}
    for name, (default, low, high) in FIELDS_21.items():
        value = body.get(name, default)
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high  # type: ignore[operator]
        if not ok:
            errors.append({"type": "value_error", "loc": ["body", name], "msg": f"{name} out of range"})
        params[name] = value
    if errors:
        return {}, JSONResponse({"detail": errors}, 422)
    return params, None
