"""Helpers of the hostile-service tests (in their own module: conftest names clash across folders)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_glb import good_glb
from hostile_server import HostileServer, json_answer, raw

from api.errors import KilnError
from api.jobs import JobEngine, JobRequest, JobState, ServiceConfig, job_details
from api.services.interface.client import Client

# Shaped like a live key, so the suite-wide key watch (tests/support/key_watch.py) catches it too.
KEY = "kiln_live_HostileSecret0123456789abcdef"
TEXT = JobRequest(kind="text", prompt="a red chair")


def client_for(server: HostileServer | str, **options: Any) -> Client:
    """A real client with short limits (a test must not wait a minute for a deadline)."""
    settings: dict[str, Any] = {
        "deadline": 5.0,
        "timeout": (2.0, 5.0),
        "download_floor": (1024.0, 1.0),
    }
    settings.update(options)
    return Client(server if isinstance(server, str) else server.url, KEY, **settings)


#: Words of the machine room: never in a sentence an artist reads (they go to its details).
INTERNAL_WORDS = ("HTTP", "JSON", "helper Blender", "outcome unknown", "write-ahead", "SQLite", "idempotency")


def assert_sentence(error: BaseException) -> str:
    """A Kiln error whose message is a clean sentence for the artist, with no key, no traceback and no
    internals, and whose details (Copy Details, the console) carry no key either. Returns both, the
    sentence first: what an artist can see and hand to support."""
    assert isinstance(error, KilnError), f"{type(error).__name__} escaped: {error!r}"
    text, details = error.user_message, error.details
    assert text == str(error) and text.rstrip().endswith((".", ")")), text
    assert KEY not in text and "Traceback" not in text and "\x00" not in text
    assert text.isprintable(), ascii(text)
    assert not [word for word in INTERNAL_WORDS if word in text], text
    assert KEY not in details and "Traceback" not in details and "\x00" not in details
    assert details.replace("\n", " ").isprintable(), ascii(details)
    return f"{text}\n{details}"


def task(task_id: str = "task_1", status: str = "queued", **extra: Any) -> dict[str, Any]:
    return {"id": task_id, "status": status, **extra}


def completed(task_id: str, mesh_url: str, **extra: Any) -> dict[str, Any]:
    result = {"mesh_url": mesh_url, "format": "glb", "triangles": 12, **extra.pop("result", {})}
    return task(task_id, "completed", progress=100, result=result, **extra)


def serve_good_job(server: HostileServer, task_id: str = "task_next") -> None:
    """Make ``server`` a well-behaved service for one more job (the "next job is unaffected" check)."""
    server.routes.update(
        {
            "/v1/3d/text-to-3d": json_answer(200, task(task_id)),
            f"/v1/3d/tasks/{task_id}": json_answer(
                200, completed(task_id, f"{server.url}/files/{task_id}.glb")
            ),
            f"/files/{task_id}.glb": raw_glb(good_glb()),
        }
    )


def raw_glb(data: bytes) -> Callable[..., None]:
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: model/gltf-binary\r\nConnection: close\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    return raw(head.encode() + data)


class EngineRun:
    """The real engine in a state folder beside an "outside" folder whose files must stay untouched."""

    def __init__(self, root: Path, server: HostileServer, **client_options: Any) -> None:
        self.root = root
        self.server = server
        self.state_dir = root / "state"
        self.outside = root / "outside"
        (self.outside / "deep" / "er").mkdir(parents=True)
        for name in ("victim.glb", "victim.png", "deep/x.glb", "deep/er/keep.txt"):
            (self.outside / name).write_text(f"precious {name}")
        self._before = self._snapshot()
        options = {"deadline": 5.0, "download_floor": (1024.0, 1.0), "timeout": (2.0, 5.0), **client_options}

        def factory(config: ServiceConfig, stop: threading.Event) -> Client:
            return Client(config.base_url, config.api_key, cancel_event=stop, **options)

        self.engine = JobEngine(self.state_dir, workers=2, client_factory=factory)

    def start(self, **config: Any) -> None:
        settings = {"poll_interval": 0.2, "timeout_seconds": 20.0, "max_in_flight": 1, **config}
        self.engine.start(ServiceConfig(self.server.url, KEY, **settings))

    def run(self, request: JobRequest = TEXT, timeout: float = 20.0) -> Any:
        job = self.engine.submit(request)
        assert self.engine.wait([job.id], timeout=timeout), "the job never settled"
        return self.engine.get(job.id)

    def _snapshot(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.root)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in self.root.rglob("*")
            if self.state_dir not in p.parents and p != self.state_dir
        }

    def check(self, job: Any, *, other: HostileServer | None = None) -> str:
        """Every promise of the issue for one settled hostile job; returns its sentence and its details."""
        assert self._snapshot() == self._before, "Kiln touched files outside its state folder"
        assert job is not None, "the job was dropped from the list"
        details = job_details(job)
        text = " ".join(str(getattr(job, name, "") or "") for name in ("error", "note"))
        assert KEY not in text and KEY not in details
        if job.state is not JobState.READY:
            assert job.error, f"no sentence for the artist (state {job.state})"
            assert job.error.rstrip().endswith((".", ")")) and job.error.isprintable(), job.error
            assert "unexpected error" not in job.error, job.error
            assert not [word for word in INTERNAL_WORDS if word in job.error], job.error
            assert job.error_message is not None and str(job.error_message) == job.error
        for path in self.state_dir.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), f"the key was stored in {path.name}"
        if other is not None:
            for request in other.seen:
                assert KEY not in request.raw.decode("latin-1")
        return f"{job.error}\n{details}"

    def next_job_works(self) -> None:
        serve_good_job(self.server)
        job = self.run()
        assert job.state is JobState.READY, job.error
        assert job.task_id == "task_next"

    def close(self) -> None:
        self.engine.shutdown(timeout=10)
