"""Batch results side by side: each import takes the next slot of a grid sized by its bounding box.

A mesh's size is only known once it is imported, and batch jobs finish in any order, so the
grid is packed row by row as results arrive: each object is moved so its bounding box starts
a gap after the previous one, and a new row starts below the deepest box of the last. Slots
are reserved by job id when the batch is sent; a result's placement (``session.placement``) takes
its job's grid and moves it into the next slot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mathutils import Vector

GAP_FRACTION = 0.25
MIN_GAP = 0.25


def _gap(size: float) -> float:
    return max(MIN_GAP, GAP_FRACTION * size)


@dataclass
class Grid:
    """Row-by-row packing in the XY plane: columns go +X from ``origin``, rows go -Y."""

    origin: Vector
    columns: int
    count: int = 0
    x: float = 0.0
    y: float = 0.0
    row_depth: float = 0.0

    def slot(self, width: float, depth: float) -> Vector:
        """Where the next box's min-X / max-Y corner goes (world space, Z unchanged)."""
        if self.count and self.count % self.columns == 0:
            self.y -= self.row_depth + _gap(self.row_depth)
            self.x, self.row_depth = 0.0, 0.0
        corner = Vector((self.origin.x + self.x, self.origin.y + self.y, 0.0))
        self.x += width + _gap(width)
        self.row_depth = max(self.row_depth, depth)
        self.count += 1
        return corner


class GridSlots:
    """Which batch grid each job's result goes into, by job id (kept in ``session.state``)."""

    def __init__(self) -> None:
        self._grids: dict[str, Grid] = {}

    def __len__(self) -> int:
        return len(self._grids)

    def reserve(self, job_ids: list[str], origin: Vector) -> None:
        """One grid for these jobs, about square, starting at ``origin``."""
        grid = Grid(origin=origin.copy(), columns=max(1, math.ceil(math.sqrt(len(job_ids)))))
        for job_id in job_ids:
            self._grids[job_id] = grid

    def forget(self, job_ids: list[str]) -> None:
        """Drop the slots of jobs that will not be placed (failed, or the batch is over)."""
        for job_id in job_ids:
            self._grids.pop(job_id, None)

    def clear(self) -> None:
        self._grids.clear()

    def take(self, job_id: str) -> Grid | None:
        """The grid a just-finished job's result goes into (its slot is worked out as it is placed)."""
        return self._grids.pop(job_id, None)
