"""Sending a job: a free slot, the job on disk as "being sent", one request, the task id on disk.

A send is repeated only when the service surely made no task (``api.http.retrying``); anything else that
goes wrong after the request left — an error, an answer Kiln cannot read, an exception nobody
foresaw — is "outcome unknown", keeping whatever task id could be read. The slot is always freed.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import CancelledError, KilnError, OutcomeUnknownError
from ..http.models import Task
from ..words import Message, message
from ..words import catalogue as words
from .disk import StoreError
from .model import Job, JobKind, JobState, sentence
from .service_side import order_of
from .step_context import Step, WorkerStep, restart_clock, unexpected, wait_recorded
from .store import Conflict

if TYPE_CHECKING:
    from ..services.base import GenerationService

log = logging.getLogger(__name__)

SLOT_WAIT = 0.5


class Sender(WorkerStep):
    """The send step: a job's request, sent once it is on disk as being sent."""

    def send(self, job_id: str) -> None:
        book = self.book
        with book.lock:
            job = book.current(job_id, JobState.SUBMITTING)
            if job is None:
                return
            if job.request.kind is JobKind.TASK:  # followed by id: there is nothing to send
                self.host.schedule(job_id, Step.POLL, 0.0)
                return
            client = self.host.usable_client(job_id)
            if client is None:
                return
            if not self.host.take_slot():
                book.note(job_id, message(words.NOTE_WAITING_FOR_TURN))
                self.host.schedule(job_id, Step.SEND, SLOT_WAIT)
                return
            sending = replace(job, submit_sent=True, **sentence("note", message(words.NOTE_SENDING)))
            recorded = book.put(sending)
        try:
            self._send_recorded(job_id, client, sending, recorded)
        finally:
            self.host.release_slot()

    def _send_recorded(
        self, job_id: str, client: GenerationService, job: Job, recorded: Future[int] | None
    ) -> None:
        """Send only once the job (marked as being sent) is on disk: a crash then leaves "outcome unknown"."""
        book = self.book
        try:
            wait_recorded(recorded)
        except Conflict:
            return
        except StoreError as exc:
            with book.lock:
                if book.current(job_id, JobState.SUBMITTING) is not None:
                    book.put(replace(book.jobs[job_id], submit_sent=False), save=False)
                    book.settle(job_id, JobState.FAILED, error=exc.message)
            return
        with book.lock:
            if book.current(job_id, JobState.SUBMITTING) is None:
                return
        attempt = self._failures[job_id] = self._failures.get(job_id, 0) + 1
        try:
            task = client.submit(order_of(job), idempotency_key=stage_key(job))
        except CancelledError:
            self._unsent(job_id, 0.0)
        except OutcomeUnknownError as exc:
            refused = exc.refused_id or ""
            self._after_submit(job_id, None, exc.message, exc.task_id or "", refused=refused)
        except KilnError as exc:
            if self.host.policy.submit_again(exc, attempt):
                self._unsent(job_id, self.host.policy.delay(attempt, exc), exc.message)
            else:
                self._after_submit(job_id, None, exc.message, "", failed=True)
        except Exception as exc:  # an answer Kiln cannot understand: it may have made a task
            log.exception("Unexpected error while sending job %s", job_id)
            self._after_submit(job_id, None, unexpected(exc, "reading the service's answer"), "")
        else:
            self._after_submit(job_id, task, None, "")

    def _unsent(self, job_id: str, delay: float, why: Message | None = None) -> None:
        """No task can exist (never sent, or refused outright): the job may be sent again later."""
        with self.book.lock:
            job = self.book.current(job_id, JobState.SUBMITTING)
            if job is None:
                return
            note = message(words.NOTE_TRYING_AGAIN, problem=why, seconds=round(delay)) if why else None
            self.book.put(replace(job, submit_sent=False, **sentence("note", note)))
            if not self.host.stop.is_set():
                self.host.schedule(job_id, Step.SEND, delay)

    def _after_submit(
        self,
        job_id: str,
        task: Task | None,
        error: Message | None,
        task_id: str,
        failed: bool = False,
        refused: str = "",
    ) -> None:
        book = self.book
        self._failures.pop(job_id, None)
        with book.lock:
            job = book.jobs.get(job_id)
            if job is None or not book.is_own(job):
                return
            if task is None:
                if job.state is JobState.SUBMITTING:
                    book.put(replace(job, task_id=task_id or job.task_id, refused_task_id=refused))
                    state = JobState.FAILED if failed else JobState.OUTCOME_UNKNOWN
                    book.settle(job_id, state, error=error)
                return
            # The task id reaches disk before anything else happens, even for a job cancelled meanwhile.
            changes: dict[str, Any] = {
                "task_id": task.id,
                "task_handle": task.handle,
                "submitted_at": time.time(),
                "deadline": restart_clock(self.host),
                "eta_seconds": task.eta_seconds,
                "resolution": task.resolution or job.request.resolution,
            }
            active = job.state is JobState.SUBMITTING
            if active:
                changes.update(state=JobState.QUEUED, **sentence("note", None))
            job = replace(job, **changes)
            recorded = book.put(job)
        try:
            wait_recorded(recorded)
        except (StoreError, Conflict) as exc:
            log.error("Task id %s of job %s could not be recorded: %s", task.id, job_id, exc)
        if active:
            book.emit(job)
            assert self.host.config is not None
            self.host.schedule(
                job_id, Step.POLL, self.host.policy.poll_interval(self.host.config.poll_interval)
            )


def stage_key(job: Job) -> str:
    """The submit's idempotency key: the job's, and a key of its own for each later stage."""
    return f"{job.idempotency_key}-{job.stage}" if job.stage else job.idempotency_key
