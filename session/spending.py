"""The credit guard on the Blender side: what a run will cost, in words, a hard limit, and when to ask.

Every estimate uses the artist's text price when it is set (``preferences.text_cost``); a job of
unknown price is never counted as free: a run of more than one job whose price is unknown asks (in
the UI) or is refused by ``max_credits``, and the first single job of unknown price in a session asks
once, saying why and how to set it (:class:`PriceQuestion`, unless the artist said not to).
Background mode never asks (there is nobody to answer): a script sets ``max_credits=`` instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty

from .. import preferences
from ..api.services import info
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..drawing import dialog_label
from ..language import report, said, text, words_now
from . import runtime
from .blocking import blocks

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.features.credits import CreditEstimate, Priced
    from ..api.jobs import Job, JobRequest

#: When Kiln started in this Blender: "this session" counts jobs sent since.
session_start = time.time()
_cached: tuple[tuple[object, ...], str] | None = None
#: The width of the question about a job of unknown price (pixels at UI scale 1).
QUESTION_WIDTH = 420
#: The question about a job of unknown price was answered in this session: it asks once.
_unknown_price_answered = False
#: The balance left on a service, with what it was worked out from.
_balance_cached: tuple[tuple[object, ...], float] | None = None


def estimate_for(requests: Iterable[Priced], context: bpy.types.Context | None = None) -> CreditEstimate:
    """What these requests will cost at the artist's prices."""
    from ..api.features.credits import estimate  # loaded by the first price asked, not at registration

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


def _text_price_settable(request: Priced) -> bool:
    """A text job of a service whose text price the artist sets (the preferences' Text Job Price)."""
    from ..api.features.credits import takes_text_cost  # loaded by the first price asked, not at registration
    from ..api.jobs import JobKind

    return takes_text_cost(request.service_id) and str(request.kind) == JobKind.TEXT


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
        # The Text Job Price gives the price of text jobs of a service at the artist's address only.
        settable = all(_text_price_settable(r) for r in requests)
        unknown = words.SPEND_QUESTION_UNPRICED if settable else words.SPEND_QUESTION_PRICE_UNKNOWN
        question = report(unknown, n=len(requests))
    else:
        question = report(words.SPEND_QUESTION, n=len(requests), cost=cost_text(cost, for_report=True))
    return context.window_manager.invoke_confirm(
        op,
        event,
        title=report(words.SPEND_TITLE),
        message=f"{question} {note}".strip(),
        confirm_text=report(confirm),
    )


def confirm_spend(
    op: bpy.types.Operator,
    context: bpy.types.Context,
    event: bpy.types.Event,
    request: JobRequest,
    confirm: str,
    jobs: int = 1,
) -> set[OperatorResult]:
    """The one way a paid click asks before it sends (Generate, Re-texture): a job asking exactly the
    same is still running ("another one?"), the price is above the balance the service last gave, or
    above Ask Above, or the session's first job of unknown price. Nobody can be asked in background
    mode: a script is never stopped by a question (``max_credits`` guards it)."""
    requests = [request] * jobs
    cost = estimate_for(requests, context)
    twin = running_twin(request) if jobs == 1 else None
    if twin is not None:
        return ask_another(op, context, event, request, twin)
    over = over_balance_note(cost, request.service_id)
    if over or should_ask(cost, context):
        return ask_first(op, context, event, requests, confirm, over)
    if asks_unknown_price(cost, context) and isinstance(op, PriceQuestion):
        return op.ask_price(context)
    return op.execute(context)


def running_twin(request: JobRequest) -> Job | None:
    """A job of this Blender's still running that asks exactly what ``request`` asks (None in background
    mode, where nobody can be asked: a script's repeat is its own business)."""
    engine = runtime.engine_if_started()
    if engine is None or blocks():
        return None
    from ..api.features.credits import same_request

    return next(
        (job for job in engine.own_jobs() if job.state.is_active and same_request(job.request, request)), None
    )


def ask_another(
    op: bpy.types.Operator, context: bpy.types.Context, event: bpy.types.Event, request: JobRequest, twin: Job
) -> set[OperatorResult]:
    """ "“a lamp” is already being made. Send another one? It costs 4 credits." """
    cost = estimate_for([request], context)
    name = twin.request.label
    if cost.unpriced:
        question = report(words.ANOTHER_ONE_QUESTION_UNPRICED, name=name)
    else:
        question = report(words.ANOTHER_ONE_QUESTION, name=name, cost=cost_text(cost, for_report=True))
    return context.window_manager.invoke_confirm(
        op,
        event,
        title=report(words.ANOTHER_ONE_TITLE),
        message=question,
        confirm_text=report(words.CONFIRM_GENERATE.name),
    )


