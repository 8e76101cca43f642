"""What one agent session may spend: credits and jobs, checked before anything is sent.

A generate call reserves its cost (:meth:`Budget.reserve`) before the host is asked to send, and
gives it back (:meth:`Budget.release`) only when the host said nothing was sent. A job whose price
is unknown (a text job while the artist has set no Text-to-3D cost, :mod:`api.features.credits`)
counts against the job limit and is kept apart as *unpriced*: it is never counted as free credits.
Spending is never given back for a job that failed or was cancelled after it was sent: the service
may have charged for it. Reservations are made under a lock, so two calls at once cannot both
squeeze under the limit.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from . import words
from .limits import DEFAULT_CREDITS, DEFAULT_JOBS


@dataclass(frozen=True)
class BudgetLimits:
    credits: int = DEFAULT_CREDITS
    jobs: int = DEFAULT_JOBS

    def __post_init__(self) -> None:
        if self.credits < 0 or self.jobs < 0:
            raise ValueError("budget limits cannot be negative")


@dataclass(frozen=True)
class Spending:
    """A budget's state, as results and the Sidebar show it."""

    credits: int
    jobs: int
    unpriced_jobs: int
    limits: BudgetLimits

    @property
    def credits_left(self) -> int:
        return max(self.limits.credits - self.credits, 0)

    @property
    def jobs_left(self) -> int:
        return max(self.limits.jobs - self.jobs, 0)

    def to_json(self) -> dict[str, int]:
        return {
            "credits_spent": self.credits,
            "credits_limit": self.limits.credits,
            "jobs_spent": self.jobs,
            "jobs_limit": self.limits.jobs,
            "unpriced_jobs": self.unpriced_jobs,
        }

    def line(self) -> str:
        return words.budget_line(self.credits_left, self.limits.credits, self.jobs_left, self.limits.jobs)


@dataclass(frozen=True)
class Reservation:
    """What one reserved job took from the budget: its credits, or None when its price is unknown."""

    cost: int | None


class Budget:
    def __init__(self, limits: BudgetLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._credits = 0
        self._jobs = 0
        self._unpriced = 0

    def set_limits(self, limits: BudgetLimits) -> None:
        with self._lock:
            self.limits = limits

    def spending(self) -> Spending:
        with self._lock:
            return Spending(self._credits, self._jobs, self._unpriced, self.limits)

    def refusal(self, cost: int | None, jobs: int = 1) -> str | None:
        """Why ``jobs`` jobs at ``cost`` each would go over the budget, or None when they fit."""
        with self._lock:
            return self._refusal(cost, jobs)

    def _refusal(self, cost: int | None, jobs: int) -> str | None:
        spending = Spending(self._credits, self._jobs, self._unpriced, self.limits)
        if jobs > spending.jobs_left:
            return words.budget_refused(
                words.count(jobs, "job", "jobs"),
                words.count(spending.jobs_left, "job", "jobs"),
                f"{self.limits.jobs:,}",
            )
        credits = (cost or 0) * jobs
        if credits > spending.credits_left:
            return words.budget_refused(
                words.count(credits, "credit", "credits"),
                words.count(spending.credits_left, "credit", "credits"),
                f"{self.limits.credits:,}",
            )
        return None

    def reserve(self, cost: int | None) -> Reservation | str:
        """Take one job at ``cost`` from the budget; the refusal sentence when it does not fit."""
        with self._lock:
            refusal = self._refusal(cost, 1)
            if refusal is not None:
                return refusal
            self._jobs += 1
            if cost is None:
                self._unpriced += 1
            else:
                self._credits += cost
            return Reservation(cost)

    def release(self, reservation: Reservation) -> None:
        """Give a reservation back: the host said the job was not sent."""
        with self._lock:
            self._jobs -= 1
            if reservation.cost is None:
                self._unpriced -= 1
            else:
                self._credits -= reservation.cost
