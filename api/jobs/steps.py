"""The worker steps of a job's life — send, poll, download — and the table that names them.

Each step runs on a worker thread, takes what it needs from the job under the lock, does its
network or file work without the lock, and writes the outcome back. A change that must be on disk
before anything is acted on (the send, the task id) is waited for on the worker.
"""

from __future__ import annotations

from collections.abc import Callable

from .fetching import Fetcher
from .host import STEP_FOR_STATE, Step, StepHost, restart_clock
from .model import cache_name
from .sending import Sender


class Steps(Sender, Fetcher):
    """Every step of a job, each run through :data:`STEPS` by a worker thread."""

    def run(self, step: Step, job_id: str) -> None:
        STEPS[step](self, job_id)


STEPS: dict[Step, Callable[[Steps, str], None]] = {
    Step.SUBMIT: Steps.submit,
    Step.POLL: Steps.poll,
    Step.DOWNLOAD: Steps.download,
}

__all__ = ["STEPS", "STEP_FOR_STATE", "Step", "StepHost", "Steps", "cache_name", "restart_clock"]
