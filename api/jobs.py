"""The job engine: every job's life from submit to a checked GLB on disk, off the UI thread.

Blender-free on purpose. The main thread only calls the quick methods here (``submit``,
``cancel``, ``drain_events``, …); a small pool of worker threads owns all network and file
I/O. The job list is written to ``jobs.json`` (temp file, fsync, rename) on every state
change *before* the change is acted on, so a crash or restart loses nothing: ``start()``
picks unfinished jobs up again, and a submit whose outcome is unknown is surfaced, never
sent twice.
"""

from __future__ import annotations

import contextlib
import enum
import heapq
import itertools
import json
import logging
import os
import queue
import random
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import (
    CancelledError,
    InvalidMeshError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
)
from .glb import check_glb, check_preview
from .isolation import (
    HelperLimits,
    HelperUnavailable,
    ImportHelper,
    IsolationError,
    in_place_notice,
    wants_helper,
)
from .models import Task, TaskStatus

if TYPE_CHECKING:
    from .client import Client

log = logging.getLogger(__name__)

JOBS_FILE = "jobs.json"
CACHE_DIR = "cache"
UPLOADS_DIR = "uploads"  # PNGs saved from Blender images, kept for Retry until the job is removed
FILE_FORMAT = 1
POLL_JITTER = 0.10
MAX_BACKOFF = 60.0
DOWNLOAD_ATTEMPTS = 5
SLOT_WAIT = 0.5
OFFLINE_WAIT = 1.0
OFFLINE_NOTE = "Waiting: Blender's online access is off"


class JobState(enum.StrEnum):
    SUBMITTING = "submitting"
    QUEUED = "queued"
    RUNNING = "running"
    DOWNLOADING = "downloading"
    READY = "ready"
    IMPORTED = "imported"
    FAILED = "failed"
    CANCELLED = "cancelled"
    OUTCOME_UNKNOWN = "outcome unknown"
    TIMED_OUT = "timed out"

    @property
    def is_active(self) -> bool:
        """Still being worked on by the engine (the watcher must keep running)."""
        return self in ACTIVE_STATES


ACTIVE_STATES = frozenset({JobState.SUBMITTING, JobState.QUEUED, JobState.RUNNING, JobState.DOWNLOADING})


@dataclass(frozen=True)
class ServiceConfig:
    """Everything workers need from the preferences, copied on the main thread."""

    base_url: str
    api_key: str = field(repr=False)
    poll_interval: float = 2.5
    max_in_flight: int = 4
    timeout_seconds: float = 30 * 60.0
    #: Blender's "Allow Online Access"; while it is off, jobs wait and nothing is sent.
    online: bool = True
    #: Every mesh is imported by the helper Blender and appended (``isolation``), unless the artist
    #: chose to import in this Blender: then only results above either size still go through it.
    import_in_place: bool = False
    large_import_triangles: int = 200_000
    large_import_bytes: int = 20 * 1024 * 1024
    #: The helper's command line (``isolation.helper_command``); empty: no helper can run here.
    helper_command: tuple[str, ...] = ()
    helper_limits: HelperLimits = field(default_factory=HelperLimits)


@dataclass(frozen=True)
class JobRequest:
    """What the artist asked for; enough to submit (or re-submit) the job."""

    kind: str  # "text" or "image"
    prompt: str = ""
    image_path: str = ""
    image_url: str = ""
    resolution: int | None = None
    provider: str = ""
    quality: str = ""
    webhook_url: str = ""
    name: str = ""
    blender_image: str = ""  # the Blender image ``image_path`` was saved from, for provenance

    @property
    def label(self) -> str:
        """A short name for lists and object names."""
        if self.name:
            return self.name
        if self.kind == "text":
            return self.prompt.strip()
        return Path(self.image_path).name if self.image_path else self.image_url.rsplit("/", 1)[-1]


