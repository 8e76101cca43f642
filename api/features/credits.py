"""What a request costs in its service's credits, and what a run of them will cost before it is sent.

Each service's published prices are its capabilities' tiers (``api.services``), written in its own
package. Where a price is not published, the job's cost is unknown; for the text jobs of a service at
the artist's own address (whose prices Kiln cannot know) the artist may enter their own figure (a
preference). Estimates say how many jobs of unknown price they
leave out rather than guess; a run of more than one job with an unknown price is never taken as free
(:meth:`CreditEstimate.exceeds`). Following a task by its id costs nothing: it was paid when it was
sent.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..services import info
from ..words import Message, english_message, message
from ..words import catalogue as words

if TYPE_CHECKING:
    from ..jobs import JobRequest

log = logging.getLogger(__name__)


class Priced(Protocol):
    """The part of a job request that sets its price (``api.jobs.JobRequest`` is one)."""

    @property
    def kind(self) -> object: ...

    @property
    def service_id(self) -> str: ...

    @property
    def tier_id(self) -> str: ...

    @property
    def option_values(self) -> dict[str, object]: ...


def credits_message(amount: float) -> Message:
    """Credits as an artist reads them, the one way every price and balance is said: whole numbers
    as counts ("4 credits"), a fraction as it is ("0.5 credits", never rounded to a whole credit)."""
    shown = round(amount, 2)
    if shown == int(shown):
        return message(words.CREDITS_COUNT, n=int(shown))
    return message(words.CREDITS_FRACTION, amount=f"{shown:,.2f}".rstrip("0"))


def request_price(request: Priced, text_cost: int | None = None) -> float | None:
    """Credits one submit of ``request`` costs on its service, as published (0.5 stays 0.5); None when
    unknown. ``text_cost`` is the artist's own figure for a text job of a service that takes it
    (:func:`takes_text_cost`)."""
    kind = str(request.kind)
    if kind not in ("text", "image", "retexture"):
        return 0
    price = info(request.service_id).capabilities.price(kind, request.tier_id, request.option_values)
    if price is None and kind == "text" and takes_text_cost(request.service_id):
        return text_cost
    return price


def request_cost(request: Priced, text_cost: int | None = None) -> int | None:
    """``request_price`` in whole credits, a fraction counted up (an agent's budget counts whole
    credits: a job is never counted as cheaper than it is)."""
    price = request_price(request, text_cost)
    return None if price is None else math.ceil(price)


def takes_text_cost(service: str) -> bool:
    """The artist's Text Job Price stands for this service's unpublished text price: a service at an
    address the artist gives (Kiln cannot know its prices); a known service's unknown price stays unknown."""
    return info(service).needs_address


@dataclass(frozen=True)
class CreditEstimate:
    """Credits a run will cost: ``known`` for sure, ``unpriced`` jobs whose price is unknown, out of
    ``jobs`` in all. A job of unknown price is never counted as free."""

    known: float
    unpriced: int = 0
    jobs: int = 0
    #: Jobs that run on the studio's own server (``ServiceInfo.local``): they cost no credits.
    local: int = 0

    def exceeds(self, limit: float) -> bool:
        """More than ``limit`` for sure, or a price that cannot be held against it: a job of unknown
        price in a run of more than one (a single job of unknown price is the artist's own click)."""
        return self.known > limit or (self.unpriced > 0 and self.jobs > 1)

    @property
    def message(self) -> Message:
        """The estimate in plain numbers: "4 credits", "price unknown", "8 credits and 1 text job of
        unknown price" (a count inside a sentence is a message of its own, said first)."""
        if self.jobs and self.local == self.jobs:
            return message(words.LOCAL_NO_CREDITS)
        credits = credits_message(self.known)
        if not self.unpriced:
            return credits
        if not self.known:
            unknown_one = self.unpriced == 1 and self.jobs <= 1
            return (
                message(words.PRICE_UNKNOWN) if unknown_one else message(words.UNPRICED_JOBS, n=self.unpriced)
            )
        return message(
            words.CREDITS_AND_UNPRICED,
            credits=credits,
            unpriced=message(words.UNPRICED_JOBS, n=self.unpriced),
        )

    def __str__(self) -> str:
        return english_message(self.message)


def estimate(requests: Iterable[Priced], text_cost: int | None = None) -> CreditEstimate:
    """What sending ``requests`` will cost, with the artist's text price (None: not set) where known."""
    known: float = 0
    unpriced = jobs = local = 0
    for request in requests:
        jobs += 1
        local += info(request.service_id).local
        cost = request_price(request, text_cost)
        if cost is None:
            unpriced += 1
        else:
            known += cost
    return CreditEstimate(known, unpriced, jobs, local)


def same_request(a: JobRequest, b: JobRequest) -> bool:
    """Whether two requests ask the same of the same service (sending the second pays twice for it):
    a text job by the library's key, an image job by its one image, on the same tier and options."""
    from .library_index import request_key

    if a.kind != b.kind or (a.service_id, a.tier_id, a.options) != (b.service_id, b.tier_id, b.options):
        return False
    if str(a.kind) == "text":
        return request_key(a) == request_key(b)
    source = (a.blender_image or a.image_path or a.image_url, a.resolution)
    return (
        str(a.kind) == "image"
        and not a.views
        and bool(source[0])
        and source
        == (
            b.blender_image or b.image_path or b.image_url,
            b.resolution,
        )
    )


@dataclass(frozen=True)
class Balance:
    """Credits a service said were left, and when it said so (a Unix time)."""

    amount: float
    at: float


#: The balance each service last gave (Test Connection), by service id; read by the Sidebar.
_balances: dict[str, Balance] = {}
_balances_lock = threading.Lock()


def note_balance(service: str, answer: Message, at: float | None = None) -> None:
    """Keep the balance a connection check's answer gave ("connected, 12.5 credits left"), if it gave one."""
    if answer.name != "CONNECTED_WITH_BALANCE":
        return
    try:
        amount = float(str(answer.values.get("amount", "")).replace(",", ""))
    except ValueError:
        return
    note_amount(service, amount, at)


def note_amount(service: str, amount: float, at: float | None = None) -> None:
    """Keep a balance the service gave as a number (its balance call)."""
    with _balances_lock:
        _balances[service] = Balance(float(amount), time.time() if at is None else at)


def ask_balance(base_url: str, api_key: str, service: str) -> None:
    """On a worker: ask the service its balance (a free call) and keep it; a failure is only logged,
    the Sidebar keeps what it had."""
    from ..errors import KilnError
    from ..services import make_client

    client = make_client(service, base_url, api_key)
    try:
        amount = client.balance()
    except KilnError as exc:
        log.info("Balance of %s not asked: %s", service, exc.details or exc)
        return
    finally:
        client.close()
    if amount is not None:
        note_amount(service, amount)


def known_balance(service: str) -> Balance | None:
    """What the service last said was left; None before it said."""
    with _balances_lock:
        return _balances.get(service)


def left_after(balance: Balance, spent: CreditEstimate) -> float:
    """The balance less what was sent since it was said (never below nothing)."""
    return max(0.0, balance.amount - spent.known)
