"""How well a mesh matches the concept image it was made from: one number from 0 to 1.

The mesh's silhouettes (:mod:`.mesh_views`: front, side, top, and their mirrors, the back and the
other side) are each compared with the concept's subject mask (:mod:`.subject`) by overlap over
union, both scaled uniformly so their longest side fills the same square and centred: never
stretched, so a mesh of the wrong proportions scores low. The best view is the measure, since a
concept may show the object from any side.

Run on the engine's worker once the GLB is checked; it never fails or delays an import (anything
that goes wrong is "could not be measured", None, never 0), and needs numpy (the image is read by
:mod:`.decoding`: a Python that cannot read it gets None too).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..words import Entry
from ..words import catalogue as words

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

#: At or above: "matches your image well"; below ``FAIR``: "looks unlike your image".
GOOD = 0.75
FAIR = 0.6


@dataclass(frozen=True)
class Fidelity:
    """The measure and the view that gave it ("" where it could not be measured)."""

    value: float | None
    view: str = ""


def measure(mesh_path: str | Path, image_path: str | Path) -> Fidelity:
    """The best overlap of the mesh's silhouettes with the image's subject (None: either unreadable)."""
    try:
        import numpy as np

        from . import mesh_views

        mask = concept_mask(image_path)
        if mask is None:
            return Fidelity(None)
        triangles = mesh_views.read_triangles(mesh_path)
        best = Fidelity(0.0)
        for view, axes in mesh_views.VIEWS.items():
            drawn = mesh_views.silhouette(triangles, axes, mask.shape[0])
            for seen, picture in ((view, drawn), (f"{view} mirrored", np.fliplr(drawn))):
                score = overlap(picture, mask)
                if score > (best.value or 0.0):
                    best = Fidelity(round(score, 3), seen)
        return best
    except Exception as exc:  # a measure only: whatever fails, the import goes on
        log.info("Fidelity of %s not measured: %s", Path(mesh_path).name, exc)
        return Fidelity(None)


def concept_mask(image_path: str | Path, grid: int | None = None) -> np.ndarray | None:
    """The image's subject, its longest side filling a ``grid`` square, centred (None: no subject)."""
    import numpy as np

    from . import decoding, mesh_views, subject

    size = grid or mesh_views.GRID
    pixels, _ = decoding.load(image_path, 512)
    found = subject.find(pixels)
    if found.mask is None or found.box is None:
        return None
    left, top, right, bottom = found.box
    crop = found.mask[top:bottom, left:right]
    scale = (size - 1) / max(crop.shape)
    height, width = max(1, round(crop.shape[0] * scale)), max(1, round(crop.shape[1] * scale))
    rows = np.minimum((np.arange(height) / scale).astype(np.int64), crop.shape[0] - 1)
    cols = np.minimum((np.arange(width) / scale).astype(np.int64), crop.shape[1] - 1)
    canvas = np.zeros((size, size), dtype=bool)
    top_at, left_at = (size - height) // 2, (size - width) // 2
    canvas[top_at : top_at + height, left_at : left_at + width] = crop[np.ix_(rows, cols)]
    return canvas


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap over union of two bool pictures of one size (0 when both are empty)."""
    union = int((a | b).sum())
    return int((a & b).sum()) / union if union else 0.0


def words_for(value: float | None) -> Entry:
    """The sentence that says a measure in the job's details."""
    if value is None:
        return words.FIDELITY_UNMEASURED
    if value >= GOOD:
        return words.FIDELITY_GOOD
    return words.FIDELITY_FAIR if value >= FAIR else words.FIDELITY_POOR
