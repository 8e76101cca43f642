"""Cancelling on the service: the worker step that asks a service to stop a task, where it documents
a way (``Capabilities.cancel``; Meshy's DELETE of a task).

The job is already "cancelled" in the list when this runs (the artist's click settled it on the main
thread); the step only asks the service, once, and says in the job's note what came of it. What the
service then charges is the service's business: the note says to count the credits as spent.
"""

from __future__ import annotations

import logging

from ..errors import KilnError
from ..services import info
from ..words import Message, message
from ..words import catalogue as words
from .model import JobState
from .step_context import WorkerStep

log = logging.getLogger(__name__)


class Canceller(WorkerStep):
    """The cancel step: one request to the job's service, the outcome in the job's note."""

    def cancel(self, job_id: str) -> None:
        with self.book.lock:
            job = self.book.current(job_id, JobState.CANCELLED)
            if job is None or not job.task_id:
                return
            client = self.host.client_for(job_id)
            task_id, handle = job.task_id, job.task_handle
            name = info(job.request.service_id).name
        if client is None:
            self._say(job_id, message(words.NOTE_CANCEL_FAILED, details="no client", service=name))
            return
        try:
            client.cancel_task(task_id, handle=handle)
        except KilnError as exc:
            log.info("Cancel of job %s on %s failed: %s", job_id, name, exc.details)
            said = message(words.NOTE_CANCEL_FAILED, details=exc.details or str(exc), service=name)
        else:
            said = message(words.NOTE_CANCELLED_ON_SERVICE, service=name)
        self._say(job_id, said)

    def _say(self, job_id: str, said: Message) -> None:
        with self.book.lock:
            if self.book.current(job_id, JobState.CANCELLED) is not None:
                self.book.settle(job_id, JobState.CANCELLED, note=said)
