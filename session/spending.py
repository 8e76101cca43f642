"""The credit guard on the Blender side: what a run will cost, a hard limit, and when to ask first.

Background mode never asks (there is nobody to answer): a script sets ``max_credits=`` instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import bpy

from .. import preferences
from ..api.features import ledger
from ..api.features.credits import CreditEstimate, Priced, estimate
from . import runtime
from .blocking import blocks

#: When Kiln started in this Blender: "this session" counts jobs sent since.
session_start = time.time()
_cached: tuple[tuple[int, int | None, int], str] | None = None


def estimate_for(requests: Iterable[Priced], context: bpy.types.Context | None = None) -> CreditEstimate:
    return estimate(requests, preferences.text_cost(context))


def over_limit(cost: CreditEstimate, max_credits: int, what: str) -> str:
    """The sentence refusing a run whose estimate exceeds ``max_credits`` (negative: no limit), or ''."""
    if max_credits < 0 or not cost.exceeds(max_credits):
        return ""
    return (
        f"{what} would cost {cost}, more than the {max_credits:,} credit{'s' if max_credits != 1 else ''} "
        "allowed (max_credits), so nothing was sent."
    )


def should_ask(cost: CreditEstimate, context: bpy.types.Context | None = None) -> bool:
    """The artist asked to confirm runs above their figure; never when nobody can be asked."""
    limit = preferences.get(context).ask_above
    return not blocks() and limit > 0 and cost.exceeds(limit)


def spending_line() -> str:
    """The panel's Credits line; recomputed only when a job changes (cheap to draw)."""
    global _cached
    engine = runtime.engine_if_started()
    if engine is None:
        return ""
    text_cost = preferences.text_cost()
    key = (engine.revision, text_cost, time.localtime().tm_mon)
    if _cached is None or _cached[0] != key:
        jobs = engine.jobs()
        # This session's jobs are few: only they are asked whose they are (5,000 stored cost a draw ms).
        session = [job for job in ledger.sent_since(jobs, session_start) if engine.is_own(job)]
        spending = ledger.spending(session, jobs, text_cost, session_start)
        _cached = (key, str(spending))
    return _cached[1]
