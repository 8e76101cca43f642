"""What a worker step may use of the scheduler, and the ways every step ends.

The steps (``sending``, ``fetching``) see the scheduler only through :class:`StepContext`; the
methods of :class:`WorkerStep`, the base of each, are the ways a step ends: a time limit, an
interruption, a later try, a failure, or something nobody foresaw — each leaves the job with a
sentence.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import KilnError
from ..http.retrying import RetryPolicy
from ..isolation import ImportHelper
from ..words import Entry, Message, message
from ..words import catalogue as words
from .book import JobBook
from .deadlines import Deadlines
from .model import Job, JobState, ServiceConfig

if TYPE_CHECKING:
    from ..services.base import GenerationService

log = logging.getLogger(__name__)

RECORD_WAIT = 60.0


class Step(enum.Enum):
    """What a worker does next for a job: send its request, poll its task, download its mesh."""

    SEND = "send"
    POLL = "poll"
    DOWNLOAD = "download"
    #: Ask the service to cancel a job the artist cancelled (where the service can).
    CANCEL = "cancel"


#: The step that moves a job on from each state it can be resumed in.
STEP_FOR_STATE = {
    JobState.SUBMITTING: Step.SEND,
    JobState.QUEUED: Step.POLL,
    JobState.RUNNING: Step.POLL,
    JobState.DOWNLOADING: Step.DOWNLOAD,
}


class StepContext(Protocol):
    """What the steps need from the scheduler."""

    book: JobBook
    policy: RetryPolicy
    deadlines: Deadlines
    stop: threading.Event
    cache_dir: Path
    import_helper: ImportHelper

    @property
    def config(self) -> ServiceConfig | None: ...

    def schedule(self, job_id: str, step: Step, delay: float) -> None: ...

    def usable_client(self, job_id: str) -> GenerationService | None: ...

    def client_for(self, job_id: str) -> GenerationService | None: ...

    def take_slot(self) -> bool: ...

    def release_slot(self) -> None: ...


def restart_clock(context: StepContext) -> float:
    """A fresh time limit for a job, from the current settings."""
    return time.time() + (context.config.timeout_seconds if context.config else 30 * 60.0)


def wait_recorded(future: Future[int] | None) -> None:
    """Worker threads only: until a handed-over change is on disk (raises StoreError or Conflict)."""
    if future is not None:
        future.result(RECORD_WAIT)


class WorkerStep:
    """A kind of step a worker runs (sending, fetching), with the ways it may end."""

    def __init__(self, context: StepContext) -> None:
        self.host = context
        self.book = context.book
        self._failures: dict[str, int] = {}

    def _timed_out(self, job: Job) -> bool:
        """Called with the lock held: the job's own time limit has passed (its task id is kept)."""
        if job.deadline is None or time.time() <= job.deadline:
            return False
        details = f"task {job.task_id} is kept" if job.task_id else ""
        self.book.settle(job.id, JobState.TIMED_OUT, error=message(words.JOB_TIMED_OUT, details=details))
        return True

    def _interrupted(self, job_id: str, step: Step) -> None:
        """A request was cut short: time limit, cancel, shutdown (resumes next start) or new settings."""
        with self.book.lock:
            job = self.book.current(job_id, JobState.QUEUED, JobState.RUNNING, JobState.DOWNLOADING)
            if job is None or self.host.stop.is_set() or self._timed_out(job):
                return
            self.host.schedule(job_id, step, 0.0)

    def _later(self, job_id: str, step: Step, exc: KilnError, again: Entry) -> None:
        """Try the step again after a pause; the job's note says why and when (``again``: the note,
        ``{problem}`` and ``{seconds}`` its fields)."""
        with self.book.lock:
            job = self.book.current(job_id, JobState.QUEUED, JobState.RUNNING, JobState.DOWNLOADING)
            config = self.host.config
            if job is None or config is None:
                return
            attempt = self._failures[job_id] = self._failures.get(job_id, 0) + 1
            delay = self.host.policy.delay(attempt, exc, base=config.poll_interval)
            log.info(
                "%s of job %s failed (%s: %s); next try in %.1f s",
                step.value,
                job_id,
                type(exc).__name__,
                exc.details,
                delay,
            )
            self.book.note(job_id, message(again, problem=exc.message, seconds=round(delay)))
            self.host.schedule(job_id, step, delay)

    def _fail(self, job_id: str, said: Message, *states: JobState) -> None:
        with self.book.lock:
            if self.book.current(job_id, *(states or (JobState.QUEUED, JobState.RUNNING))) is not None:
                self._failures.pop(job_id, None)
                self.book.settle(job_id, JobState.FAILED, error=said)

    def unexpected(self, job_id: str, step: Step, exc: BaseException) -> None:
        """Anything a step did not foresee is a sentence on the job; a send that may have left is kept."""
        with self.book.lock:
            job = self.book.jobs.get(job_id)
            if job is None or not self.book.is_own(job) or not job.state.is_active:
                return
            sent = job.state is JobState.SUBMITTING and job.submit_sent
            state = JobState.OUTCOME_UNKNOWN if sent else JobState.FAILED
            self.book.settle(job_id, state, error=unexpected(exc, f"the {step.value} step"))


def unexpected(exc: BaseException, during: str) -> Message:
    """Something nobody foresaw, as the job's sentence; what it was and when go to the details (the
    traceback is in the console)."""
    what = (
        f"{type(exc).__name__}: {exc.strerror}"
        if isinstance(exc, OSError) and exc.strerror
        else type(exc).__name__
    )
    return message(words.JOB_UNEXPECTED_PROBLEM, details=f"{what}, during {during}")
