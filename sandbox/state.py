"""Everything the sandbox remembers: keys and credits, tasks and their time-based life, records.

A task's status is computed from the time elapsed since submit on every read (no thread per
task): queued, then running with rising progress, then completed once its mesh (built in a
thread pool at submit) is ready, or failed when a fault planned it so.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from PIL import Image

from sandbox import images, meshes, preview, samples
from sandbox.faults import FaultDice, FaultSpec
from sandbox.glb import glb_triangles, to_glb

DEFAULT_KEY = "sbx_live_kilnsandboxdemo0000"
KEY_SHAPE = re.compile(r"^[a-z][a-z0-9]*_live_[A-Za-z0-9]{8,}$")

#: Seconds at speed 1 as (queued, running): text compiles a prompt and renders views first.
DURATIONS = {
    ("text", 1024): (1.0, 4.0),
    ("text", 1536): (1.0, 6.0),
    ("image", 1024): (0.5, 2.5),
    ("image", 1536): (0.5, 4.5),
}
FAIL_AT = 0.6  # fraction of the running time after which a doomed task fails

IMAGE_COST = {1024: 2, 1536: 4}
FINAL = ("completed", "failed")

Kind = Literal["text", "image"]


class Headers(dict[str, str]):
    """Request headers with lower-case names that can be looked up in any case."""

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)


class _Record:
    """Attribute access plus `record["name"]`, so tests may treat records as objects or dicts."""

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


@dataclass
class RecordedRequest(_Record):
    method: str
    path: str
    headers: Headers
    status: int = 0  # 0 until a response starts; stays 0 for an injected connection reset


@dataclass
class WebhookDelivery(_Record):
    url: str
    payload: dict[str, Any]
    status: int = 0  # HTTP status of the receiver, 0 when it could not be reached
    error: str | None = None


@dataclass(frozen=True)
class Artifacts:
    glb: bytes
    png: bytes
    triangles: int


@dataclass
class Task:
    id: str
    key: str
    kind: Kind
    resolution: int
    prompt: str | None
    created: float  # time.monotonic() at submit
    created_at: str
    queued_s: float
    running_s: float
    artifacts: Future[Artifacts]
    base_url: str  # scheme://host:port the submit came in on; result links point back there
    planned_error: Any = None
    webhook_url: str | None = None
    submit_body: dict[str, Any] = field(default_factory=dict)
    forced: tuple[str, Any] | None = None
    webhook_sent: bool = False

    @property
    def eta_seconds(self) -> int:
        return math.ceil(self.queued_s + self.running_s)

    def snapshot(self) -> tuple[str, int, Any]:
        """(status, progress, error) now, from elapsed time, forced state and mesh readiness."""
        elapsed = time.monotonic() - self.created
        running = max(0.0, min(1.0, (elapsed - self.queued_s) / self.running_s))
        progress = 1 + int(98 * running)
        if self.forced is not None:
            status, error = self.forced
            return status, 100 if status == "completed" else progress, error
        if self.planned_error is not None and running >= FAIL_AT:
            return "failed", 1 + int(98 * FAIL_AT), self.planned_error
        if elapsed < self.queued_s:
            return "queued", 0, None
        if running < 1.0 or not self.artifacts.done():
            return "running", min(progress, 99), None
        if self.artifacts.exception() is not None:
            return "failed", 99, {"code": "internal_error", "message": "The mesh could not be generated."}
        return "completed", 100, None

    @property
    def status(self) -> str:
        return self.snapshot()[0]

    @property
    def progress(self) -> int:
        return self.snapshot()[1]

    @property
    def error(self) -> Any:
        return self.snapshot()[2]


#: Artifacts already built, by what they are made from, up to BUILT_BYTES of files (a 1.2M-triangle
#: test grid alone is 34 MB). The generator is deterministic, and one test process starts many
#: sandboxes asking for the same few meshes: building one (mesh, GLB, painted preview) costs
#: 0.1-0.5 CPU-s, which was about a tenth of a `tests/blender` run's CPU.
BUILT_BYTES = 256 << 20
_built: OrderedDict[tuple[Any, ...], Artifacts] = OrderedDict()
_built_lock = threading.Lock()


def forget_built() -> None:
    """Build every mesh afresh from now on (a test of the generator's own determinism)."""
    with _built_lock:
        _built.clear()


def build_artifacts(kind: Kind, resolution: int, prompt: str | None, image: Image.Image | None) -> Artifacts:
    """Mesh, GLB bytes, true triangle count and preview: the slow part, run in the thread pool;
    the same input twice in one process is built once (``_built``)."""
    made_from = None if image is None else (image.mode, image.size, hashlib.sha256(image.tobytes()).digest())
    key = (kind, resolution, prompt, made_from)
    with _built_lock:
        if (known := _built.get(key)) is not None:
            _built.move_to_end(key)
            return known
    artifacts = _build(kind, resolution, prompt, image)
    with _built_lock:
        _built[key] = artifacts
        while sum(len(kept.glb) + len(kept.png) for kept in _built.values()) > BUILT_BYTES:
            _built.popitem(last=False)
    return artifacts


def _build(kind: Kind, resolution: int, prompt: str | None, image: Image.Image | None) -> Artifacts:
    """A prompt naming a sample gets it as Blender exported it, at either resolution."""
    if kind == "text" and (name := meshes.shape_name(prompt or "")) in samples.SAMPLES:
        glb = samples.glb(name)
        mesh = samples.mesh_of(glb)
    else:
        if kind == "text":
            mesh = meshes.text_mesh(prompt or "", resolution)
        else:
            assert image is not None
            mesh = images.image_mesh(image, resolution)
        glb = to_glb(mesh)
    return Artifacts(glb=glb, png=preview.render_png(mesh), triangles=glb_triangles(glb))


class SandboxState:
    """Shared by the HTTP handlers (event loop thread), the webhook thread and the test thread."""

    def __init__(
        self, keys: list[str], credits: int, speed: float, faults: str, seed: int, text_cost: int
    ) -> None:
        for key in keys:
            if not KEY_SHAPE.match(key):
                raise ValueError(f"key {key!r} does not have the shape <prefix>_live_<random>")
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.lock = threading.RLock()
        self.keys = frozenset(keys)
        self.credits = dict.fromkeys(keys, credits)
        self.speed = speed
        self.text_cost = text_cost
        self.faults = FaultSpec.parse(faults)
        self.dice = FaultDice(seed)
        self.tasks: dict[str, Task] = {}
        self.idempotency: dict[tuple[str, str, str], str] = {}
        self.requests: list[RecordedRequest] = []
        self.webhooks: list[WebhookDelivery] = []
        self.submit_count = 0
        self.submit_attempts = 0
        self.poll_count = 0
        self.restarted = False
        self.cdn_base_url: str | None = None
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sandbox-mesh")

    def set_faults(self, spec: str) -> None:
        parsed = FaultSpec.parse(spec)
        with self.lock:
            self.faults = parsed
            self.poll_count = 0
            self.restarted = False

    def forget_tasks(self) -> None:
        """What a restart without persistence does: every task (and idempotency key) is gone."""
        with self.lock:
            self.tasks.clear()
            self.idempotency.clear()

    def count_poll(self) -> None:
        """Count a poll; the `restart_after=N` fault forgets every task once N polls were answered."""
        with self.lock:
            self.poll_count += 1
            limit = self.faults.restart_after
            if limit and not self.restarted and self.poll_count > limit:
                self.restarted = True
                self.tasks.clear()
                self.idempotency.clear()

    def cost(self, kind: Kind, resolution: int) -> int:
        return self.text_cost if kind == "text" else IMAGE_COST[resolution]

    def replay(self, key: str, endpoint: str, idempotency_key: str | None) -> Task | None:
        if idempotency_key is None:
            return None
        with self.lock:
            task_id = self.idempotency.get((key, endpoint, idempotency_key))
            return self.tasks.get(task_id) if task_id else None

    def create_task(
        self,
        *,
        key: str,
        kind: Kind,
        resolution: int,
        prompt: str | None = None,
        image: Image.Image | None = None,
        webhook_url: str | None = None,
        base_url: str,
        endpoint: str,
        idempotency_key: str | None = None,
        cost: int | None = None,
    ) -> Task | None:
        """Charge the key and create a task, or return None when its credits are short.

        ``cost``: what a stand-in's own price list charges (None: the interface document's price).
        """
        queued, running = DURATIONS[(kind, resolution)]
        draw = self.dice.roll()
        planned: Any = None
        if draw < self.faults.fail:
            planned = "Reconstruction failed: the generator could not produce a mesh for this input."
        elif draw < self.faults.fail + self.faults.fail_object:
            planned = {"code": "generation_failed", "message": "The generator could not produce a mesh."}
        with self.lock:
            if cost is None:
                cost = self.cost(kind, resolution)
            if self.credits[key] < cost:
                return None
            self.credits[key] -= cost
            task = Task(
                id=f"task_{uuid.uuid4().hex}",
                key=key,
                kind=kind,
                resolution=resolution,
                prompt=prompt,
                created=time.monotonic(),
                created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                queued_s=queued / self.speed,
                running_s=running / self.speed,
                artifacts=self.executor.submit(build_artifacts, kind, resolution, prompt, image),
                planned_error=planned,
                webhook_url=webhook_url,
                base_url=base_url,
            )
            self.tasks[task.id] = task
            self.submit_count += 1
            if idempotency_key is not None:
                self.idempotency[(key, endpoint, idempotency_key)] = task.id
            return task

    def file_base(self, task: Task) -> str:
        """Where result files live: the submit's own host, or the second loopback under `cdn=1`."""
        return self.cdn_base_url if self.faults.cdn and self.cdn_base_url else task.base_url

    def result(self, task: Task) -> dict[str, Any]:
        artifacts = task.artifacts.result()
        base = self.file_base(task)
        return {
            "mesh_url": f"{base}/files/{task.id}.glb",
            "preview_image_url": f"{base}/files/{task.id}.png",
            "format": "glb",
            "triangles": artifacts.triangles,
        }

    def poll_body(self, task: Task) -> dict[str, Any]:
        status, progress, error = task.snapshot()
        body: dict[str, Any] = {"id": task.id, "status": status, "progress": progress}
        if status == "completed":
            body["result"] = self.result(task)
        elif status == "failed":
            body["error"] = error
        return body
