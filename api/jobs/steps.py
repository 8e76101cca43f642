"""The worker steps of a job's life — send, poll, download — and the one that runs each.

Each step runs on a worker thread, takes what it needs from the job under the lock, does its
network or file work without the lock, and writes the outcome back. A change that must be on disk
before anything is acted on (the send, the task id) is waited for on the worker.
"""

from __future__ import annotations

from .cancelling import Canceller
from .fetching import Fetcher
from .model import cache_name
from .sending import Sender
from .step_context import STEP_FOR_STATE, Step, StepContext, WorkerStep, restart_clock


class StepRunner:
    """Runs a job's next step on the calling worker thread (a sender and a fetcher, each counting tries)."""

    def __init__(self, context: StepContext) -> None:
        sender, fetcher, canceller = Sender(context), Fetcher(context), Canceller(context)
        self._steps = {
            Step.SEND: sender.send,
            Step.POLL: fetcher.poll,
            Step.DOWNLOAD: fetcher.download,
            Step.CANCEL: canceller.cancel,
        }
        self._kinds: dict[Step, WorkerStep] = {
            Step.SEND: sender,
            Step.POLL: fetcher,
            Step.DOWNLOAD: fetcher,
            Step.CANCEL: canceller,
        }

    def run(self, step: Step, job_id: str) -> None:
        self._steps[step](job_id)

    def unexpected(self, job_id: str, step: Step, exc: BaseException) -> None:
        """Something the step did not foresee: a sentence on the job (a send that may have left is kept)."""
        self._kinds[step].unexpected(job_id, step, exc)


__all__ = ["STEP_FOR_STATE", "Step", "StepContext", "StepRunner", "cache_name", "restart_clock"]
