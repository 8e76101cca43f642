"""How long the quality report of one result may take: a time that grows with its triangles.

Every measure's work is already bounded by the triangle count (``uv`` caps its raster work, the
topology is sorting and union-find); the deadline is the guard for what a count cannot foresee
(a slow or busy machine, an unlucky mesh), so a report always ends and an import never waits on it.
A measure that meets the deadline is not measured, and the report says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

#: Seconds any report may take, however small the result ...
SECONDS = 10.0
#: ... plus this much per triangle: 34 s at 1.2M triangles, about ten times what such a report takes.
SECONDS_PER_TRIANGLE = 20e-6


class OutOfTime(Exception):
    """The report's deadline passed inside a measure."""


@dataclass(frozen=True)
class Deadline:
    """The moment (``time.monotonic``) by which the report must be done."""

    at: float = math.inf

    @classmethod
    def for_triangles(cls, triangles: int, seconds: float | None = None) -> Deadline:
        """The default deadline for ``triangles`` from now, or ``seconds`` from now when given."""
        allowed = SECONDS + SECONDS_PER_TRIANGLE * max(triangles, 0) if seconds is None else seconds
        return cls(at=time.monotonic() + allowed)

    @property
    def passed(self) -> bool:
        return time.monotonic() > self.at

    def check(self) -> None:
        """Raise OutOfTime when the deadline has passed (called between a measure's batches)."""
        if self.passed:
            raise OutOfTime
