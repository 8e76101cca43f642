"""The one retry policy of the engine: what is tried again, how often, and how long to wait.

The engine's client makes exactly one attempt per call (``retries=0``), so this policy is the only
place attempts are counted and they never multiply (the old engine's five download attempts of
five client attempts each made 25). See the package docstring for who retries what.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import KilnError, NetworkError, RateLimitError, ServiceError


@dataclass(frozen=True)
class RetryPolicy:
    """An immutable value: the engine asks it, per step and attempt, whether and when to go again."""

    #: A submit is sent again only when the service surely made no task (see ``submit_may_retry``).
    submit_attempts: int = 5
    #: Polls are cheap and idempotent: they go on until the job's own time limit.
    download_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    #: Polling jitter, so many jobs started together do not poll in lockstep.
    poll_jitter: float = 0.10

    def transient(self, error: BaseException) -> bool:
        """An error that may go away on its own: no connection, a 5xx, too many requests, or an answer
        that came (2xx) but could not be read: a proxy's hiccup or a broken reply, and a poll that
        reads nothing changes nothing, so it goes on until the job's own time limit."""
        if isinstance(error, ServiceError):
            return error.status is None or error.status >= 500 or 200 <= error.status < 300
        return isinstance(error, NetworkError | RateLimitError)

    def submit_may_retry(self, error: BaseException, attempt: int) -> bool:
        """Only when no task can exist: never connected, or refused (429, or 503 with Retry-After)."""
        if attempt >= self.submit_attempts:
            return False
        if isinstance(error, NetworkError):
            return not error.sent
        if isinstance(error, RateLimitError):
            return True
        return isinstance(error, ServiceError) and error.status == 503 and error.retry_after is not None

    def download_may_retry(self, error: BaseException, attempt: int) -> bool:
        return attempt < self.download_attempts and self.transient(error)

    def poll_may_retry(self, error: BaseException) -> bool:
        return self.transient(error)

    def delay(self, attempt: int, error: BaseException | None = None, *, base: float | None = None) -> float:
        """Capped exponential backoff with jitter; a server's Retry-After wins when it asks for longer."""
        start = self.base_delay if base is None else base
        wait = min(self.max_delay, start * 2 ** max(0, attempt - 1)) * random.uniform(0.8, 1.2)
        retry_after = getattr(error, "retry_after", None) if isinstance(error, KilnError) else None
        if isinstance(retry_after, int | float) and retry_after > 0:
            wait = max(wait, min(float(retry_after), self.max_delay))
        return wait

    def poll_interval(self, interval: float) -> float:
        return interval * random.uniform(1.0 - self.poll_jitter, 1.0 + self.poll_jitter)


DEFAULT_POLICY = RetryPolicy()