@dataclass
class Job:
    """One request and everything known about its task; the unit that is persisted."""

    id: str
    request: JobRequest
    origin: str = ""
    group: str = ""
    state: JobState = JobState.SUBMITTING
    task_id: str = ""
    idempotency_key: str = field(default_factory=lambda: uuid.uuid4().hex)
    submit_sent: bool = False
    progress: float = 0.0
    eta_seconds: int | None = None
    error: str = ""
    note: str = ""
    created_at: float = field(default_factory=time.time)
    submitted_at: float | None = None
    deadline: float | None = None
    finished_at: float | None = None
    mesh_url: str = ""
    preview_url: str = ""
    resolution: int | None = None
    triangles: int | None = None
    mesh_path: str = ""
    blend_path: str = ""
    preview_path: str = ""
    objects: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = self.state.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        request_fields = {f.name for f in fields(JobRequest)}
        values["request"] = JobRequest(**{k: v for k, v in data["request"].items() if k in request_fields})
        values["state"] = JobState(data["state"])
        return cls(**values)


@dataclass(frozen=True)
class JobEvent:
    """A change the UI should show; drained on the main thread."""

    job_id: str
    state: JobState
    message: str = ""


def _jittered(interval: float) -> float:
    return interval * random.uniform(1.0 - POLL_JITTER, 1.0 + POLL_JITTER)


def _backoff(attempt: int, base: float) -> float:
    return min(MAX_BACKOFF, base * 2 ** max(0, attempt - 1)) * random.uniform(0.8, 1.2)


