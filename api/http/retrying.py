"""The one retry policy: who retries what, how often, and how long to wait.

Modelled on urllib3's ``Retry`` handed to requests' ``HTTPAdapter(max_retries=…)``: an immutable
value that is asked, and holds no loop of its own. The job engine builds it and hands it to the
client it makes (``Client(…, retry=policy)``); both ask the same value, so the rules below are
written here and nowhere else.

Who retries what
----------------
* **The client makes one attempt per call.** It asks the policy one thing: whether a submit that
  went wrong may have made a task (:meth:`RetryPolicy.submit_verdict`). If it may, the client raises
  ``OutcomeUnknownError`` (with the Idempotency-Key and any task id it could read) instead of the
  error itself. A plain ``Client(base_url, api_key)`` gets :data:`DEFAULT_POLICY` and, like
  requests' own default adapter, never tries again on its own.
* **The job engine's scheduler is the one place a request is made again**: it schedules the step
  later (no worker thread waits meanwhile, the job says why and when, and a crash during the wait
  loses nothing), asking the policy whether and when:
  - **send**: again, with the same Idempotency-Key, only when the service surely made no task —
    never connected, or refused outright (429, or 503 with Retry-After) — at most
    ``submit_attempts`` sends; a 4xx is final; anything else after the request left is "outcome
    unknown" and never sent again by Kiln;
  - **poll**: transient failures — no connection, a 5xx, 429, or a 2xx answer that could not be
    read — poll again until the job's own time limit (a poll that reads nothing changes nothing);
    a 404 or a failed task ends the job with a sentence;
  - **download**: the same transient failures, at most ``download_attempts`` in all;
  - **waits**: capped exponential backoff with jitter; a Retry-After that asks for longer is
    honoured, up to ``max_delay``.
* The artist's **Retry** button is the only way a job is sent as a new task (it costs credits).
* Not the service's business, so not here: Test Connection is asked once (the artist is waiting
  for the answer); a rename or delete held up by a Windows lock is tried again for a moment by
  ``api.fs``.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass

from ..errors import KilnError, NetworkError, RateLimitError, ServiceError


class SubmitVerdict(enum.Enum):
    """What a failed submit means for the task the service may have made."""

    NO_TASK_TRY_AGAIN = "no task was made; sending again is safe"
    NO_TASK_FINAL = "no task was made, and sending again would not help"
    MAY_HAVE_MADE_A_TASK = "outcome unknown: never sent again"


@dataclass(frozen=True)
class RetryPolicy:
    """An immutable value: asked, per step and attempt, whether and when to go again."""

    #: Sends in all, counting the first; only while the service surely made no task.
    submit_attempts: int = 5
    #: Downloads in all, counting the first. Polls go on until the job's own time limit.
    download_attempts: int = 5
    base_delay: float = 1.0
    #: The longest wait, a server's Retry-After included.
    max_delay: float = 60.0
    #: Polling jitter, so many jobs started together do not poll in lockstep.
    poll_jitter: float = 0.10

    def transient(self, error: BaseException) -> bool:
        """An error that may go away on its own: no connection, a 5xx, too many requests, or an
        answer that came (2xx) but could not be read (a proxy's hiccup, a broken reply)."""
        if isinstance(error, ServiceError):
            return error.status is None or error.status >= 500 or 200 <= error.status < 300
        return isinstance(error, NetworkError | RateLimitError)

    def submit_verdict(self, error: BaseException) -> SubmitVerdict:
        """The submit rule. No task only when never connected, refused outright (429, or 503 with
        Retry-After) or answered with a 4xx; anything else after the request left may have made one."""
        if isinstance(error, NetworkError):
            return SubmitVerdict.MAY_HAVE_MADE_A_TASK if error.sent else SubmitVerdict.NO_TASK_TRY_AGAIN
        if isinstance(error, RateLimitError):
            return SubmitVerdict.NO_TASK_TRY_AGAIN
        if isinstance(error, ServiceError):
            if error.status == 503 and error.retry_after is not None:
                return SubmitVerdict.NO_TASK_TRY_AGAIN
            return SubmitVerdict.MAY_HAVE_MADE_A_TASK  # 2xx unreadable, 3xx (a 303 may name a task), 5xx
        return SubmitVerdict.NO_TASK_FINAL  # a 4xx answer, or refused before anything was sent

    def submit_again(self, error: BaseException, attempt: int) -> bool:
        """After send number ``attempt`` (1 for the first) failed with ``error``."""
        again = self.submit_verdict(error) is SubmitVerdict.NO_TASK_TRY_AGAIN
        return again and attempt < self.submit_attempts

    def poll_again(self, error: BaseException) -> bool:
        return self.transient(error)

    def download_again(self, error: BaseException, attempt: int) -> bool:
        """After download number ``attempt`` (1 for the first) failed with ``error``."""
        return attempt < self.download_attempts and self.transient(error)

    def delay(self, attempt: int, error: BaseException | None = None, *, base: float | None = None) -> float:
        """Seconds before the next try after failure number ``attempt``: capped exponential backoff
        from ``base`` with jitter; a server's Retry-After wins when it asks for longer."""
        start = self.base_delay if base is None else base
        wait = min(self.max_delay, start * 2 ** max(0, attempt - 1)) * random.uniform(0.8, 1.2)
        retry_after = getattr(error, "retry_after", None) if isinstance(error, KilnError) else None
        if isinstance(retry_after, int | float) and retry_after > 0:
            wait = max(wait, min(float(retry_after), self.max_delay))
        return wait

    def poll_interval(self, interval: float) -> float:
        return interval * random.uniform(1.0 - self.poll_jitter, 1.0 + self.poll_jitter)


DEFAULT_POLICY = RetryPolicy()
