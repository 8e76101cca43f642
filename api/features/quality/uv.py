"""How much of a UV layout is covered twice: the texture space two places of the surface share.

Measured on a raster of the UV square: each triangle marks the texel centres strictly inside it,
and the share is texels marked twice or more over texels marked at all. Triangles smaller than a
texel mark nothing, which leaves the share of a dense, sound layout unchanged. Plain numpy.

The work grows with the triangles, never with the coordinates:

- a triangle marks one span per raster row it crosses (the ends of the span in a difference
  array), so a row costs the same however wide the triangle is;
- when all triangles together cross more rows than a budget that grows with their count (long thin
  triangles across the whole square), only every so many raster rows are marked: the share is
  then an estimate, and the result says so;
- a layout whose triangles hold more UV area than :data:`REPEATS_AREA` squares repeats its texture
  (a tiling texture, UVs in the thousands, random coordinates): folded onto one square it overlaps
  everywhere by design, so it is not measured, and the result says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...words import catalogue as words
from ...words import english
from .budget import Deadline

REPEATS = english(words.UV_REPEATS)
NOT_NUMBERS = english(words.UV_NOT_NUMBERS)
SAMPLED = english(words.UV_SAMPLED)


def without_numbers(count: int) -> str:
    """What an overlap measured without the triangles whose UVs are not numbers leaves out."""
    return english(words.UV_WITHOUT_NUMBERS, n=count)


#: Texels per side of the raster: 0.2% of the side, finer than any chart a texture artist packs.
RESOLUTION = 512
#: UV area (in squares) above which a layout repeats its texture: a packed layout holds at most one
#: square, mirrored or stacked charts about two.
REPEATS_AREA = 4.0
#: Row spans any layout may mark, plus this many per triangle; past that, rows are sampled.
SPANS = 1 << 20
SPANS_PER_TRIANGLE = 16
#: Row spans marked at a time (memory: a few arrays of this length).
BATCH_SPANS = 1 << 18


@dataclass(frozen=True)
class Overlap:
    """The measure: ``share`` 0–1 (None: not measured), and ``note``, a sentence when it was not
    measured or is an estimate ("" when measured in full)."""

    share: float | None
    note: str = ""

    @property
    def estimated(self) -> bool:
        return self.share is not None and bool(self.note)


def overlap(
    uvs: NDArray[np.floating],
    *,
    deadline: Deadline | None = None,
    resolution: int = RESOLUTION,
    spans: int | None = None,
) -> Overlap:
    """The overlap of ``uvs`` (triangles, 3, 2): the share of the covered UV area covered more than once.

    A triangle outside 0–1 is moved into it by whole tiles (a tiling texture repeats there); a part
    crossing a tile edge is cut off. Triangles of zero UV area are skipped: a layout that maps whole
    parts to one texel (a palette texture) overlaps nothing. Triangles whose coordinates are not
    numbers are left out. ``spans`` overrides the row-span budget; ``deadline`` is checked between
    batches (raises ``budget.OutOfTime``).
    """
    corners = np.asarray(uvs, dtype=np.float64).reshape(-1, 3, 2)
    total = len(corners)
    if total == 0:
        return Overlap(0.0)
    numbers = np.isfinite(corners)
    if not numbers.all():
        corners = corners[numbers.all(axis=(1, 2))]
    if len(corners) == 0:
        return Overlap(None, NOT_NUMBERS)
    if _area(corners) > REPEATS_AREA:
        return Overlap(None, REPEATS)
    allowed = SPANS + SPANS_PER_TRIANGLE * total if spans is None else max(spans, 1)
    share, step = _raster_share(corners, resolution, allowed, deadline or Deadline())
    notes = [SAMPLED] if step > 1 else []
    if total > len(corners):
        notes.append(without_numbers(total - len(corners)))
    return Overlap(share, " ".join(notes))


def _area(corners: NDArray[np.float64]) -> float:
    """The UV area of all triangles, in squares (infinite when it overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        ab, ac = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        area = 0.5 * np.abs(ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0])
        return float(np.where(np.isfinite(area), area, np.inf).sum())