class JobEngine:
    """Owns the job list, its file, and the worker threads that move jobs along."""

    def __init__(
        self,
        state_dir: Path,
        *,
        workers: int = 4,
        client_factory: Callable[[ServiceConfig, threading.Event], Client] | None = None,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.cache_dir = self.state_dir / CACHE_DIR
        self._workers_wanted = workers
        self._client_factory = client_factory or _default_client
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._jobs: dict[str, Job] = {}
        self._heap: list[tuple[float, int, str, str]] = []
        self._seq = itertools.count()
        self._events: queue.SimpleQueue[JobEvent] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._config: ServiceConfig | None = None
        self._client: Client | None = None
        self._client_error: KilnError | None = None
        self._submitting = 0
        self._failures: dict[str, int] = {}
        self._import_helper = ImportHelper()

    # ----------------------------------------------------------------- life of the engine

    def start(self, config: ServiceConfig | None = None) -> None:
        """Load the job list, pick up unfinished jobs, start the workers."""
        if self._threads:
            return
        if config is not None:
            self.configure(config)
        self._stop.clear()
        self._load()
        for i in range(self._workers_wanted):
            thread = threading.Thread(target=self._work, name=f"kiln-worker-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop the workers and join them; jobs stay on disk and resume next time."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()
        self._heap.clear()
        self._import_helper.close()
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def threads(self) -> list[threading.Thread]:
        return list(self._threads)

    def configure(self, config: ServiceConfig) -> None:
        """Take new settings; a changed URL or key gets a fresh client."""
        with self._lock:
            if config == self._config:
                return
            old = self._config
            self._config = config
            if old is None or (old.base_url, old.api_key) != (config.base_url, config.api_key):
                # The new client is made by a worker on first use: building one loads requests,
                # which the main thread should not pay for.
                if self._client is not None:
                    self._client.close()
                self._client, self._client_error = None, None
            self._changed.notify_all()

    # ----------------------------------------------------------------- main-thread API

    def submit(self, request: JobRequest, *, origin: str = "", group: str = "") -> Job:
        """Record a new job and hand it to the workers; returns at once."""
        job = Job(id=uuid.uuid4().hex[:12], request=request, origin=origin, group=group)
        with self._lock:
            self._jobs[job.id] = job
            self._save()
            self._schedule(job.id, "submit", 0.0)
            self._emit(job, "")
            return replace(job)

    def resume_task(self, task_id: str, request: JobRequest, *, origin: str = "") -> Job:
        """Track a task submitted elsewhere (or earlier) by its id."""
        job = Job(id=uuid.uuid4().hex[:12], request=request, origin=origin)
        job.task_id, job.state, job.submit_sent = task_id.strip(), JobState.QUEUED, True
        self._restart_clock(job)
        with self._lock:
            self._jobs[job.id] = job
            self._save()
            self._schedule(job.id, "poll", 0.0)
            self._emit(job, "")
            return replace(job)

    def resume(self, job_id: str) -> None:
        """Poll a timed-out (or failed-while-polling) task again, with a fresh time limit."""
        with self._lock:
            job = self._jobs[job_id]
            if not job.task_id:
                raise KeyError(job_id)
            job.state, job.error, job.note = JobState.QUEUED, "", ""
            self._restart_clock(job)
            self._save()
            self._schedule(job.id, "poll", 0.0)
            self._emit(job, "")

    def retry(self, job_id: str) -> None:
        """Submit the same request again as a new task (costs credits)."""
        with self._lock:
            job = self._jobs[job_id]
            _drop_blend(job)
            fresh = Job(id=job.id, request=job.request, origin=job.origin, group=job.group)
            self._jobs[job_id] = fresh
            self._save()
            self._schedule(job_id, "submit", 0.0)
            self._emit(fresh, "")

    def cancel(self, job_id: str) -> None:
        """Stop tracking a job. The service has no cancel endpoint: the task may still finish there."""
        with self._lock:
            job = self._jobs[job_id]
            if job.state in (JobState.IMPORTED, JobState.CANCELLED):
                return
            self._settle(job, JobState.CANCELLED, note="Cancelled: Kiln stopped tracking it")

    def remove(self, job_id: str) -> None:
        with self._lock:
            job = self._jobs.pop(job_id, None)
            if job is not None:
                _drop_blend(job)
                upload = Path(job.request.image_path)
                if job.request.blender_image and upload.parent == self.state_dir / UPLOADS_DIR:
                    upload.unlink(missing_ok=True)
                self._save()
                self._changed.notify_all()

    def mark_imported(self, job_id: str, objects: Iterable[str]) -> None:
        with self._lock:
            job = self._jobs[job_id]
            job.objects = list(objects)
            self._settle(job, JobState.IMPORTED)

    def mark_failed(self, job_id: str, message: str) -> None:
        """A step on the main thread (the import) failed; keep the job with the sentence."""
        with self._lock:
            job = self._jobs[job_id]
            job.error = message
            self._settle(job, JobState.FAILED)

    def set_origin(self, old: str, new: str) -> None:
        """The .blend a job belongs to was saved under a (new) name."""
        with self._lock:
            changed = [job for job in self._jobs.values() if job.origin == old]
            for job in changed:
                job.origin = new
            if changed:
                self._save()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return replace(job) if job else None

    def jobs(self) -> list[Job]:
        """Snapshot copies, oldest first."""
        with self._lock:
            return [replace(job) for job in self._jobs.values()]

    def ready_for(self, origin: str) -> Job | None:
        """The first finished, not yet imported job started from ``origin`` (cheap: one copy at most)."""
        with self._lock:
            job = next(
                (j for j in self._jobs.values() if j.state is JobState.READY and j.origin == origin), None
            )
            return replace(job) if job else None

    def has_active(self) -> bool:
        with self._lock:
            return any(job.state.is_active for job in self._jobs.values())

    def drain_events(self, limit: int = 1000) -> list[JobEvent]:
        """Everything that happened since the last call; never blocks."""
        events: list[JobEvent] = []
        with contextlib.suppress(queue.Empty):
            while len(events) < limit:
                events.append(self._events.get_nowait())
        return events

    def wait(self, job_ids: Iterable[str], timeout: float | None = None) -> bool:
        """Block until every job is settled (background mode only). False on timeout."""
        ids = list(job_ids)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                pending = [i for i in ids if i in self._jobs and self._jobs[i].state.is_active]
                if not pending:
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._changed.wait(remaining if remaining is not None else 1.0)

    # ----------------------------------------------------------------- persistence

    def _load(self) -> None:
        path = self.state_dir / JOBS_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("Could not read the job list %s (%s); starting with an empty one", path, exc)
            return
        with self._lock:
            for raw in data.get("jobs", []):
                try:
                    job = Job.from_json(raw)
                except (KeyError, TypeError, ValueError) as exc:
                    log.warning("Skipping an unreadable job in %s: %s", path, exc)
                    continue
                self._jobs[job.id] = job
                self._resume_after_load(job)
            self._save()

    def _resume_after_load(self, job: Job) -> None:
        if job.state is JobState.SUBMITTING:
            if job.submit_sent and not job.task_id:
                job.state = JobState.OUTCOME_UNKNOWN
                job.error = (
                    "Kiln was closed while this job was being sent, so it may or may not have reached "
                    "the service. Check your dashboard before pressing Retry (a retry costs credits)."
                )
                return
            if job.task_id:
                job.state = JobState.QUEUED
            else:
                self._schedule(job.id, "submit", 0.0)
                return
        if job.state in (JobState.QUEUED, JobState.RUNNING):
            self._schedule(job.id, "poll", 0.0)
        elif job.state is JobState.DOWNLOADING:
            self._schedule(job.id, "download", 0.0)

    def _save(self) -> None:
        """Write the whole list atomically; called with the lock held."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        payload = {"format": FILE_FORMAT, "jobs": [job.to_json() for job in self._jobs.values()]}
        fd, tmp = tempfile.mkstemp(prefix=".jobs-", suffix=".tmp", dir=self.state_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            Path(tmp).replace(self.state_dir / JOBS_FILE)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # ----------------------------------------------------------------- scheduling

    def _schedule(self, job_id: str, step: str, delay: float) -> None:
        heapq.heappush(self._heap, (time.monotonic() + delay, next(self._seq), job_id, step))
        self._changed.notify_all()

    def _emit(self, job: Job, message: str) -> None:
        self._events.put(JobEvent(job.id, job.state, message))
        self._changed.notify_all()

    def _settle(self, job: Job, state: JobState, *, note: str = "") -> None:
        if state is not JobState.READY:
            _drop_blend(job)
        job.state, job.note = state, note
        job.finished_at = time.time()
        self._save()
        self._emit(job, job.error or note)

    def _restart_clock(self, job: Job) -> None:
        timeout = self._config.timeout_seconds if self._config else 30 * 60.0
        job.deadline = time.time() + timeout

    def _next_step(self) -> tuple[str, str] | None:
        with self._changed:
            while not self._stop.is_set():
                now = time.monotonic()
                if self._heap and self._heap[0][0] <= now:
                    _, _, job_id, step = heapq.heappop(self._heap)
                    return job_id, step
                wait = self._heap[0][0] - now if self._heap else None
                self._changed.wait(wait)
        return None

    def _work(self) -> None:
        while (item := self._next_step()) is not None:
            job_id, step = item
            if self._wait_while_offline(job_id, step):
                continue
            self._ensure_client()
            try:
                getattr(self, f"_step_{step}")(job_id)
            except Exception:
                log.exception("Unexpected error in job %s (%s)", job_id, step)
                with self._lock:
                    job = self._jobs.get(job_id)
                    if job is not None and job.state.is_active:
                        job.error = "Kiln hit an unexpected error; see the system console for details."
                        self._settle(job, JobState.FAILED)

    def _ensure_client(self) -> None:
        """Make the client for the current settings, outside the lock (worker threads only)."""
        with self._lock:
            config = self._config
            if self._client is not None or self._client_error is not None or config is None:
                return
        if not (config.base_url and config.api_key):
            return
        try:
            client, error = self._client_factory(config, self._stop), None
        except KilnError as exc:
            client, error = None, exc
        with self._lock:
            if self._config is config and self._client is None and self._client_error is None:
                self._client, self._client_error = client, error
            elif client is not None:
                client.close()

    def _wait_while_offline(self, job_id: str, step: str) -> bool:
        """Online access turned off: keep the job, send nothing, look again shortly."""
        with self._lock:
            if self._config is None or self._config.online:
                return False
            job = self._jobs.get(job_id)
            if job is not None and job.state.is_active:
                if job.note != OFFLINE_NOTE:
                    job.note = OFFLINE_NOTE
                    self._emit(job, "")
                self._schedule(job_id, step, OFFLINE_WAIT)
            return True

    def _current(self, job_id: str, *states: JobState) -> Job | None:
        """The live job if it is still in one of ``states`` (it may have been cancelled meanwhile)."""
        job = self._jobs.get(job_id)
        return job if job is not None and job.state in states else None

    def _usable_client(self, job: Job) -> Client | None:
        if self._client is not None and self._config is not None and self._config.api_key:
            return self._client
        if self._config is None or not self._config.base_url:
            job.error = "No service URL is set. Add it in Kiln's preferences."
        elif not self._config.api_key:
            job.error = "No API key is set. Add your key in Kiln's preferences (or set KILN_API_KEY)."
        else:
            job.error = (
                self._client_error.user_message if self._client_error else "The service is not set up."
            )
        self._settle(job, JobState.FAILED)
        return None

    # ----------------------------------------------------------------- steps (worker threads)

    def _step_submit(self, job_id: str) -> None:
        with self._lock:
            job = self._current(job_id, JobState.SUBMITTING)
            if job is None:
                return
            client = self._usable_client(job)
            if client is None or self._config is None:
                return
            in_flight = self._submitting + sum(
                1 for j in self._jobs.values() if j.state in (JobState.QUEUED, JobState.RUNNING)
            )
            if in_flight >= self._config.max_in_flight:
                if job.note != "Waiting for a free slot":
                    job.note = "Waiting for a free slot"
                    self._emit(job, "")
                self._schedule(job_id, "submit", SLOT_WAIT)
                return
            job.submit_sent, job.note = True, "Sending"
            self._save()
            self._submitting += 1
            request, key = job.request, job.idempotency_key
        try:
            task = self._send(client, request, key)
        except CancelledError:
            self._interrupted_submit(job_id)
            return
        except OutcomeUnknownError as exc:
            self._after_submit(job_id, None, exc, JobState.OUTCOME_UNKNOWN)
        except KilnError as exc:
            self._after_submit(job_id, None, exc, JobState.FAILED)
        else:
            self._after_submit(job_id, task, None, JobState.QUEUED)

    @staticmethod
    def _send(client: Client, request: JobRequest, key: str) -> Task:
        if request.kind == "text":
            image_model = None
            if request.provider or request.quality:
                image_model = {"provider": request.provider, "quality": request.quality}
            return client.submit_text(
                request.prompt, resolution=request.resolution, image_model=image_model, idempotency_key=key
            )
        return client.submit_image(
            path=request.image_path or None,
            url=request.image_url or None,
            resolution=request.resolution or 1536,
            webhook_url=request.webhook_url or None,
            idempotency_key=key,
        )

    def _interrupted_submit(self, job_id: str) -> None:
        """The client gave up before (re)sending: no task exists, so the job may be sent later."""
        with self._lock:
            self._submitting -= 1
            job = self._current(job_id, JobState.SUBMITTING)
            if job is not None:
                job.submit_sent = False
                self._save()
        self._interrupted(job_id, "submit")

    def _interrupted(self, job_id: str, step: str) -> None:
        """A request was cut short by shutdown (the job resumes next start) or by new settings (go again)."""
        with self._lock:
            if not self._stop.is_set() and self._jobs.get(job_id) is not None:
                self._schedule(job_id, step, 0.0)

    def _after_submit(self, job_id: str, task: Task | None, exc: KilnError | None, state: JobState) -> None:
        with self._lock:
            self._submitting -= 1
            job = self._jobs.get(job_id)
            if job is None:
                return
            if task is not None:
                # The task id reaches disk before anything else happens, even for a cancelled job.
                job.task_id = task.id
                job.submitted_at = time.time()
                self._restart_clock(job)
                job.eta_seconds = task.eta_seconds
                job.resolution = task.resolution or job.request.resolution
                if job.state is not JobState.SUBMITTING:
                    self._save()
                    return
                job.state, job.note = state, ""
                self._save()
                self._emit(job, "")
                assert self._config is not None
                self._schedule(job_id, "poll", _jittered(self._config.poll_interval))
            elif job.state is JobState.SUBMITTING and exc is not None:
                job.error = exc.user_message
                self._settle(job, state)

    def _step_poll(self, job_id: str) -> None:
        with self._lock:
            job = self._current(job_id, JobState.QUEUED, JobState.RUNNING)
            if job is None:
                return
            if job.deadline is not None and time.time() > job.deadline:
                job.error = (
                    f"Gave up waiting after the time limit. Task {job.task_id} is kept: "
                    "use Resume to check on it again."
                )
                self._settle(job, JobState.TIMED_OUT)
                return
            client = self._usable_client(job)
            if client is None:
                return
            task_id = job.task_id
        try:
            task = client.get_task(task_id)
            task.raise_if_failed()
        except (NetworkError, ServiceError, RateLimitError) as exc:
            self._poll_later(job_id, exc)
            return
        except NotFoundError:
            self._fail(
                job_id,
                f"The service no longer knows task {task_id} (it may have expired or been lost). "
                "Press Retry to generate it again (costs credits).",
                JobState.QUEUED,
                JobState.RUNNING,
            )
            return
        except CancelledError:
            self._interrupted(job_id, "poll")
            return
        except KilnError as exc:
            self._fail(job_id, exc.user_message, JobState.QUEUED, JobState.RUNNING)
            return
        self._after_poll(job_id, task)

    def _after_poll(self, job_id: str, task: Task) -> None:
        with self._lock:
            job = self._current(job_id, JobState.QUEUED, JobState.RUNNING)
            if job is None or self._config is None:
                return
            self._failures.pop(job_id, None)
            job.note = ""
            if task.progress is not None:
                job.progress = float(task.progress)
            if task.eta_seconds is not None:
                job.eta_seconds = task.eta_seconds
            if task.status is TaskStatus.COMPLETED and not (task.result and task.result.mesh_url):
                job.error = "The service reported the task done but sent no mesh address. Press Retry."
                self._settle(job, JobState.FAILED)
                return
            if task.status is TaskStatus.COMPLETED and task.result and task.result.mesh_url:
                job.mesh_url = task.result.mesh_url
                job.preview_url = task.result.preview_image_url or ""
                job.triangles = task.result.triangles
                job.progress = 100.0
                job.state = JobState.DOWNLOADING
                self._save()
                self._emit(job, "")
                self._schedule(job_id, "download", 0.0)
                return
            new_state = JobState.QUEUED if task.status is TaskStatus.QUEUED else JobState.RUNNING
            if new_state is not job.state:
                job.state = new_state
                self._save()
            self._emit(job, "")
            self._schedule(job_id, "poll", _jittered(self._config.poll_interval))

    def _poll_later(self, job_id: str, exc: KilnError) -> None:
        with self._lock:
            job = self._current(job_id, JobState.QUEUED, JobState.RUNNING)
            if job is None or self._config is None:
                return
            attempt = self._failures[job_id] = self._failures.get(job_id, 0) + 1
            delay = _backoff(attempt, self._config.poll_interval)
            if isinstance(exc, RateLimitError) and exc.retry_after:
                delay = max(delay, min(exc.retry_after, MAX_BACKOFF))
            job.note = f"{exc.user_message} Trying again in {delay:.0f} s."
            log.info(
                "Poll of task %s failed (%s); next try in %.1f s", job.task_id, type(exc).__name__, delay
            )
            self._emit(job, "")
            self._schedule(job_id, "poll", delay)

    def _fail(self, job_id: str, message: str, *states: JobState) -> None:
        with self._lock:
            job = self._current(job_id, *states)
            if job is not None:
                job.error = message
                self._settle(job, JobState.FAILED)

    def _step_download(self, job_id: str) -> None:
        with self._lock:
            job = self._current(job_id, JobState.DOWNLOADING)
            if job is None:
                return
            client = self._usable_client(job)
            if client is None:
                return
            task_id, mesh_url, preview_url = job.task_id, job.mesh_url, job.preview_url
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        mesh = self.cache_dir / f"{task_id}.glb"
        preview = self.cache_dir / f"{task_id}.png"
        try:
            if not mesh.exists():
                client.download(mesh_url, mesh, progress=self._download_progress(job_id))
            check_glb(mesh)
        except InvalidMeshError as exc:
            mesh.unlink(missing_ok=True)
            self._fail(job_id, exc.user_message, JobState.DOWNLOADING)
            return
        except (NetworkError, ServiceError, RateLimitError) as exc:
            self._download_later(job_id, exc)
            return
        except CancelledError:
            self._interrupted(job_id, "download")
            return
        except KilnError as exc:
            self._fail(job_id, exc.user_message, JobState.DOWNLOADING)
            return
        preview_ok = self._fetch_preview(client, preview_url, preview)
        try:
            blend = self._prepare_import(job_id, mesh)
        except CancelledError:
            return  # cancelled, or the engine is stopping (the job then resumes here next start)
        except IsolationError as exc:
            self._fail(job_id, exc.user_message, JobState.DOWNLOADING)
            return
        with self._lock:
            job = self._current(job_id, JobState.DOWNLOADING)
            if job is None:
                if blend:
                    Path(blend).unlink(missing_ok=True)
                return
            self._failures.pop(job_id, None)
            job.mesh_path = str(mesh)
            job.blend_path = blend
            job.preview_path = str(preview) if preview_ok else ""
            job.note = ""
            self._settle(job, JobState.READY)

    def _download_progress(self, job_id: str) -> Callable[[int, int | None], None]:
        def report(done: int, total: int | None) -> None:
            with self._lock:
                job = self._jobs.get(job_id)
                if job is not None and total:
                    job.note = f"Downloading {done * 100 // total}%"

        return report

    def _download_later(self, job_id: str, exc: KilnError) -> None:
        with self._lock:
            job = self._current(job_id, JobState.DOWNLOADING)
            if job is None or self._config is None:
                return
            attempt = self._failures[job_id] = self._failures.get(job_id, 0) + 1
            if attempt >= DOWNLOAD_ATTEMPTS:
                job.error = f"The mesh could not be downloaded: {exc.user_message}"
                self._settle(job, JobState.FAILED)
                return
            delay = _backoff(attempt, self._config.poll_interval)
            job.note = f"{exc.user_message} Trying the download again in {delay:.0f} s."
            self._emit(job, "")
            self._schedule(job_id, "download", delay)

    def _prepare_import(self, job_id: str, mesh: Path) -> str:
        """The helper Blender turns the mesh into a .blend; returns its path, or "" to import in place.

        "" when the artist chose in-place imports (and the mesh is small) or no helper can run
        (said once). A crash, hang or limit of the helper raises IsolationError: a sentence for the job.
        """
        with self._lock:
            job, config = self._current(job_id, JobState.DOWNLOADING), self._config
            if job is None or config is None or not wants_helper(config, mesh, job.triangles):
                return ""
            job.note = "Preparing the import"
            self._emit(job, "")
        try:
            blend = self._import_helper.convert(
                config.helper_command,
                config.helper_limits,
                mesh,
                mesh.with_suffix(".blend"),
                cancelled=lambda: self._gone(job_id),
            )
        except HelperUnavailable as exc:
            in_place_notice.record(exc.user_message)
            return ""
        log.info("%s prepared by the helper Blender as %s", mesh.name, blend.name)
        return str(blend)

    def _gone(self, job_id: str) -> bool:
        """The engine is stopping or the job was cancelled: its helper must not outlive that."""
        with self._lock:
            return self._stop.is_set() or self._current(job_id, JobState.DOWNLOADING) is None

    @staticmethod
    def _fetch_preview(client: Client, url: str, dest: Path) -> bool:
        """The thumbnail is a nicety: a missing or broken one never fails the job."""
        if not url:
            return False
        try:
            if not dest.exists():
                client.download(url, dest, max_bytes=16 * 1024 * 1024)
            check_preview(dest)
        except KilnError as exc:
            log.warning("Preview %s not usable: %s", dest.name, exc.user_message)
            dest.unlink(missing_ok=True)
            return False
        return True


def _drop_blend(job: Job) -> None:
    """Imported (the import deletes it too), cancelled, failed or removed: the helper's file is done with."""
    if job.blend_path:
        Path(job.blend_path).unlink(missing_ok=True)
        job.blend_path = ""


def _default_client(config: ServiceConfig, stop: threading.Event) -> Client:
    # Imported here: requests and urllib3 cost Blender's start-up ~40 ms, and are only needed on a worker.
    from .client import Client

    return Client(config.base_url, config.api_key, cancel_event=stop)
