"""Credits spent, read from the job list itself: no second file that could drift from it.

Every job that reached the service (its submit left, or it has a task id) was paid when it was
sent; each Retry sent it again and was paid again, except a last attempt the service itself
failed on a service that gives those credits back (``Capabilities.refunds_failed``). Following a
task by its id (``task`` jobs) costs nothing. A job removed from the list leaves the ledger with
it: the figures are Kiln's own record of what it sent, not the service's balance.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from ..jobs import Job, JobKind, JobState
from ..services import info, service_ids
from ..words import Message, english_message, message
from ..words import catalogue as words
from .credits import CreditEstimate, credits_message, request_price

#: The failures the service itself reports: what a refunding service gives back.
SERVICE_FAILURES = frozenset({"TASK_FAILED", "TASK_REFUSED"})


def failed_by_service(job: Job) -> bool:
    """The job's last attempt failed on the service's side (not on the way home)."""
    error = job.error_message
    return job.state is JobState.FAILED and error is not None and error.name in SERVICE_FAILURES


def refunded(job: Job) -> bool:
    """The job's last attempt failed on a service that gives a failed job's credits back."""
    return failed_by_service(job) and info(job.request.service_id).capabilities.refunds_failed


def reached_service(job: Job) -> bool:
    """The job was sent to the service (a followed task never was: it was paid when it was sent)."""
    return job.request.kind is not JobKind.TASK and bool(job.submit_sent or job.task_id)


def job_cost(job: Job, text_cost: int | None = None) -> float | None:
    """Credits ``job`` has cost so far: 0 if never sent, None when its price is unknown."""
    if not reached_service(job):
        return 0
    paid = job.attempt + (0 if refunded(job) else 1)
    price = request_price(job.request, text_cost)
    return None if price is None and paid else (price or 0) * paid


def sent_since(jobs: Iterable[Job], since: float) -> list[Job]:
    """The jobs sent (or, never sent, made) at or after ``since`` (a Unix time)."""
    return [job for job in jobs if (job.submitted_at or job.created_at) >= since]


def spent(jobs: Iterable[Job], text_cost: int | None = None, *, since: float = 0.0) -> CreditEstimate:
    """What the jobs sent at or after ``since`` (a Unix time) cost: known credits, plus unpriced jobs,
    out of the jobs that reached the service (a followed task is none: it cost nothing here)."""
    known: float = 0
    unpriced = sent = 0
    for job in sent_since(jobs, since):
        cost = job_cost(job, text_cost)
        if reached_service(job):
            sent += 1
        if cost is None:
            unpriced += 1
        else:
            known += cost
    return CreditEstimate(known, unpriced, sent)


def month_start(now: float | None = None) -> float:
    """The first moment of the current calendar month, local time (the artist's month)."""
    t = time.localtime(time.time() if now is None else now)
    return time.mktime((t.tm_year, t.tm_mon, 1, 0, 0, 0, 0, 0, -1))


@dataclass(frozen=True)
class Spending:
    """What was spent this session (the line the panel shows) and this month on this computer (for a
    tooltip or a second line: every Kiln's jobs here, not the account's balance). Each service counts
    in its own credits, so a session on several services is said service by service."""

    session: CreditEstimate
    month: CreditEstimate
    #: This session's spending on each service it used (its name, its estimate), when more than one.
    by_service: tuple[tuple[str, CreditEstimate], ...] = ()
    #: This session's failed jobs that cost nothing (refunded) and that are counted at their price.
    failed_free: int = 0
    failed_counted: int = 0

    @property
    def message(self) -> Message:
        """ "This session: 3 jobs, 8 credits, and 1 text job of unknown price"."""
        if not self.session.jobs:
            return message(words.SPENT_NOTHING_THIS_SESSION)
        return _spent(self.session, words.SPENT_THIS_SESSION, words.SPENT_THIS_SESSION_UNPRICED)

    @property
    def messages(self) -> list[Message]:
        """The session's line, or one line per service when it used several ("Tripo: 2 jobs, 40 credits"),
        then what its failed jobs cost ("1 failed job cost nothing: …")."""
        if len(self.by_service) < 2:
            lines = [self.message]
        else:
            lines = [
                _spent(value, words.SPENT_ON_SERVICE, words.SPENT_ON_SERVICE_UNPRICED, service=name)
                for name, value in self.by_service
            ]
        if self.failed_free:
            lines.append(message(words.FAILED_JOBS_REFUNDED, n=self.failed_free))
        if self.failed_counted:
            lines.append(message(words.FAILED_JOBS_COUNTED, n=self.failed_counted))
        return lines

    @property
    def month_message(self) -> Message:
        """ "This month on this computer: 12 jobs, 30 credits"."""
        return _spent(self.month, words.SPENT_THIS_MONTH, words.SPENT_THIS_MONTH_UNPRICED)

    def __str__(self) -> str:
        return english_message(self.message)


def _spent(value: CreditEstimate, entry: str, unpriced_entry: str, **named: str) -> Message:
    """A spending line in plain numbers; its counts are messages of their own, said first."""
    jobs = message(words.JOBS_COUNT, n=value.jobs)
    credits = credits_message(value.known)
    if not value.unpriced:
        return message(entry, jobs=jobs, credits=credits, **named)
    unpriced = message(words.UNPRICED_JOBS, n=value.unpriced)
    return message(unpriced_entry, jobs=jobs, credits=credits, unpriced=unpriced, **named)


def spending(
    session_jobs: Iterable[Job], all_jobs: Iterable[Job], text_cost: int | None, session_start: float
) -> Spending:
    """This session (this Blender's jobs since Kiln started in it) and this month (every Kiln's)."""
    session = list(session_jobs)
    order = service_ids()
    used = sorted({job.request.service_id for job in session}, key=order.index)
    by_service = tuple(
        (info(sid).name, spent([job for job in session if job.request.service_id == sid], text_cost))
        for sid in used
    )
    failed = [job for job in session if job.state is JobState.FAILED and reached_service(job)]
    free = sum(1 for job in failed if refunded(job))
    return Spending(
        spent(session, text_cost, since=session_start),
        spent(all_jobs, text_cost, since=month_start()),
        by_service if len(by_service) > 1 else (),
        failed_free=free,
        failed_counted=len(failed) - free,
    )
