"""A stand-in of Hyper3D Rodin's API v2, written from its public reference (developer.hyper3d.ai).

Paths under ``/api/v2`` as documented (so ``KILN_RODIN_BASE_URL=http://127.0.0.1:PORT`` replaces
only the origin): ``POST /api/v2/rodin`` (multipart/form-data), ``POST /api/v2/status``
(``{"subscription_key"}``), ``POST /api/v2/download`` (``{"task_uuid"}``), ``GET
/api/v2/check_balance``. Bearer keys; answers with status 201 and ``"error": "OK"`` as the pages
show them, extra fields beside. Meshes and previews are the sandbox's real ones (a GLB, a WebP
preview, as Download Results names ``preview.webp``), served without auth on the second loopback
host when it is bound. The knobs tests use are in sandbox/README.md ("Hyper3D Rodin").

Tiers and fields as of the Gen-2.5 Generation page (developer.hyper3d.ai/api-specification/rodin-gen2.5,
checked 2026-11-28): the five Gen-2.5 tiers on the same path beside Gen-2 and the Gen-1/1.5 tiers, and
the Gen-2.5 fields (``texture_mode``, ``is_micro``, ``geometry_instruct_mode``, ``hd_texture``,
``texture_delight``, ``TApose``). A field a tier does not document (``condition_mode`` on Gen-2.5) is
ignored, as a form server ignores what it does not read. Hyper3D publishes no client of its own in a
package registry, so no vendor client runs against this stand-in.
"""
# No `from __future__ import annotations`: FastAPI resolves the handlers' annotations at runtime.

import io
import threading
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from PIL import Image
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from sandbox import images
from sandbox.state import KEY_SHAPE, SandboxState, Task

API = "/api/v2"
TIERS_25 = ("Gen-2.5-Extreme-Low", "Gen-2.5-Low", "Gen-2.5-Medium", "Gen-2.5-High", "Gen-2.5-Extreme-High")
TIERS = (*TIERS_25, "Gen-2", "Regular", "Detail", "Smooth", "Sketch")
#: Documented values of each enumerated form field (Rodin Generation, Gen-2 and Gen-2.5 pages).
CHOICES = {
    "tier": TIERS,
    "geometry_file_format": ("glb", "usdz", "fbx", "obj", "stl"),
    "material": ("PBR", "Shaded", "All", "Hybrid", "None"),
    "quality": ("high", "medium", "low", "extra-low"),
    "mesh_mode": ("Quad", "Raw"),
    "condition_mode": ("concat", "fuse"),
    "texture_mode": ("legacy", "extreme-low", "low", "medium", "high", "extreme-high"),
    "geometry_instruct_mode": ("faithful", "creative"),
}
BOOLEANS = (
    "use_original_alpha",
    "TAPose",
    "TApose",
    "mesh_simplify",
    "mesh_smooth",
    "preview_render",
    "hd_texture",
    "texture_delight",
    "is_micro",
)
#: The stand-in's bounds of quality_override: Gen-1/1.5 and Gen-2 give none (Rodin's ComfyUI nodes
#: offer 2K–500K); Gen-2.5 500 to 2,000,000 (the widest range its tiers take).
POLYGONS = (2_000, 500_000)
POLYGONS_25 = (500, 2_000_000)
MAX_IMAGES = 5
MAX_IMAGE_BYTES = 10 * 1024 * 1024
RETRY_AFTER_SECONDS = 7
#: Magic words in a prompt: the answer the stand-in gives instead of (or with) a task.
MAGIC = ("[refuse]", "[busy]", "[nofund]", "[crash]", "[fail]", "[canceled]", "[late-files]", "[retired]")


def _error(code: str, text: str, status: int = 201, headers: dict[str, str] | None = None) -> JSONResponse:
    """Rodin's error shape: ``{"error": code, "message": text}``, often inside a 2xx."""
    return JSONResponse({"error": code, "message": text}, status_code=status, headers=headers)


