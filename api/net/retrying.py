"""When the client tries again, and how it waits: one place, so attempts never multiply.

Polls and downloads are idempotent: network errors, 5xx and 429 are retried with capped
exponential backoff and jitter, honouring Retry-After. Waits use ``threading.Event.wait`` so a
cancel event interrupts them at once (:class:`CancelledError`). Submits have their own rule in
the client and use :meth:`Retrying.pause_before` here for the wait only.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..errors import CancelledError, KilnError, NetworkError, RateLimitError, ServiceError

logger = logging.getLogger(__name__)

T = TypeVar("T")
SleepFunction = Callable[[float], object]


class Retrying:
    """The retry policy of one client: ``retries`` extra attempts, ``backoff`` (base, cap) seconds."""

    def __init__(
        self,
        *,
        retries: int,
        backoff: tuple[float, float],
        max_retry_after: float,
        sleep: SleepFunction | None,
        cancel_event: threading.Event | None,
    ) -> None:
        if retries < 0:
            raise ValueError("retries must be >= 0")
        self.retries = retries
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._cancel_event = cancel_event
        self._random = random.Random()

    def check_cancel(self, cancel: threading.Event | None) -> None:
        if any(e is not None and e.is_set() for e in (self._cancel_event, cancel)):
            raise CancelledError()

    def run(self, what: str, once: Callable[[], T], cancel: threading.Event | None) -> T:
        """Run an idempotent operation, retrying network errors, 5xx and 429.

        Other service errors (a non-JSON 200, a redirect loop) will not fix themselves: not retried.
        Anything that is not a Kiln error becomes one: only Kiln errors leave the client.
        """
        for attempt in range(self.retries + 1):
            self.check_cancel(cancel)
            try:
                return once()
            except (NetworkError, ServiceError, RateLimitError) as error:
                status = getattr(error, "status", None)
                if attempt >= self.retries or (isinstance(error, ServiceError) and (status or 500) < 500):
                    raise
                wait = self.wait_for(error, attempt)
                logger.info(
                    "Retrying %s in %.1f s (attempt %d of %d): %s",
                    what,
                    wait,
                    attempt + 2,
                    self.retries + 1,
                    error,
                )
                self.pause(wait, cancel)
            except KilnError:
                raise
            except Exception as exc:
                logger.debug("Unexpected %s during %s", type(exc).__name__, what)
                raise ServiceError(
                    None, f"Kiln could not handle this exchange: {type(exc).__name__}"
                ) from None
        raise AssertionError("unreachable")

    def pause_before(self, attempt: int, error: KilnError, cancel: threading.Event | None) -> None:
        """Wait before attempt ``attempt + 1`` of a submit the service refused outright."""
        wait = self.wait_for(error, attempt)
        logger.info("Submit not taken (no task was made); sending again in %.1f s: %s", wait, error)
        self.pause(wait, cancel)

    def wait_for(self, error: KilnError, attempt: int) -> float:
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return float(min(retry_after, self.max_retry_after))
        base, cap = self.backoff
        delay = min(cap, base * 2**attempt)
        return self._random.uniform(delay / 2, delay)  # half fixed, half random

    def pause(self, seconds: float, cancel: threading.Event | None) -> None:
        """Wait between attempts; returns early (raising CancelledError) when cancelled."""
        self.check_cancel(cancel)
        events = [e for e in (self._cancel_event, cancel) if e is not None]
        if self._sleep is not None:
            self._sleep(seconds)
        elif not events:
            time.sleep(seconds)
        elif len(events) == 1:
            events[0].wait(seconds)
        else:
            deadline = time.monotonic() + seconds
            while not any(e.is_set() for e in events) and (left := deadline - time.monotonic()) > 0:
                events[1].wait(min(left, 0.05))
        self.check_cancel(cancel)