def _raster_share(
    corners: NDArray[np.float64], resolution: int, allowed: int, deadline: Deadline
) -> tuple[float, int]:
    """(share, row step): the overlap on the raster, marking every ``step``-th row only when the
    rows all triangles cross pass ``allowed``."""
    with np.errstate(over="ignore", invalid="ignore"):
        lowest = np.minimum(np.minimum(corners[:, 0], corners[:, 1]), corners[:, 2])
        pixels = (corners - np.floor(lowest)[:, None]) * resolution
        ab, ac = pixels[:, 1] - pixels[:, 0], pixels[:, 2] - pixels[:, 0]
        twice_area = ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]
    pixels = pixels[np.abs(twice_area) > 1e-12]
    # Rows whose centre (y + 0.5) lies strictly between the triangle's lowest and highest corner.
    ys = pixels[:, 0, 1], pixels[:, 1, 1], pixels[:, 2, 1]
    bottom, top = np.minimum(np.minimum(*ys[:2]), ys[2]), np.maximum(np.maximum(*ys[:2]), ys[2])
    first = np.clip(np.floor(bottom - 0.5) + 1, 0, resolution).astype(np.int64)
    stop = np.clip(np.ceil(top - 0.5), 0, resolution).astype(np.int64)
    rows = np.maximum(stop - first, 0)
    step = min(max(1, math.ceil(int(rows.sum()) / allowed)), resolution)
    offset = step // 2
    # Each triangle's first marked row (the next one ≡ offset mod step) and how many it marks.
    first = first + (offset - first) % step
    counts = np.maximum((stop - first + step - 1) // step, 0)
    marked = counts > 0
    pixels, first, counts = pixels[marked], first[marked], counts[marked]
    width = resolution + 1  # the last column holds the ends of spans reaching the right edge
    raster_rows = (resolution - offset + step - 1) // step
    diff = np.zeros(raster_rows * width, dtype=np.int64)
    ends = np.cumsum(counts)
    start = 0
    while start < len(counts):
        deadline.check()
        done = int(ends[start - 1]) if start else 0
        stop_at = max(start + 1, int(np.searchsorted(ends, done + BATCH_SPANS, side="right")))
        batch = slice(start, stop_at)
        _mark(diff, pixels[batch], first[batch], counts[batch], step, offset, resolution)
        start = stop_at
    deadline.check()
    coverage = np.cumsum(diff.reshape(raster_rows, width)[:, :resolution], axis=1)
    covered = int((coverage > 0).sum())
    return (float((coverage > 1).sum()) / covered if covered else 0.0), step


def _mark(
    diff: NDArray[np.int64],
    pixels: NDArray[np.float64],
    first: NDArray[np.int64],
    counts: NDArray[np.int64],
    step: int,
    offset: int,
    resolution: int,
) -> None:
    """Add each triangle's span on each of its marked rows to ``diff`` (+1 at its start, -1 past its end).

    A texel is inside when its centre is strictly inside the triangle. Each edge is read from its
    lower end (by y, then x), so two triangles sharing an edge find the same crossing on every row:
    a centre on the edge is in neither, and none is in both.
    """
    owner = np.repeat(np.arange(len(counts)), counts)
    local = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    y = first[owner] + local * step
    centre = y + 0.5
    left = np.full(len(owner), np.inf)
    right = np.full(len(owner), -np.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for i in range(3):
            a, b = pixels[:, i], pixels[:, (i + 1) % 3]
            swap = (a[:, 1] > b[:, 1]) | ((a[:, 1] == b[:, 1]) & (a[:, 0] > b[:, 0]))
            low = np.where(swap[:, None], b, a)
            high = np.where(swap[:, None], a, b)
            rise = high[:, 1] - low[:, 1]
            slope = np.where(rise > 0, (high[:, 0] - low[:, 0]) / np.where(rise > 0, rise, 1.0), 0.0)
            bottom, top = low[owner, 1], high[owner, 1]
            crosses = (bottom <= centre) & (centre <= top) & (bottom < top)
            x = low[owner, 0] + (centre - bottom) * slope[owner]
            left = np.where(crosses, np.minimum(left, x), left)
            right = np.where(crosses, np.maximum(right, x), right)
        sound = np.isfinite(left) & np.isfinite(right)
        begin = np.clip(np.floor(left[sound] - 0.5) + 1, 0, resolution).astype(np.int64)
        end = np.clip(np.ceil(right[sound] - 0.5), 0, resolution).astype(np.int64)
    row = (y[sound] - offset) // step
    span = begin < end
    width = resolution + 1
    base = row[span] * width
    diff += np.bincount(base + begin[span], minlength=len(diff))
    diff -= np.bincount(base + end[span], minlength=len(diff))
