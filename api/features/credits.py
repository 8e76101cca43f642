"""What a request costs in the service's credits, and what a run of them will cost before it is sent.

The service publishes image-to-3D prices only (2 credits at 1024, 4 at 1536, 1536 by default).
Text-to-3D's price is not published: the artist may enter their own figure (a preference);
until then a text job's cost is unknown, and estimates say how many such jobs they leave out
rather than guess. Following a task by its id costs nothing: it was paid when it was sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

IMAGE_COSTS = {1024: 2, 1536: 4}
IMAGE_DEFAULT_RESOLUTION = 1536


class Priced(Protocol):
    """The part of a job request that sets its price (``api.jobs.JobRequest`` is one)."""

    @property
    def kind(self) -> object: ...

    @property
    def resolution(self) -> int | None: ...


def request_cost(request: Priced, text_cost: int | None = None) -> int | None:
    """Credits one submit of ``request`` costs; None when unknown (text, with no figure set)."""
    kind = str(request.kind)
    if kind == "image":
        return IMAGE_COSTS.get(request.resolution or IMAGE_DEFAULT_RESOLUTION, IMAGE_COSTS[1536])
    if kind == "text":
        return text_cost
    return 0


@dataclass(frozen=True)
class CreditEstimate:
    """Credits a run will cost: ``known`` for sure, plus ``unpriced`` jobs whose price is unknown."""

    known: int
    unpriced: int = 0

    def exceeds(self, limit: int) -> bool:
        """More than ``limit`` for sure (unpriced jobs count as free: they cannot be held against it)."""
        return self.known > limit

    def __str__(self) -> str:
        credits = f"{self.known:,} credit{'s' if self.known != 1 else ''}"
        if not self.unpriced:
            return credits
        jobs = f"{self.unpriced} text job{'s' if self.unpriced != 1 else ''}"
        return f"{credits} plus {jobs} at a price not set (Kiln's preferences: Text-to-3D cost)"


def estimate(requests: Iterable[Priced], text_cost: int | None = None) -> CreditEstimate:
    known = unpriced = 0
    for request in requests:
        cost = request_cost(request, text_cost)
        if cost is None:
            unpriced += 1
        else:
            known += cost
    return CreditEstimate(known, unpriced)
