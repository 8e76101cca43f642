"""Credits spent, read from the job list itself: no second file that could drift from it.

Every job that reached the service (its submit left, or it has a task id) was paid when it was
sent; each Retry sent it again and was paid again. Following a task by its id (``task`` jobs)
costs nothing. A job removed from the list leaves the ledger with it: the figures are Kiln's
own record of what it sent, not the service's balance.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from ..jobs import Job, JobKind
from .credits import CreditEstimate, request_cost


def job_cost(job: Job, text_cost: int | None = None) -> int | None:
    """Credits ``job`` has cost so far: 0 if never sent, None when its price is unknown."""
    if job.request.kind is JobKind.TASK or not (job.submit_sent or job.task_id):
        return 0
    price = request_cost(job.request, text_cost)
    return None if price is None else price * (job.attempt + 1)


def sent_since(jobs: Iterable[Job], since: float) -> list[Job]:
    """The jobs sent (or, never sent, made) at or after ``since`` (a Unix time)."""
    return [job for job in jobs if (job.submitted_at or job.created_at) >= since]


def spent(jobs: Iterable[Job], text_cost: int | None = None, *, since: float = 0.0) -> CreditEstimate:
    """What the jobs sent at or after ``since`` (a Unix time) cost: known credits, plus unpriced jobs."""
    known = unpriced = 0
    for job in sent_since(jobs, since):
        cost = job_cost(job, text_cost)
        if cost is None:
            unpriced += 1
        else:
            known += cost
    return CreditEstimate(known, unpriced)


def month_start(now: float | None = None) -> float:
    """The first moment of the current calendar month, local time (the artist's month)."""
    t = time.localtime(time.time() if now is None else now)
    return time.mktime((t.tm_year, t.tm_mon, 1, 0, 0, 0, 0, 0, -1))


@dataclass(frozen=True)
class Spending:
    """The two figures the panel shows."""

    session: CreditEstimate
    month: CreditEstimate

    def __str__(self) -> str:
        return f"Credits spent: {_short(self.session)} this session, {_short(self.month)} this month"


def _short(value: CreditEstimate) -> str:
    return f"{value.known:,}" + (f" + {value.unpriced} unpriced" if value.unpriced else "")


def spending(
    session_jobs: Iterable[Job], all_jobs: Iterable[Job], text_cost: int | None, session_start: float
) -> Spending:
    """This session (this Blender's jobs since Kiln started in it) and this month (every Kiln's)."""
    return Spending(
        spent(session_jobs, text_cost, since=session_start),
        spent(all_jobs, text_cost, since=month_start()),
    )
