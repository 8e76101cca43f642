"""The Blender side of Kiln's agent server, stood in for the plain-Python tests.

Phase 2 puts Kiln's own host in its place (the job engine, the library, the scene); this one keeps
what the layer relies on and nothing more: jobs whose progress grows with time and that land "in
the scene", an asset library keyed as Kiln keys it (``api.features.library_index.request_key``), a
preview picture, a price for text jobs the test can set, and every host call run on a stand-in main
thread through the layer's real :class:`~api.agents.MainThreadBridge`, drained by a 10 ms timer as
Kiln's timer drains it in Blender. ``off_main_calls`` counts host work that ran anywhere else.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from api.agents import AgentRequest, JobView, LibraryMatch, MainThreadBridge
from api.errors import KilnError
from api.features.credits import request_cost
from api.features.library_index import request_key
from api.jobs import JobKind, JobRequest, JobState

#: A key of the service's shape (the suite's key watch looks for this shape in every log line).
KEY = "sk_live_" + "standinkey" + "4f9c2e7a1b"
QUEUED_SECONDS = 0.2
TIMER = 0.01


@dataclass
class StoodJob:
    id: str
    request: JobRequest
    agent: str
    started: float
    cost: int | None
    cancelled: bool = False


class StandInHost:
    def __init__(self, preview: Path, job_seconds: float = 2.0) -> None:
        self.bridge = MainThreadBridge()
        self.preview = preview
        self.job_seconds = job_seconds
        self.price_of_text: int | None = None
        #: A sentence: submit refuses with it (as Kiln does when it is not set up), sending nothing.
        self.refuse_submit = ""
        self.library: dict[str, LibraryMatch] = {}
        self.submitted: list[AgentRequest] = []
        self.reused: list[AgentRequest] = []
        self.imported: list[str] = []
        self.off_main_calls = 0
        self._jobs: dict[str, StoodJob] = {}
        #: A job the artist started in the Sidebar: agents must not see it.
        self.artist_job = self._add(JobRequest(kind="text", prompt="the artist's own lamp"), "", None)
        self._stop = threading.Event()
        self._main = threading.Thread(target=self._timer, name="stand-in main thread", daemon=True)
        self._main.start()

    def close(self) -> None:
        self._stop.set()
        self.bridge.close()
        self._main.join(2)

    def _timer(self) -> None:
        while not self._stop.is_set():
            self.bridge.drain()
            self._stop.wait(TIMER)

    def _on_main(self) -> None:
        if threading.current_thread() is not self._main:
            self.off_main_calls += 1

    def _add(self, request: JobRequest, agent: str, cost: int | None) -> StoodJob:
        job = StoodJob(uuid.uuid4().hex[:12], request, agent, time.monotonic(), cost)
        self._jobs[job.id] = job
        return job

    def add_to_library(self, request: JobRequest, image: bytes | None, label: str) -> None:
        key = request_key(request, image)
        assert key is not None
        self.library[key] = LibraryMatch(label, "2026-03-14")

    def _view(self, job: StoodJob) -> JobView:
        elapsed = time.monotonic() - job.started
        kind = JobKind(job.request.kind)
        base = {"id": job.id, "kind": kind, "label": job.request.label, "agent": job.agent, "cost": job.cost}
        base["created"] = job.started
        if job.cancelled:
            return JobView(state=JobState.CANCELLED, error="It was cancelled.", **base)
        if not job.agent:
            return JobView(state=JobState.IMPORTED, progress=100.0, objects=("Lamp",), **base)
        if elapsed < min(QUEUED_SECONDS, self.job_seconds):
            return JobView(state=JobState.QUEUED, **base)
        if elapsed < self.job_seconds:
            return JobView(state=JobState.RUNNING, progress=100.0 * elapsed / self.job_seconds, **base)
        return JobView(
            state=JobState.IMPORTED,
            progress=100.0,
            objects=(job.request.label[:63],),
            triangles=12_345,
            verdict="ready",
            reasons=(),
            has_preview=True,
            **base,
        )

    # --- AgentHost -----------------------------------------------------------------------------
    def secrets(self) -> tuple[str, ...]:
        return (KEY,)

    def text_cost(self) -> int | None:
        return self.bridge.call(lambda: self.price_of_text)

    def default_service(self) -> str:
        return "INTERFACE"

    def library_match(self, ask: AgentRequest) -> LibraryMatch | None:
        def find() -> LibraryMatch | None:
            self._on_main()
            key = request_key(ask.request, ask.image)
            return self.library.get(key) if key else None

        return self.bridge.call(find)

    def reuse(self, ask: AgentRequest, match: LibraryMatch) -> Sequence[str]:
        def place() -> Sequence[str]:
            self._on_main()
            self.reused.append(ask)
            return (f"{match.label}.001",)

        return self.bridge.call(place)

    def submit(self, ask: AgentRequest) -> JobView:
        def start() -> JobView:
            self._on_main()
            if self.refuse_submit:
                raise KilnError(self.refuse_submit)
            self.submitted.append(ask)
            return self._view(
                self._add(ask.request, ask.agent, request_cost(ask.request, self.price_of_text))
            )

        return self.bridge.call(start)

    def job(self, job_id: str) -> JobView | None:
        def find() -> JobView | None:
            self._on_main()
            job = self._jobs.get(job_id)
            return self._view(job) if job else None

        return self.bridge.call(find)

    def jobs(self) -> Sequence[JobView]:
        def every() -> list[JobView]:
            self._on_main()
            return [self._view(job) for job in self._jobs.values()]

        return self.bridge.call(every)

    def cancel(self, job_id: str) -> JobView:
        def stop() -> JobView:
            self._on_main()
            job = self._jobs[job_id]
            job.cancelled = True
            return self._view(job)

        return self.bridge.call(stop)

    def import_job(self, job_id: str) -> JobView:
        def bring() -> JobView:
            self._on_main()
            self.imported.append(job_id)
            return self._view(self._jobs[job_id])

        return self.bridge.call(bring)

    def preview_path(self, job_id: str) -> Path | None:
        def where() -> Path | None:
            self._on_main()
            return self.preview if self._view(self._jobs[job_id]).has_preview else None

        return self.bridge.call(where)
