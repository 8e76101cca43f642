"""The scheduler: when each step of each job runs, on which worker thread, with which client.

The job engine has one. Steps wait in a heap by due time; a pool of worker threads takes them in
turn. Each job goes to the service its request names, through that service's client (one per
service, ``api.services``): built by a worker on first use (building one loads ``requests``, which
the UI thread should not pay for), and again after that service's address or key changed. While
Blender's online access is off, steps wait and nothing is sent.
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
from ..http.retrying import RetryPolicy
from ..isolation import ImportHelper
from ..services import info, make_client, old_records_service, service_id
from ..words import catalogue as words
from ..words import message
from .book import JobBook
from .deadlines import Deadlines
from .model import Account, JobState, ServiceConfig
from .steps import Step, StepRunner

if TYPE_CHECKING:
    from ..services.base import GenerationService

log = logging.getLogger(__name__)

OFFLINE_WAIT = 1.0
#: The note of a job waiting while Blender's online access is off.
OFFLINE_NOTE = words.NOTE_WAITING_OFFLINE
#: Makes the interface service's client (outside checks hand one in); other services' come from
#: ``api.services.make_client``.
ClientFactory = Callable[[ServiceConfig, threading.Event], "GenerationService"]


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
        #: Given by outside checks: makes the client of ``ServiceConfig.base_url`` and ``api_key``.
        self._client_factory = client_factory
        self._heap: list[tuple[float, int, str, Step]] = []
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._config: ServiceConfig | None = None
        #: Each service's client, or what stopped one being made, by service id.
        self._clients: dict[str, GenerationService] = {}
        self._client_errors: dict[str, KilnError] = {}
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
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()

    @property
    def threads(self) -> list[threading.Thread]:
        return list(self._threads)

    @property
    def config(self) -> ServiceConfig | None:
        return self._config

    def configure(self, config: ServiceConfig) -> None:
        """Take new settings; a service whose address or key changed gets a fresh client (made by a
        worker on first use). The same snapshot again (the watcher's beat, nothing changed) takes no lock."""
        if config is self._config:
            return
        with self._lock:
            if config == self._config:
                return
            old, self._config = self._config, config
            for service in set(self._clients) | set(self._client_errors):
                if old is None or old.account(service) != config.account(service):
                    client = self._clients.pop(service, None)
                    if client is not None:
                        client.close()
                    self._client_errors.pop(service, None)
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

    def usable_client(self, job_id: str) -> GenerationService | None:
        """Called with the lock held: the client of the job's service, or the job fails with what is
        missing in the settings."""
        service = self._service_of(job_id)
        account = self._config.account(service) if self._config is not None else None
        client = self._clients.get(service)
        if client is not None and account is not None and _set_up(account):
            return client
        if account is None or not account.base_url:
            error = message(words.SERVICE_ADDRESS_MISSING)
        elif not _set_up(account):
            error = message(words.API_KEY_MISSING)
        elif service in self._client_errors:
            error = self._client_errors[service].message
        else:
            error = message(words.SERVICE_NOT_SET_UP)
        error = message(words.SERVICE_SAID, service=info(service).name, said=error)
        self.book.settle(job_id, JobState.FAILED, error=error)
        return None

    def client_for(self, job_id: str) -> GenerationService | None:
        """The client of the job's service, if one could be made (nothing is said on the job)."""
        with self._lock:
            return self._clients.get(self._service_of(job_id))

    def _service_of(self, job_id: str) -> str:
        job = self.book.jobs.get(job_id)
        return job.request.service_id if job is not None else service_id("")

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
            self._ensure_client(job_id)
            try:
                self.steps.run(step, job_id)
            except Exception as exc:
                log.exception("Unexpected error in job %s (%s)", job_id, step.value)
                self.steps.unexpected(job_id, step, exc)

    def _ensure_client(self, job_id: str) -> None:
        """Make the client of the job's service for the current settings, outside the lock (workers only)."""
        with self._lock:
            config, service = self._config, self._service_of(job_id)
            if service in self._clients or service in self._client_errors or config is None:
                return
        account = config.account(service)
        if not _set_up(account):
            return
        try:
            client, error = self._make_client(config, account), None
        except KilnError as exc:
            client, error = None, exc
        with self._lock:
            if self._config is config and service not in self._clients and service not in self._client_errors:
                if client is not None:
                    self._clients[service] = client
                elif error is not None:
                    self._client_errors[service] = error
            elif client is not None:
                client.close()

    def _make_client(self, config: ServiceConfig, account: Account) -> GenerationService:
        if self._client_factory is not None and account.service == old_records_service():
            return self._client_factory(config, self.stop)
        return make_client(
            account.service, account.base_url, account.api_key, retry=self.policy, cancel_event=self.stop
        )

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


def _set_up(account: Account) -> bool:
    """The account can be used: an address, and a key where its service asks for one."""
    return bool(account.base_url and (account.api_key or not info(account.service).needs_key))
