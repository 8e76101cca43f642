"""The ledger of credits spent, read from jobs (no Blender needed)."""

from __future__ import annotations

import time

from api.features.credits import CreditEstimate
from api.features.ledger import job_cost, month_start, refunded, spending, spent
from api.jobs import Job, JobRequest, JobState
from api.services import info
from api.words import Message, english_message


def _job(kind: str = "image", resolution: int | None = 1536, **fields: object) -> Job:
    request = JobRequest(kind=kind, prompt="a mug" if kind == "text" else "", resolution=resolution)
    return Job(id="j", request=request, **fields)  # type: ignore[arg-type]


def test_a_job_never_sent_costs_nothing_and_a_sent_one_its_price() -> None:
    assert job_cost(_job()) == 0
    assert job_cost(_job(submit_sent=True)) == 4
    assert job_cost(_job(resolution=1024, task_id="t")) == 2


def test_every_retry_was_paid_again() -> None:
    assert job_cost(_job(submit_sent=True, attempt=2)) == 12


def test_text_is_unpriced_until_the_artist_sets_a_figure_and_following_a_task_is_free() -> None:
    assert job_cost(_job("text", None, submit_sent=True)) is None
    assert job_cost(_job("text", None, submit_sent=True), text_cost=3) == 3
    assert job_cost(_job("task", None, task_id="t")) == 0


def test_spent_counts_only_jobs_sent_since_the_given_time() -> None:
    now = time.time()
    jobs = [
        _job(submit_sent=True, submitted_at=now - 10),
        _job(submit_sent=True, submitted_at=now - 1000),
        _job("text", None, submit_sent=True, submitted_at=now),
    ]
    assert spent(jobs, since=now - 100) == CreditEstimate(4, 1, jobs=2)
    assert spent(jobs, text_cost=5, since=0) == CreditEstimate(13, 0, jobs=3)


def test_month_start_is_the_first_of_this_month_at_midnight() -> None:
    start = time.localtime(month_start())
    now = time.localtime()
    assert (start.tm_year, start.tm_mon, start.tm_mday, start.tm_hour, start.tm_min) == (
        now.tm_year,
        now.tm_mon,
        1,
        0,
        0,
    )


def test_the_panel_line_names_session_and_month() -> None:
    now = time.time()
    text = _job("text", None, submit_sent=True, submitted_at=now)
    image = _job(submit_sent=True, submitted_at=now)
    nothing = spending([], [image], None, now - 5)
    assert str(nothing) == "This session: nothing sent yet"
    assert str(nothing.month_message) == "This month on this computer: 1 job, 4 credits"
    both = spending([image, image, text], [image, text], None, now - 5)
    assert str(both) == "This session: 3 jobs, 8 credits, and 1 text job of unknown price"
    assert str(both.month_message) == (
        "This month on this computer: 2 jobs, 4 credits, and 1 text job of unknown price"
    )
    assert str(spending([image], [image], 3, now - 5)) == "This session: 1 job, 4 credits"


def _failed(service: str, error: str = "TASK_FAILED", **fields: object) -> Job:
    request = JobRequest(kind="image", resolution=None, service=service)
    failure = Message(error)
    return Job(id="f", request=request, state=JobState.FAILED, error_message=failure, **fields)  # type: ignore[arg-type]


def test_a_job_the_service_failed_costs_nothing_where_the_service_gives_credits_back() -> None:
    assert refunded(_failed("tripo", task_id="t"))
    assert job_cost(_failed("tripo", task_id="t")) == 0
    assert job_cost(_failed("tripo", task_id="t", attempt=1)) == job_cost(
        _failed("tripo", task_id="t", attempt=0), 0
    ) + (info("tripo").capabilities.price("image", "") or 0)
    # A download that failed after the service finished was paid: it stays counted.
    assert not refunded(_failed("tripo", "DOWNLOAD_FAILED", task_id="t"))
    # A service that does not say it refunds: counted at its price.
    assert not refunded(_failed("rodin", task_id="t"))


def test_the_session_line_says_what_failed_jobs_cost() -> None:
    now = time.time()
    free = _failed("tripo", task_id="t", submitted_at=now)
    counted = _failed("rodin", task_id="r", submitted_at=now)
    lines = [english_message(m) for m in spending([free, counted], [free, counted], None, now - 5).messages]
    assert "1 failed job cost nothing: the service gives its credits back" in lines
    assert "1 failed job is counted at its price: the service does not say it gives credits back" in lines
    lines = [english_message(m) for m in spending([free], [free], None, now - 5).messages]
    assert lines == [
        "This session: 1 job, 0 credits",
        "1 failed job cost nothing: the service gives its credits back",
    ]