class _Job:
    """What the stand-in keeps of one Rodin task beside the sandbox's own task."""

    def __init__(self, task: Task, key: str, subscription_key: str, magic: set[str], fields: dict[str, Any]):
        self.task = task
        self.key = key
        self.subscription_key = subscription_key
        self.magic = magic
        self.fields = fields
        self.job_uuids = [str(uuid.uuid4()), str(uuid.uuid4())]
        self.download_calls = 0
        self.preview: bytes | None = None


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(title="Kiln sandbox: Hyper3D Rodin", version="2", description="See sandbox/README.md.")
    app.state.fault_kinds = {
        ("POST", f"{API}/rodin"): "submit",
        ("POST", f"{API}/status"): "poll",
        ("POST", f"{API}/download"): "poll",
    }
    jobs: dict[str, _Job] = {}  # by task uuid
    by_subscription: dict[str, str] = {}
    lock = threading.Lock()

    def authorize(request: Request) -> str | JSONResponse:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if not header or scheme.lower() != "bearer" or not token:
            return _error("NOT_AUTHENTICATED", "Not authenticated", 401, {"WWW-Authenticate": "Bearer"})
        if not KEY_SHAPE.match(token) or token not in state.keys:
            return _error("INVALID_API_KEY", "The API key is invalid or has been revoked.", 401)
        return token

    @app.post(f"{API}/rodin", status_code=201, summary="Rodin Generation (Gen-1/1.5 tiers and Gen-2)")
    async def rodin(request: Request) -> Any:
        key = authorize(request)
        if isinstance(key, JSONResponse):
            return key
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return _error("INVALID_REQUEST", "Send the request as multipart/form-data.", 400)
        form = await request.form()
        fields: dict[str, Any] = {}
        uploads: list[UploadFile] = []
        for name, value in form.multi_items():
            if name == "images":
                if isinstance(value, str):
                    return _error("INVALID_REQUEST", "images must be file uploads.", 400)
                uploads.append(value)
            elif isinstance(value, str):
                fields[name] = value
        problem = _field_problem(fields, len(uploads))
        if problem is not None:
            return _error("INVALID_REQUEST", problem, 400)
        prompt = fields.get("prompt", "")
        magic = {word for word in MAGIC if word in prompt.lower()}
        if "[busy]" in magic:
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
            return _error("TOO_MANY_REQUESTS", "Too many requests, slow down.", 429, headers)
        if "[crash]" in magic:
            return _error("INTERNAL_SERVER_ERROR", "Something went wrong.", 500)
        if "[refuse]" in magic:
            return _error("CONTENT_REJECTED", "The input was flagged by content moderation.")
        if "[nofund]" in magic:
            return _error("INSUFFICIENT_FUND", "Your balance is not enough for this generation.")
        if "[retired]" in magic:  # the day Rodin retires a tier (none is announced): a refusal naming it
            return _error(
                "INVALID_REQUEST", f"The tier {fields.get('tier', 'Regular')} has been retired.", 400
            )
        image = None
        if uploads:
            data = await uploads[0].read(MAX_IMAGE_BYTES + 1)
            for extra in uploads[1:]:
                await extra.read(MAX_IMAGE_BYTES + 1)
            if len(data) > MAX_IMAGE_BYTES:
                return _error("INVALID_REQUEST", "An image is larger than 10 MB.", 413)
            if images.sniff_format(data) is None:
                return _error("INVALID_REQUEST", "Images must be PNG, JPEG or WebP.", 400)
            try:
                image = await run_in_threadpool(images.decode, data)
            except Exception:  # Pillow raises many types for broken files
                return _error("INVALID_REQUEST", "An image could not be decoded.", 400)
        base = str(request.base_url).rstrip("/")
        task = state.create_task(
            key=key,
            kind="image" if uploads else "text",
            resolution=1024,
            prompt=prompt or None,
            image=image,
            base_url=base,
            endpoint="rodin",
        )
        if task is None:
            return _error("INSUFFICIENT_FUND", "Your balance is not enough for this generation.")
        subscription_key = f"sub-{uuid.uuid4().hex}"
        with state.lock:  # Rodin names tasks by uuid: the sandbox's task is filed under one
            del state.tasks[task.id]
            task.id = str(uuid.uuid4())
            state.tasks[task.id] = task
            if "[fail]" in magic:
                task.planned_error = "Generation failed."
        job = _Job(task, key, subscription_key, magic, {**fields, "images": len(uploads)})
        with lock:
            jobs[task.id] = job
            by_subscription[subscription_key] = task.id
        task.submit_body = {
            "error": None,
            "message": "Submitted.",
            "uuid": task.id,
            "jobs": {"uuids": job.job_uuids, "subscription_key": subscription_key},
            "submit_time": task.created_at,  # not in the reference: an extra field a client ignores
            "received": job.fields,
        }
        return {k: v for k, v in task.submit_body.items() if k != "received"}

    @app.post(f"{API}/status", status_code=201, summary="Check Status")
    async def status(request: Request) -> Any:
        key = authorize(request)
        if isinstance(key, JSONResponse):
            return key
        body = await _json(request)
        subscription_key = body.get("subscription_key") if isinstance(body, dict) else None
        if not isinstance(subscription_key, str) or not subscription_key:
            return _error("INVALID_REQUEST", "subscription_key is required.", 400)
        state.count_poll()
        with lock:
            job = jobs.get(by_subscription.get(subscription_key, ""))
        if job is None or job.key != key or job.task.id not in state.tasks:
            return _error("TASK_NOT_FOUND", "No task has this subscription key.")
        return {"error": "OK", "jobs": _job_states(job)}

    @app.post(f"{API}/download", status_code=201, summary="Download Results")
    async def download(request: Request) -> Any:
        key = authorize(request)
        if isinstance(key, JSONResponse):
            return key
        body = await _json(request)
        task_uuid = body.get("task_uuid") if isinstance(body, dict) else None
        if not isinstance(task_uuid, str) or not task_uuid:
            return _error("INVALID_REQUEST", "task_uuid is required.", 400)
        with lock:
            job = jobs.get(task_uuid)
        if job is None or job.key != key or task_uuid not in state.tasks:
            return _error("TASK_NOT_FOUND", "No task has this uuid.")
        job.download_calls += 1
        if job.task.status != "completed" or ("[late-files]" in job.magic and job.download_calls == 1):
            # "Calling this API endpoint before the task is done may return … an incomplete list".
            preview = {"url": _file_url(state, job, "preview.webp"), "name": "preview.webp"}
            return {"error": "OK", "list": [preview]}
        names = ["preview.webp"]
        material = job.fields.get("material", "PBR")
        fmt = job.fields.get("geometry_file_format", "glb")
        if material in ("Shaded", "All"):
            names.append(f"base_basic_shaded.{fmt}")
        if material in ("PBR", "All"):
            names.append(f"base_basic_pbr.{fmt}")
        return {"error": "OK", "list": [{"url": _file_url(state, job, name), "name": name} for name in names]}

    @app.get(f"{API}/check_balance", summary="Check Balance")
    async def check_balance(request: Request) -> Any:
        key = authorize(request)
        if isinstance(key, JSONResponse):
            return key
        return JSONResponse({"balance": state.credits[key], "currency": "credits"}, status_code=201)

    @app.get("/files/{task_uuid}/{name}", summary="A result file (no auth, like a signed CDN link)")
    async def get_file(task_uuid: str, name: str) -> Response:
        with lock:
            job = jobs.get(task_uuid)
        if job is None or job.task.status != "completed":
            return JSONResponse({"error": "NOT_FOUND", "message": "No such file."}, status_code=404)
        artifacts = job.task.artifacts.result()
        if name == "preview.webp":
            if job.preview is None:
                job.preview = await run_in_threadpool(_webp, artifacts.png)
            return Response(job.preview, media_type="image/webp")
        if name.startswith("base_basic_"):
            return Response(artifacts.glb, media_type="model/gltf-binary")
        return JSONResponse({"error": "NOT_FOUND", "message": "No such file."}, status_code=404)

    return app


