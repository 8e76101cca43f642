"""The job engine: the public face the operators, the panels and outside checks use.

``start`` is all or nothing: it opens the store (recovering and migrating as needed), registers
this process as an owner, loads the unfinished jobs (through an index: the history is read later
by the store thread), takes over those whose owner is gone, and starts the threads — or raises
StoreError having started nothing. The main-thread methods never wait on the disk, the network
or a lock held across either.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import fs
from ..errors import InputError, KilnError
from ..http.retrying import DEFAULT_POLICY, RetryPolicy
from ..isolation import ImportHelper
from ..services import info
from ..words import Message, as_message, message
from ..words import catalogue as words
from .book import JobBook, claimed
from .disk import CACHE_DIR, UPLOADS_DIR, StoreError, inside
from .model import (
    OWNED_STATES,
    Job,
    JobEvent,
    JobKind,
    JobRequest,
    JobState,
    Owner,
    ServiceConfig,
    new_job_id,
    sentence,
)
from .owner import this_process
from .scheduler import Scheduler
from .service_side import cancels_on_service, refusal_of
from .steps import STEP_FOR_STATE, Step, restart_clock
from .store import JobStore
from .writer import StoreThread

if TYPE_CHECKING:
    from ..services.base import GenerationService

log = logging.getLogger(__name__)


class EngineNotRunning(KilnError):
    """A wait was asked of an engine with no workers."""


class JobElsewhere(KilnError):
    """An action that only a job's owner may take, asked of another process's job."""


class JobEngine:
    """Owns this process's share of the job store; its scheduler's threads move the jobs along."""

    def __init__(
        self,
        state_dir: Path,
        *,
        workers: int = 4,
        client_factory: Callable[[ServiceConfig, threading.Event], GenerationService] | None = None,
        label: str = "",
        policy: RetryPolicy = DEFAULT_POLICY,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.cache_dir = self.state_dir / CACHE_DIR
        #: How other processes' job lists name this one ("": "another Blender"); never its pid, which
        #: they keep for the details.
        self._label = label
        self._writer: StoreThread | None = None
        book = JobBook(Owner(os.getpid(), 0.0), self.cache_dir)
        self.scheduler = Scheduler(book, workers, client_factory, policy, self.cache_dir)

    @property
    def book(self) -> JobBook:
        """The job table in memory (the store thread keeps it and the file in step)."""
        return self.scheduler.book

    @property
    def import_helper(self) -> ImportHelper:
        """The warm helper Blender that opens every downloaded mesh (``api.isolation``)."""
        return self.scheduler.import_helper

    @property
    def threads(self) -> list[threading.Thread]:
        return self.scheduler.threads

    @property
    def config(self) -> ServiceConfig | None:
        return self.scheduler.config

    def configure(self, config: ServiceConfig) -> None:
        """Take new settings; a changed URL or key gets a fresh client."""
        self.scheduler.configure(config)

    # ----------------------------------------------------------------- life of the engine

    def start(self, config: ServiceConfig | None = None) -> None:
        """Open the store, take up this process's jobs, start the threads; or raise StoreError, do nothing."""
        if self.threads:
            return
        if config is not None:
            self.configure(config)
        self.scheduler.stop.clear()
        store = JobStore(self.state_dir)
        store.open()
        owner = this_process(self._label)
        try:
            if not store.read_only:
                store.beat(owner)
            rows = store.load(state.value for state in OWNED_STATES)
            heartbeats, labels = store.heartbeats(), store.owner_labels()
        except Exception as exc:
            store.close()
            raise _as_store_error(store, exc) from exc
        book = JobBook(owner, self.cache_dir)
        self.scheduler.use(book)
        book.problems.extend(store.problems)
        book.apply_rows(rows, [])
        book.look_at_owners(heartbeats, labels)
        revs = {row.id: row.rev for row in rows}
        for job in book.open_jobs():
            if not store.read_only and book.owner_gone(job):
                self._claim_at_start(store, job, revs)
        book.on_taken = self._resume
        self._writer = book.writer = StoreThread(store, owner, book, revs)
        self._writer.start()
        self.scheduler.start_workers()
        for job in list(book.jobs.values()):
            if book.is_own(job):
                self._resume(job)

    def _claim_at_start(self, store: JobStore, job: Job, revs: dict[str, int]) -> None:
        taken = claimed(job, self.book.owner)
        try:
            revs[job.id] = store.put(job.id, taken.state.value, taken.to_json(), revs[job.id])
        except Exception as exc:  # changed meanwhile, or the disk refused: left to its current owner
            log.info("Job %s was not taken over at start: %s", job.id, exc)
            return
        self.book.keep(taken)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop the threads; jobs stay on disk and the next Kiln (or start) takes them up."""
        self.scheduler.stop_workers(timeout)
        if self._writer is not None:
            self._writer.stop(timeout)
            self._writer = self.book.writer = None
        self.import_helper.close()
        self.scheduler.close_client()

    # ----------------------------------------------------------------- main-thread API (never waits)

    def record(self, request: JobRequest, *, origin: str = "", group: str = "") -> Job:
        """Record a new job; it is sent once the store thread has it on disk. Raises StoreError, or
        InputError when its service does not take what it asks (nothing is recorded or sent)."""
        refused = refusal_of(request)
        if refused is not None:
            raise InputError(refused)
        self._refuse_if_unrecordable()
        job = Job(id=new_job_id(), request=request, origin=origin, group=group, owner=self.book.owner)
        return self._add(job, Step.SEND)

    #: The contract name outside checks drive (ARCHITECTURE.md): recording is what it does.
    submit = record

    def resume_task(self, task_id: str, request: JobRequest | None = None, *, origin: str = "") -> Job:
        """Follow a task submitted elsewhere (or earlier) by its id, exactly as given (spaces are part of
        an id): its Retry resumes, never sends."""
        self._refuse_if_unrecordable()
        request = replace(request or JobRequest(kind=JobKind.TASK), kind=JobKind.TASK)
        job = Job(
            id=new_job_id(),
            request=request,
            origin=origin,
            state=JobState.QUEUED,
            task_id=task_id,
            submit_sent=True,
            deadline=restart_clock(self.scheduler),
            owner=self.book.owner,
        )
        return self._add(job, Step.POLL)

    def _add(self, job: Job, step: Step) -> Job:
        with self.book.lock:
            recorded = self.book.put(job)
            self.book.emit(job)
        assert recorded is not None
        recorded.add_done_callback(lambda done: self._recorded(job.id, step, done.exception()))
        return job

    def _recorded(self, job_id: str, step: Step, error: BaseException | None) -> None:
        """Store thread: the new job is on disk, so it may be sent — or it is not, and nothing is."""
        with self.book.lock:
            if self.book.current(job_id, JobState.SUBMITTING, JobState.QUEUED) is None:
                return
            if error is None:
                self.scheduler.schedule(job_id, step, 0.0)
                return
            said = (
                error.message
                if isinstance(error, KilnError)
                else message(words.JOB_LIST_FAILED, details=f"{type(error).__name__}: {error}")
            )
            self.book.settle(job_id, JobState.FAILED, error=said)

    def resume(self, job_id: str) -> None:
        """Poll a timed-out (or failed-while-polling) task again, with a fresh time limit."""
        with self.book.lock:
            job = self._own_or_take(job_id)
            if not job.task_id:
                raise KeyError(job_id)
            self.book.change(
                job_id,
                state=JobState.QUEUED,
                deadline=restart_clock(self.scheduler),
                **sentence("error", None),
                **sentence("note", None),
            )
            self.book.emit(self.book.jobs[job_id])
            self.scheduler.schedule(job_id, Step.POLL, 0.0)

    def retry(self, job_id: str) -> None:
        """Submit the same request again as a new task (costs credits); a followed task is polled again."""
        with self.book.lock:
            job = self._own_or_take(job_id)
            if job.request.kind is JobKind.TASK:
                self.resume(job_id)
                return
            for path in (job.blend_path, job.mesh_path, job.preview_path):
                self.book.discard(path)
            fresh = Job(
                id=job.id,
                request=job.request,
                origin=job.origin,
                group=job.group,
                owner=self.book.owner,
                attempt=job.attempt + 1,
            )
            self.book.put(fresh)
            self.book.emit(fresh)
            self.scheduler.schedule(job_id, Step.SEND, 0.0)

    def cancel(self, job_id: str) -> bool:
        """Stop a job. Where its service documents a cancel and a task was made, a worker then asks
        the service (True: it will); elsewhere Kiln stops waiting and the task may still finish there."""
        with self.book.lock:
            job = self._own_or_take(job_id)
            if job.state in (JobState.IMPORTED, JobState.CANCELLED):
                return False
            on_service = cancels_on_service(job)
            note = (
                message(words.NOTE_CANCELLING, service=info(job.request.service_id).name)
                if on_service
                else message(words.NOTE_STOPPED_WAITING)
            )
            self.book.settle(job_id, JobState.CANCELLED, note=note)
            if on_service:
                self.scheduler.schedule(job_id, Step.CANCEL, 0.0)
        self.scheduler.deadlines.cancel(job_id)
        return on_service

    def remove(self, job_id: str) -> None:
        """Take a job off the list (any process's, once it is not being worked on)."""
        with self.book.lock:
            job = self.book.jobs.get(job_id)
            if job is None:
                return
            if job.state.is_active and not self.book.is_own(job) and not self.book.owner_gone(job):
                raise JobElsewhere(self.book.elsewhere(words.JOB_RUNS_ELSEWHERE_CANCEL_THERE, job))
            self.book.remove(job_id)
            self.book.discard(job.blend_path)
            self._discard_uploads(job)

    def _discard_uploads(self, job: Job) -> None:
        """Kiln's own copies of a removed job's images (a Blender image, an agent's image or view, the
        prepared image, a mesh exported for a re-texture), never the artist's own files."""
        uploads = self.state_dir / UPLOADS_DIR
        request = job.request
        kilns_copy = bool(request.blender_image or request.agent)
        ours = [(request.image_path, kilns_copy), (request.image_sent, True), (request.model_path, True)]
        ours += [(view, True) for view in request.views]
        for path, kilns in ours:
            upload = Path(path)
            if path and kilns and inside(upload, uploads) and self._writer:
                self._writer.later(functools.partial(fs.discard, upload))

    def mark_imported(self, job_id: str, objects: Iterable[str], into: str = "") -> None:
        """The job's mesh is in this Blender's scene (``into``: that .blend's identity). Another live
        Blender's job stays as it is for it (it still imports it into its own file)."""
        with self.book.lock:
            if self.runs_elsewhere(self.book.jobs[job_id]):
                return
            self.book.change(job_id, objects=list(objects), imported_into=into)
            self.book.settle(job_id, JobState.IMPORTED)

    def mark_failed(self, job_id: str, said: Message | str) -> None:
        """A step on the main thread (the import) failed; keep the job with the sentence (a text from
        outside the catalogue is kept as it is)."""
        with self.book.lock:
            if self.runs_elsewhere(self.book.jobs[job_id]):
                return
            self.book.settle(job_id, JobState.FAILED, error=as_message(said))

    def set_origin(self, old: str, new: str) -> None:
        """The .blend a job belongs to (or its result went into) was saved under a (new) name."""
        with self.book.lock:
            for job in list(self.book.jobs.values()):
                if job.origin == old and self.book.is_own(job):
                    self.book.change(job.id, origin=new)
                if job.imported_into == old and self.book.is_own(job):
                    self.book.change(job.id, imported_into=new)

    # ----------------------------------------------------------------- reading (cheap, no copies)

    def get(self, job_id: str) -> Job | None:
        return self.book.jobs.get(job_id)

    def jobs(self) -> list[Job]:
        """Every job on this machine, oldest first (snapshots: never changed in place)."""
        with self.book.lock:
            return list(self.book.jobs.values())

    def own_jobs(self) -> list[Job]:
        """The jobs this process owns (started here, or taken over from a Kiln that stopped)."""
        with self.book.lock:
            return [job for job in self.book.jobs.values() if self.book.is_own(job)]

    @property
    def revision(self) -> int:
        """Changes whenever any job changes (cheap to compare: for drawing code)."""
        return self.book.revision

    @property
    def standing(self) -> int:
        """Changes whenever a job changes in more than its progress and note (what lists and sums read)."""
        return self.book.standing

    @property
    def roster(self) -> int:
        """Changes whenever a job is added to or removed from the list."""
        return self.book.roster

    def is_own(self, job: Job) -> bool:
        return self.book.is_own(job)

    def where(self, job: Job) -> Message | None:
        """For the panel: where another Kiln works on ``job``, as a sentence (None when here, or finished)."""
        return self.book.where(job)

    def runs_elsewhere(self, job: Job) -> bool:
        """Another live Kiln works on ``job``: only it may send, poll, download or cancel it."""
        return job.state in OWNED_STATES and not self.book.is_own(job) and not self.book.owner_gone(job)

    def store_problems(self) -> list[str]:
        """Sentences about the job store the artist should read (damage recovered, disk trouble), in
        English; :meth:`store_problem_messages` has them to say in the artist's language."""
        return [str(problem) for problem in self.store_problem_messages()]

    def store_problem_messages(self) -> list[Message]:
        """What :meth:`store_problems` says, as messages (their details name files and causes)."""
        with self.book.lock:
            return list(self.book.problems)

    def ready_for(self, origin: str) -> Job | None:
        """This process's first finished, not yet imported job started from ``origin``."""
        with self.book.lock:
            ready = (
                j
                for j in self.book.open_jobs()
                if j.state is JobState.READY and j.origin == origin and self.book.is_own(j)
            )
            return min(ready, key=lambda j: j.created_at, default=None)

    def has_active(self) -> bool:
        with self.book.lock:
            return any(job.state.is_active and self.book.is_own(job) for job in self.book.open_jobs())

    def drain_events(self, limit: int = 1000) -> list[JobEvent]:
        """Everything that happened to this process's jobs since the last call; never blocks."""
        events: list[JobEvent] = []
        with contextlib.suppress(queue.Empty):
            while len(events) < limit:
                events.append(self.book.events.get_nowait())
        return events

    def wait_for_history(self, timeout: float = 30.0) -> bool:
        """Background mode: until the whole list (finished jobs too) has been read once."""
        return self._writer is not None and self._writer.synced.wait(timeout)

    def wait(self, job_ids: Iterable[str], timeout: float | None = None) -> bool:
        """Block until every job is settled (background mode only). False on timeout.

        Raises EngineNotRunning at once when no worker runs (nothing would ever settle them).
        """
        if not self.threads:
            raise EngineNotRunning(words.ENGINE_NOT_RUNNING)
        ids = list(job_ids)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.book.changed:
            while True:
                jobs = self.book.jobs
                if not any(i in jobs and jobs[i].state.is_active for i in ids):
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self.book.changed.wait(min(remaining, 1.0) if remaining is not None else 1.0)

    # ----------------------------------------------------------------- internals

    def _refuse_if_unrecordable(self) -> None:
        if self._writer is None:
            raise EngineNotRunning(words.ENGINE_NOT_RUNNING)
        if self._writer.store.read_only:
            raise StoreError(self.book.problems[0], self.state_dir)

    def _own_or_take(self, job_id: str) -> Job:
        """Called with the lock held: the job, made this process's when its owner is gone."""
        job = self.book.jobs[job_id]
        if self.book.is_own(job):
            return job
        if job.state in OWNED_STATES and not self.book.owner_gone(job):
            raise JobElsewhere(self.book.elsewhere(words.JOB_RUNS_ELSEWHERE_DO_THERE, job))
        job = replace(job, owner=self.book.owner)
        self.book.put(job)
        return job

    def _resume(self, job: Job) -> None:
        step = STEP_FOR_STATE.get(job.state)
        if step is not None:
            self.scheduler.schedule(job.id, step, 0.0)


def _as_store_error(store: JobStore, exc: Exception) -> StoreError:
    from .disk import store_error

    return exc if isinstance(exc, StoreError) else store_error(store.folder, exc)
