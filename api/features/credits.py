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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ..services import info
from ..words import Message, english_message, message
from ..words import catalogue as words


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


def request_cost(request: Priced, text_cost: int | None = None) -> int | None:
    """Credits one submit of ``request`` costs on its service; None when unknown. ``text_cost`` is the
    artist's own figure for a text job of a service that takes it (:func:`takes_text_cost`)."""
    kind = str(request.kind)
    if kind not in ("text", "image", "retexture"):
        return 0
    price = info(request.service_id).capabilities.price(kind, request.tier_id, request.option_values)
    if price is None and kind == "text" and takes_text_cost(request.service_id):
        return text_cost
    return price


def takes_text_cost(service: str) -> bool:
    """The artist's Text Job Price stands for this service's unpublished text price: a service at an
    address the artist gives (Kiln cannot know its prices); a known service's unknown price stays unknown."""
    return info(service).needs_address


@dataclass(frozen=True)
class CreditEstimate:
    """Credits a run will cost: ``known`` for sure, ``unpriced`` jobs whose price is unknown, out of
    ``jobs`` in all. A job of unknown price is never counted as free."""

    known: int
    unpriced: int = 0
    jobs: int = 0
    #: Jobs that run on the studio's own server (``ServiceInfo.local``): they cost no credits.
    local: int = 0

    def exceeds(self, limit: int) -> bool:
        """More than ``limit`` for sure, or a price that cannot be held against it: a job of unknown
        price in a run of more than one (a single job of unknown price is the artist's own click)."""
        return self.known > limit or (self.unpriced > 0 and self.jobs > 1)

    @property
    def message(self) -> Message:
        """The estimate in plain numbers: "4 credits", "price unknown", "8 credits and 1 text job of
        unknown price" (a count inside a sentence is a message of its own, said first)."""
        if self.jobs and self.local == self.jobs:
            return message(words.LOCAL_NO_CREDITS)
        credits = message(words.CREDITS_COUNT, n=self.known)
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
    known = unpriced = jobs = local = 0
    for request in requests:
        jobs += 1
        local += info(request.service_id).local
        cost = request_cost(request, text_cost)
        if cost is None:
            unpriced += 1
        else:
            known += cost
    return CreditEstimate(known, unpriced, jobs, local)
