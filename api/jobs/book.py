"""The job table in memory: snapshots every thread may read, changes handed to the store thread.

Every change makes a new ``Job`` value under the lock and hands it to the store thread with a
sequence number; nothing here waits on the disk. A worker that must not act before a change is on
disk (a send, a task id) waits for the future :meth:`JobBook.put` returns (``host.wait_recorded``).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import fs
from ..services import info
from ..services.advice import fitted
from ..words import Message, message
from ..words import catalogue as words
from .disk import inside
from .model import OWNED_STATES, Job, JobEvent, JobState, Owner, sentence
from .owner import is_gone
from .store import Row
from .writer import StoreThread

log = logging.getLogger(__name__)


class JobBook:
    def __init__(self, owner: Owner, cache_dir: Path) -> None:
        self.owner = owner
        self.cache_dir = cache_dir
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.jobs: dict[str, Job] = {}
        #: Ids of the jobs someone still works on (OWNED_STATES): what the scheduler and the pump
        #: look through, so their cost does not grow with the history.
        self.open: set[str] = set()
        self.events: queue.SimpleQueue[JobEvent] = queue.SimpleQueue()
        self.writer: StoreThread | None = None
        #: Sentences about the job store the artist should read (damage recovered, disk trouble).
        self.problems: list[Message] = []
        self.on_taken: Callable[[Job], None] = lambda job: None
        #: Bumped on every change (``revision``), on every change but a running job's progress and
        #: note (``standing``: what the job list's filter and the credits line read), and when a job
        #: comes or goes (``roster``): the panels redo their work over 5,000 rows only when these move.
        self.revision = 0
        self.standing = 0
        self.roster = 0
        self._seq = itertools.count(1)
        self._last_seq = 0
        self._labels: dict[tuple[int, float], str] = {}
        #: Owners found gone at the last look (the store thread looks every heartbeat), so drawing
        #: never asks the operating system about processes.
        self._gone: set[tuple[int, float]] = set()

    # ----------------------------------------------------------------- reading (any thread)

    def is_own(self, job: Job) -> bool:
        return job.owner is not None and job.owner.key == self.owner.key

    def current(self, job_id: str, *states: JobState) -> Job | None:
        """This process's job if it is still in one of ``states`` (it may have been cancelled meanwhile)."""
        job = self.jobs.get(job_id)
        if job is None or job.state not in states or not self.is_own(job):
            return None
        return job

    def where(self, job: Job) -> Message | None:
        """Where another process works on ``job``, as a sentence (None for this process's or a
        finished job). The process id goes to the details."""
        if job.state not in OWNED_STATES or self.is_own(job):
            return None
        if job.owner is None or self.owner_gone(job):
            return message(words.JOB_OWNER_STOPPED)
        return self.elsewhere(words.JOB_RUNS_ELSEWHERE, job)

    def elsewhere(self, entry: str, job: Job) -> Message:
        """``entry`` about a job another live process works on (``{blender}`` names that Blender)."""
        owner = job.owner
        assert owner is not None
        label = self._labels.get(owner.key) or owner.label
        blender: str | Message = label or message(words.ANOTHER_BLENDER)
        return message(entry, details=f"process {owner.pid}", blender=blender)

    def owner_gone(self, job: Job) -> bool:
        return not self.is_own(job) and (job.owner is None or job.owner.key in self._gone)

    def look_at_owners(
        self, heartbeats: dict[tuple[int, float], float], labels: dict[tuple[int, float], str]
    ) -> None:
        """Called with the lock held (at start, then by the store thread): which owners are gone."""
        self._labels = labels
        keys = {job.owner.key for job in self.open_jobs() if job.owner is not None}
        self._gone = {key for key in keys if key != self.owner.key and is_gone(Owner(*key), heartbeats)}

    def open_jobs(self) -> list[Job]:
        """Called with the lock held: the jobs someone still works on (active, or ready to import)."""
        return [self.jobs[job_id] for job_id in self.open]

    # ----------------------------------------------------------------- changing (any thread)

    def keep(self, job: Job) -> None:
        """Called with the lock held: ``job`` is the current value (no save)."""
        self.jobs[job.id] = job
        if job.state in OWNED_STATES:
            self.open.add(job.id)
        else:
            self.open.discard(job.id)

    def put(self, job: Job, *, save: bool = True) -> Future[int] | None:
        """Make ``job`` the current value and hand it to the store thread; never waits."""
        with self.lock:
            self.revision += 1
            old = self.jobs.get(job.id)
            if old is None:
                self.roster += 1
            if (
                old is None
                or replace(old, progress=job.progress, note=job.note, note_message=job.note_message) != job
            ):
                self.standing += 1
            self.keep(job)
            self.changed.notify_all()
            return self._save(job) if save else None

    def change(self, job_id: str, **changes: Any) -> Job:
        with self.lock:
            job = replace(self.jobs[job_id], **changes)
            self.put(job)
            return job

    def note(self, job_id: str, note: Message) -> None:
        """A passing remark shown while a job runs; not worth a write."""
        with self.lock:
            job = self.jobs.get(job_id)
            if job is not None and job.note_message != note:
                self.revision += 1
                self.keep(replace(job, **sentence("note", note)))
                self.emit(self.jobs[job_id])

    def settle(
        self, job_id: str, state: JobState, *, note: Message | None = None, error: Message | None = None
    ) -> Job:
        """A final (or ready) state: saved, announced, and a helper .blend no longer needed is deleted.

        ``note`` replaces the job's note (none: cleared); ``error`` its error (none: kept as it is).
        """
        with self.lock:
            job = self.jobs[job_id]
            changes: dict[str, Any] = {"state": state, "finished_at": time.time(), **sentence("note", note)}
            if error is not None:  # its advice names only controls the job's service has
                changes.update(sentence("error", fitted(error, info(job.request.service_id).capabilities)))
            if state is not JobState.READY and job.blend_path:
                self.discard(job.blend_path)
                changes["blend_path"] = ""
            job = replace(job, **changes)
            self.put(job)
            self.emit(job, job.error_message or note)
            return job

    def remove(self, job_id: str) -> Job | None:
        with self.lock:
            job = self.jobs.pop(job_id, None)
            self.open.discard(job_id)
            self.revision += 1
            self.standing += 1
            self.roster += 1
            if job is not None and self.writer is not None:
                self._last_seq = next(self._seq)
                self.writer.remove(job_id, self._last_seq)
            self.changed.notify_all()
            return job

    def emit(self, job: Job, said: Message | None = None) -> None:
        self.events.put(JobEvent(job.id, job.state, said))
        with self.lock:
            self.changed.notify_all()

    def discard(self, path: str) -> None:
        """Delete a file Kiln made, off this thread, and only inside Kiln's cache."""
        if path and inside(path, self.cache_dir) and self.writer is not None:
            self.writer.later(lambda: fs.discard(Path(path)))

    def add_problem(self, problem: Message) -> None:
        with self.lock:
            if all((p.name, p.values) != (problem.name, problem.values) for p in self.problems):
                self.problems.append(problem)

    def _save(self, job: Job) -> Future[int] | None:
        if self.writer is None:
            return None
        self._last_seq = next(self._seq)
        return self.writer.save(job, self._last_seq)

    # ----------------------------------------------------------------- news from the store thread

    def apply_rows(self, rows: list[Row], removed: list[str]) -> int:
        parsed = []
        for row in rows:
            if row.data is None:
                continue
            try:
                parsed.append(Job.from_json(row.data))
            except (KeyError, TypeError, ValueError) as exc:
                log.info("Job %s is kept as it is on disk; this Kiln cannot read it (%s)", row.id, exc)
        with self.lock:
            known = len(self.jobs)
            fresh = any(job.id not in self.jobs for job in parsed)
            for job in parsed:
                self.keep(job)
            for job_id in removed:
                self.open.discard(job_id)
                fresh = self.jobs.pop(job_id, None) is not None or fresh
            self.revision += 1
            self.standing += 1
            self.roster += fresh
            if len(self.jobs) > known:
                ordered = sorted(self.jobs.values(), key=lambda j: (j.created_at, j.id))
                self.jobs = {job.id: job for job in ordered}
            self.changed.notify_all()
            return self._last_seq

    def takeovers(
        self, heartbeats: dict[tuple[int, float], float], labels: dict[tuple[int, float], str]
    ) -> list[Job]:
        claims = []
        with self.lock:
            self.look_at_owners(heartbeats, labels)
            for job in self.open_jobs():
                if self.owner_gone(job):
                    claims.append(claimed(job, self.owner))
        return claims

    def taken(self, job: Job) -> None:
        log.info("Took over job %s (%s) from a Kiln that has stopped", job.id, job.state.value)
        with self.lock:
            self.keep(job)
            self.emit(job, job.error_message)
        self.on_taken(job)

    def store_problem(self, problem: Message) -> None:
        self.add_problem(problem)

    def known(self) -> list[Job]:
        with self.lock:
            return list(self.jobs.values())


def claimed(job: Job, owner: Owner) -> Job:
    """``job`` as its new owner takes it on; a send that may have left unanswered is never repeated."""
    if job.state is JobState.SUBMITTING and job.task_id:
        return replace(job, owner=owner, state=JobState.QUEUED)
    if job.state is JobState.SUBMITTING and job.submit_sent:
        return replace(
            job,
            owner=owner,
            state=JobState.OUTCOME_UNKNOWN,
            finished_at=time.time(),
            **sentence("error", message(words.JOB_OUTCOME_UNKNOWN_AFTER_STOP)),
        )
    return replace(job, owner=owner)
