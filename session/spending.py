"""The credit guard on the Blender side: what a run will cost, in words, a hard limit, and when to ask.

Every estimate uses the artist's text price when it is set (``preferences.text_cost``); a job of
unknown price is never counted as free: a run of more than one job whose price is unknown asks (in
the UI) or is refused by ``max_credits``. Background mode never asks (there is nobody to answer): a
script sets ``max_credits=`` instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.features import ledger
from ..api.features.credits import CreditEstimate, Priced, estimate
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..language import report, said, words_now
from . import runtime
from .blocking import blocks

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

#: When Kiln started in this Blender: "this session" counts jobs sent since.
session_start = time.time()
_cached: tuple[tuple[object, ...], str] | None = None


def estimate_for(requests: Iterable[Priced], context: bpy.types.Context | None = None) -> CreditEstimate:
    """What these requests will cost at the artist's prices."""
    return estimate(requests, preferences.text_cost(context))


def cost_text(cost: CreditEstimate, *, for_report: bool = False) -> str:
    """A cost in plain numbers: "4 credits", "price unknown", "8 credits and 1 text job of unknown price"."""
    return said(cost.message, as_report=for_report)


def over_limit(cost: CreditEstimate, max_credits: int) -> Message | None:
    """Why a run must not be sent under ``max_credits`` (negative: no limit), or None."""
    if max_credits < 0 or not cost.exceeds(max_credits):
        return None
    if cost.known > max_credits:
        return message(words.OVER_LIMIT, cost=cost_text(cost, for_report=True), n=max_credits)
    return message(words.OVER_LIMIT_UNKNOWN_PRICE, n=cost.unpriced, limit=max_credits)


def should_ask(cost: CreditEstimate, context: bpy.types.Context | None = None) -> bool:
    """The artist asked to confirm runs above their figure; never when nobody can be asked."""
    limit = preferences.get(context).ask_above
    return not blocks() and limit > 0 and cost.exceeds(limit)


def ask_first(
    op: bpy.types.Operator,
    context: bpy.types.Context,
    event: bpy.types.Event,
    requests: Sequence[Priced],
    confirm: str,
    note: str = "",
) -> set[OperatorResult]:
    """Ask before sending: how many jobs and what they cost (and ``note``, already in words)."""
    cost = estimate_for(requests, context)
    if cost.known == 0 and cost.unpriced:
        question = report(words.SPEND_QUESTION_UNPRICED, n=len(requests))
    else:
        question = report(words.SPEND_QUESTION, n=len(requests), cost=cost_text(cost, for_report=True))
    return context.window_manager.invoke_confirm(
        op,
        event,
        title=report(words.SPEND_TITLE),
        message=f"{question} {note}".strip(),
        confirm_text=report(confirm),
    )


def spending_line() -> str:
    """The panel's credits line, in plain numbers and the artist's words: worked out again only when
    a job's standing, the price or the month changes, or Blender's language (not at every draw)."""
    global _cached
    engine = runtime.engine_if_started()
    if engine is None:
        return ""
    text_cost = preferences.text_cost()
    key = (engine.standing, text_cost, time.localtime().tm_mon, words_now())
    if _cached is None or _cached[0] != key:
        jobs = engine.jobs()
        # This session's jobs are few: only they are asked whose they are (5,000 stored cost a draw ms).
        session = [job for job in ledger.sent_since(jobs, session_start) if engine.is_own(job)]
        spending = ledger.spending(session, jobs, text_cost, session_start)
        _cached = (key, "; ".join(said(line) for line in spending.messages) if session else "")
    return _cached[1]
