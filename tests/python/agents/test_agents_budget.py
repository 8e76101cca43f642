"""Each agent session's budget and the session table: what may be spent, and who is connected."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from api.agents.budget import Budget, BudgetLimits, Reservation
from api.agents.sessions import MAX_SESSIONS, UNNAMED_AGENT, Sessions, agent_name


def test_reservations_under_a_lock_never_squeeze_past_the_limit() -> None:
    budget = Budget(BudgetLimits(credits=20, jobs=100))
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: budget.reserve(1), range(50)))
    assert sum(isinstance(answer, Reservation) for answer in answers) == 20
    assert budget.spending().credits == 20 and budget.spending().credits_left == 0


def test_a_job_of_unknown_price_counts_against_the_jobs_and_never_as_free_credits() -> None:
    budget = Budget(BudgetLimits(credits=0, jobs=2))
    first = budget.reserve(None)
    assert isinstance(first, Reservation)
    assert isinstance(budget.reserve(None), Reservation)
    spending = budget.spending()
    assert (spending.credits, spending.jobs, spending.unpriced_jobs) == (0, 2, 2)
    assert budget.reserve(None) == (
        "This would go over the agent budget: it needs 1 job, and this session has 0 jobs of 2 left. "
        "Nothing was sent. The artist can raise the budget in Kiln's preferences (Agents)."
    )
    budget.release(first)
    assert budget.spending().unpriced_jobs == 1 and budget.refusal(None) is None


def test_refusals_count_their_words() -> None:
    budget = Budget(BudgetLimits(credits=5, jobs=10))
    assert isinstance(budget.reserve(4), Reservation)
    refusal = budget.refusal(2)
    assert refusal is not None and "it needs 2 credits, and this session has 1 credit of 5 left" in refusal
    assert budget.refusal(1) is None
    assert budget.refusal(1, jobs=3) is not None and "needs 3 credits" in str(budget.refusal(1, jobs=3))


def test_sessions_are_bounded_and_the_longest_unused_goes_first() -> None:
    sessions = Sessions(BudgetLimits())
    opened = [sessions.open("2025-11-25", f"agent {n}") for n in range(MAX_SESSIONS)]
    assert sessions.get(opened[0].id) is opened[0]  # used just now: the first is no longer the oldest
    newest = sessions.open("2025-11-25", "one more")
    assert sessions.get(opened[1].id) is None and sessions.get(opened[0].id) is opened[0]
    assert len(sessions.views()) == MAX_SESSIONS and sessions.get(newest.id) is newest
    assert sessions.end(newest.id) and not sessions.end(newest.id)
    assert sessions.end_all() == MAX_SESSIONS - 1 and sessions.views() == []


def test_an_agents_name_is_its_own_words_made_safe_to_show() -> None:
    assert agent_name({"name": "claude-code", "version": "2.1.0"}) == "claude-code 2.1.0"
    assert agent_name({"name": "evil\u202e\x1b[31m  name\n", "version": 7}) == "evil[31m name"
    assert agent_name({"name": "x" * 500}) == "x" * 64
    assert agent_name(None) == agent_name({"name": ""}) == UNNAMED_AGENT