def _field_problem(fields: dict[str, Any], image_count: int) -> str | None:
    """Why the form is not one Rodin takes (documented values only), or None."""
    for name, allowed in CHOICES.items():
        if name in fields and fields[name] not in allowed:
            return f"{name} must be one of {', '.join(allowed)}."
    for name in BOOLEANS:
        if name in fields and fields[name].lower() not in ("true", "false"):
            return f"{name} must be true or false."
    if "quality_override" in fields:
        try:
            count = int(fields["quality_override"])
        except ValueError:
            return "quality_override must be a number."
        low, high = POLYGONS_25 if fields.get("tier") in TIERS_25 else POLYGONS
        if not low <= count <= high:
            return f"quality_override must be between {low} and {high}."
    if image_count > MAX_IMAGES:
        return f"At most {MAX_IMAGES} images."
    if not image_count and not fields.get("prompt", "").strip():
        return "A prompt is required for Text-to-3D generation."
    return None


def _job_states(job: _Job) -> list[dict[str, Any]]:
    """One state per job from the sandbox task's life: the mesh job first, then the texture job."""
    status, progress, _error_value = job.task.snapshot()
    first, second = job.job_uuids
    if status == "queued":
        words = ("Waiting", "Waiting")
    elif status == "running":
        words = ("Generating", "Waiting") if progress < 50 else ("Done", "Generating")
    elif status == "completed":
        words = ("Done", "Done")
    else:
        words = ("Done", "Canceled" if "[canceled]" in job.magic else "Failed")
    return [{"uuid": first, "status": words[0]}, {"uuid": second, "status": words[1], "kind": "texture"}]


def _file_url(state: SandboxState, job: _Job, name: str) -> str:
    """A file link: on the second loopback host when it is bound (a host the key must never reach)."""
    base = state.cdn_base_url or job.task.base_url
    return f"{base}/files/{job.task.id}/{name}"


def _webp(png: bytes) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(png)).save(out, format="WEBP")
    return out.getvalue()


async def _json(request: Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        return None
