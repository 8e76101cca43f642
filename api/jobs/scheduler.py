"""The scheduler: when each step of each job runs, on which worker thread, with which client.

The job engine has one. Steps wait in a heap by due time; a pool of worker threads takes them in
turn. The client is
built by a worker on first use (building one loads ``requests``, which the UI thread should not
pay for), and again after the URL or key changed. While Blender's online access is off, steps
wait and nothing is sent.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import KilnError
from ..isolation import ImportHelper
from ..service.retrying import RetryPolicy
from ..words import catalogue as words
from ..words import message
from .book import JobBook
from .deadlines import Deadlines
from .model import JobState, ServiceConfig
from .steps import Step, StepRunner

if TYPE_CHECKING:
    from ..service.client import Client

log = logging.getLogger(__name__)

OFFLINE_WAIT = 1.0
#: The note of a job waiting while Blender's online access is off.
OFFLINE_NOTE = words.NOTE_WAITING_OFFLINE
ClientFactory = Callable[[ServiceConfig, threading.Event], "Client"]


class Scheduler:
    """The worker threads, the due steps, the client, the tasks in flight: what the steps run in."""

    def __init__(
        self,
        book: JobBook,
        workers: int,
        client_factory: ClientFactory | None,
        policy: RetryPolicy,
        cache_dir: Path,
    ) -> None:
        self.cache_dir = cache_dir
        self.policy = policy
        self.stop = threading.Event()
        self.deadlines = Deadlines(self.stop)
        #: The warm helper Blender that turns each downloaded GLB into a .blend (``api.isolation``).
        self.import_helper = ImportHelper()
        self._workers_wanted = workers
        self._client_factory = client_factory or self._default_client
        self._heap: list[tuple[float, int, str, Step]] = []
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._config: ServiceConfig | None = None
        self._client: Client | None = None
        self._client_error: KilnError | None = None
        self._sending = 0
        self.use(book)

    def use(self, book: JobBook) -> None:
        """Work on this job table (the engine's start reads a fresh one from the store)."""
        self.book = book
        self._lock = book.lock
        self.steps = StepRunner(self)

    def start_workers(self) -> None:
        self.deadlines.start()
        for i in range(self._workers_wanted):
            thread = threading.Thread(target=self._work, name=f"kiln-worker-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop_workers(self, timeout: float) -> None:
        self.stop.set()
        with self.book.changed:
            self.book.changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()
        self.deadlines.join(timeout)
        self._heap.clear()

    def close_client(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def threads(self) -> list[threading.Thread]:
        return list(self._threads)

    @property
    def config(self) -> ServiceConfig | None:
        return self._config

    def configure(self, config: ServiceConfig) -> None:
        """Take new settings; a changed URL or key gets a fresh client (made by a worker on first use)."""
        with self._lock:
            if config == self._config:
                return
            old, self._config = self._config, config
            if old is None or (old.base_url, old.api_key) != (config.base_url, config.api_key):
                if self._client is not None:
                    self._client.close()
                self._client, self._client_error = None, None
            self.book.changed.notify_all()

    def schedule(self, job_id: str, step: Step, delay: float) -> None:
        with self._lock:
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._seq), job_id, step))
            self.book.changed.notify_all()

    def take_slot(self) -> bool:
        """Called with the lock held: room for one more task on the service (Jobs in Flight)?"""
        assert self._config is not None
        running = sum(
            1
            for j in self.book.open_jobs()
            if j.state in (JobState.QUEUED, JobState.RUNNING) and self.book.is_own(j)
        )
        if self._sending + running >= self._config.max_in_flight:
            return False
        self._sending += 1
        return True

    def release_slot(self) -> None:
        with self._lock:
            self._sending -= 1

    def usable_client(self, job_id: str) -> Client | None:
        """Called with the lock held: the client, or the job fails with what is missing in the settings."""
        if self._client is not None and self._config is not None and self._config.api_key:
            return self._client
        if self._config is None or not self._config.base_url:
            error = message(words.SERVICE_ADDRESS_MISSING)
        elif not self._config.api_key:
            error = message(words.API_KEY_MISSING)
        elif self._client_error is not None:
            error = self._client_error.message
        else:
            error = message(words.SERVICE_NOT_SET_UP)
        self.book.settle(job_id, JobState.FAILED, error=error)
        return None

    def _next_step(self) -> tuple[str, Step] | None:
        with self.book.changed:
            while not self.stop.is_set():
                now = time.monotonic()
                if self._heap and self._heap[0][0] <= now:
                    _, _, job_id, step = heapq.heappop(self._heap)
                    return job_id, step
                self.book.changed.wait(self._heap[0][0] - now if self._heap else None)
        return None

    def _work(self) -> None:
        while (item := self._next_step()) is not None:
            job_id, step = item
            if self._wait_while_offline(job_id, step):
                continue
            self._ensure_client()
            try:
                self.steps.run(step, job_id)
            except Exception as exc:
                log.exception("Unexpected error in job %s (%s)", job_id, step.value)
                self.steps.unexpected(job_id, step, exc)

    def _ensure_client(self) -> None:
        """Make the client for the current settings, outside the lock (worker threads only)."""
        with self._lock:
            config = self._config
            if self._client is not None or self._client_error is not None or config is None:
                return
        if not (config.base_url and config.api_key):
            return
        try:
            client, error = self._client_factory(config, self.stop), None
        except KilnError as exc:
            client, error = None, exc
        with self._lock:
            if self._config is config and self._client is None and self._client_error is None:
                self._client, self._client_error = client, error
            elif client is not None:
                client.close()

    def _wait_while_offline(self, job_id: str, step: Step) -> bool:
        """Online access turned off: keep the job, send nothing, look again shortly."""
        with self._lock:
            if self._config is None or self._config.online:
                return False
            job = self.book.jobs.get(job_id)
            if job is not None and job.state.is_active and self.book.is_own(job):
                self.book.note(job_id, message(OFFLINE_NOTE))
                self.schedule(job_id, step, OFFLINE_WAIT)
            return True

    def _default_client(self, config: ServiceConfig, stop: threading.Event) -> Client:
        """The client, handed this engine's retry policy (see ``api.service.retrying``)."""
        # Imported here: requests and urllib3 cost Blender's start-up ~40 ms, and only a worker needs them.
        from ..service.client import Client

        return Client(config.base_url, config.api_key, retry=self.policy, cancel_event=stop)