def over_balance_note(cost: CreditEstimate, service: str, *, for_report: bool = True) -> str:
    """ "This costs 40 credits, more than the 12 credits left on Tripo…", or "" (within it, or unknown)."""
    from ..api.features.credits import credits_message

    left = balance_left(service)
    if left is None or cost.known <= left:
        return ""
    said_over = message(
        words.OVER_BALANCE, cost=cost.message, credits=credits_message(left), service=info(service).name
    )
    return said(said_over, as_report=for_report)


def balance_left(service: str) -> float | None:
    """What the service last said was left (Test Connection), less what this computer's Kiln sent it
    since; None before the service said. Worked out again only when a job's standing changes."""
    global _balance_cached
    from ..api.features.credits import known_balance, left_after

    balance = known_balance(service)
    engine = runtime.engine_if_started()
    if balance is None or engine is None:
        return None if balance is None else balance.amount
    key = (engine.standing, service, balance, preferences.text_cost())
    if _balance_cached is None or _balance_cached[0] != key:
        from ..api.features import ledger

        jobs = [job for job in engine.jobs() if job.request.service_id == service]
        spent = ledger.spent(jobs, preferences.text_cost(), since=balance.at)
        _balance_cached = (key, left_after(balance, spent))
    return _balance_cached[1]


def balance_line(service: str) -> str:
    """ "Tripo: 120 credits left" (what it said, less what was sent since), or "" before the service said."""
    from ..api.features.credits import credits_message

    left = balance_left(service)
    if left is None:
        return ""
    return said(message(words.BALANCE_LEFT, service=info(service).name, credits=credits_message(left)))


def asks_unknown_price(cost: CreditEstimate, context: bpy.types.Context | None = None) -> bool:
    """The first job of unknown price in this session asks once (unless the artist said not to)."""
    return (
        cost.unpriced > 0
        and not _unknown_price_answered
        and not blocks()
        and preferences.get(context).ask_unknown_price
    )


class PriceQuestion:
    """Mixin for a generate operator: the question asked before the first job of unknown price."""

    asked_price: BoolProperty(options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]
    dont_ask_again: BoolProperty(  # type: ignore[valid-type]
        name=words.DONT_ASK_AGAIN.name, description=words.DONT_ASK_AGAIN.tip, options={"SKIP_SAVE"}
    )

    def priced_request(self) -> Priced:
        """The request whose price is asked about (each operator says which)."""
        raise NotImplementedError

    def ask_price(self, context: bpy.types.Context) -> set[OperatorResult]:
        """Ask, in a dialog that says why the price is unknown and how to set it."""
        self.asked_price = True
        return context.window_manager.invoke_props_dialog(
            self,  # type: ignore[arg-type]
            width=QUESTION_WIDTH,
            title=report(words.UNKNOWN_PRICE_TITLE),
            confirm_text=report(words.CONFIRM_GENERATE.name),
        )

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout  # type: ignore[attr-defined]
        request = self.priced_request()
        name = info(request.service_id).name
        settable = _text_price_settable(request)
        if settable:  # a text price the artist can set
            why, how = text(words.UNKNOWN_PRICE_WHY, service=name), text(words.UNKNOWN_PRICE_SET_IT)
        else:  # the panel's own line under Generate (Rodin's fractions of a credit, say)
            why, how = text(words.SERVICE_PRICE_UNKNOWN, service=name), ""
        dialog_label(layout, context, why, QUESTION_WIDTH, icon="QUESTION")
        if how:
            dialog_label(layout, context, how, QUESTION_WIDTH, icon="BLANK1")
        dialog_label(layout, context, text(words.UNKNOWN_PRICE_SEND), QUESTION_WIDTH, icon="BLANK1")
        layout.prop(self, "dont_ask_again")

    def price_answered(self, context: bpy.types.Context) -> None:
        """The artist answered the question (sent): it is not asked again this session, or ever."""
        global _unknown_price_answered
        if not self.asked_price:
            return
        _unknown_price_answered = True
        if self.dont_ask_again:
            preferences.get(context).ask_unknown_price = False


def retry_question(name: str, requests: Sequence[Priced], in_scene: bool) -> str:
    """What Retry will cost, and that the earlier job's result stays, in the artist's words."""
    cost = estimate_for(requests)
    if cost.unpriced:
        question = report(words.RETRY_QUESTION_UNPRICED, name=name)
    else:
        question = report(words.RETRY_QUESTION, name=name, cost=cost_text(cost, for_report=True))
    return f"{question} {report(words.RETRY_KEEPS_RESULT)}" if in_scene else question


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
        from ..api.features import ledger  # loaded by the first line drawn, not at registration

        jobs = engine.jobs()
        # This session's jobs are few: only they are asked whose they are (5,000 stored cost a draw ms).
        session = [job for job in ledger.sent_since(jobs, session_start) if engine.is_own(job)]
        spending = ledger.spending(session, jobs, text_cost, session_start)
        _cached = (key, "; ".join(said(line) for line in spending.messages) if session else "")
    return _cached[1]
