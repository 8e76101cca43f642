"""Where the subject of a concept image is, found without a model: from its alpha, else its border.

A concept image for 3D shows one object on a plain background (what every service asks for), so
the background is the colour around the border, and the subject is whatever differs from it; an
image with transparency says its subject itself. The mask is then read for what the services warn
about: a subject cut off by the frame, a small one, several, a busy background, a blurred picture.
Everything here is numpy on an analysis copy of at most a few hundred pixels a side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: A pixel is the subject's when a channel differs from the background by more than this (of 255).
COLOUR_DISTANCE = 40
#: A side of the border is "not plain" when more than this share of it differs from the background;
#: three such sides make a busy background (a subject cut off touches one or two).
BUSY_SIDE_SHARE = 0.25
#: The subject's longest side as a share of the frame's below which it "fills little of the frame".
SMALL_SUBJECT = 0.5
#: Sharpness (the steepest edges over the picture's contrast) below which a picture is very blurred.
BLURRED = 0.15
#: The grid on which separate parts are counted, and how big a second part must be to be a subject.
PARTS_GRID = 128
SECOND_SUBJECT_SHARE = 0.15
#: Parts closer than twice this many cells (about 5% of the frame) are one subject.
JOIN_CELLS = 3
WHITE = (255, 255, 255)


@dataclass(frozen=True)
class Subject:
    """What was found in the analysis copy: the mask, the subject's box, and what is wrong."""

    mask: np.ndarray | None
    box: tuple[int, int, int, int] | None
    fill: float
    alpha: bool
    background: tuple[int, int, int]
    codes: tuple[str, ...]

    def box_in(self, scale: float, width: int, height: int) -> tuple[int, int, int, int] | None:
        """The box in the original image's pixels (the analysis copy was ``scale`` times smaller)."""
        if self.box is None:
            return None
        left, top, right, bottom = self.box
        return (
            max(0, int(left * scale)),
            max(0, int(top * scale)),
            min(width, round(right * scale)),
            min(height, round(bottom * scale)),
        )


def find(pixels: np.ndarray) -> Subject:
    """The subject of an RGB or RGBA picture (uint8, height × width × channels)."""
    import numpy as np

    alpha = pixels.shape[2] == 4 and bool((pixels[..., 3] < 250).mean() > 0.01)
    rgb = _on_white(pixels) if pixels.shape[2] == 4 else pixels[..., :3].astype(np.int16)
    if alpha:
        mask, background, busy = pixels[..., 3] > 127, WHITE, False
    else:
        mask, background, busy = mask_from_border(rgb)
    if not mask.any() or int((rgb.max(axis=(0, 1)) - rgb.min(axis=(0, 1))).max()) <= 8:
        return Subject(None, None, 0.0, alpha, background, ("single_colour",))
    codes = ["blurred"] if sharpness(rgb) < BLURRED else []
    if busy:  # the subject cannot be told from the background: nothing to crop to
        return Subject(None, None, 0.0, alpha, background, ("busy_background", *codes))
    parts = count_parts(mask)
    box = _box(mask)
    height, width = mask.shape
    left, top, right, bottom = box
    fill = (right - left) * (bottom - top) / float(width * height)
    if max((right - left) / width, (bottom - top) / height) < SMALL_SUBJECT:
        codes.insert(0, "subject_small")
    if parts > 1:
        codes.insert(0, "several_subjects")
    if touches_edge(mask):
        codes.insert(0, "cut_off")
    return Subject(mask, box, fill, alpha, background, tuple(codes))


def _on_white(pixels: np.ndarray) -> np.ndarray:
    """An RGBA picture as it shows on white, as int16 (what blur and colour are judged on)."""
    import numpy as np

    colour = pixels[..., :3].astype(np.float32)
    weight = pixels[..., 3:4].astype(np.float32) / 255.0
    return (colour * weight + 255.0 * (1.0 - weight)).astype(np.int16)


def mask_from_border(rgb: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int], bool]:
    """The subject as what differs from the background; the border's colour; whether the border is busy.

    The background is the border's colour as a plane across the picture (a + b·x + c·y per channel,
    fitted to the border twice, the second time without what the first found to differ), so a
    backdrop lit from one side or fading top to bottom is still background.
    """
    import numpy as np

    height, width = rgb.shape[:2]
    strip = max(2, min(height, width) // 50)
    on_border = np.zeros((height, width), dtype=bool)
    on_border[:strip] = on_border[-strip:] = True
    on_border[:, :strip] = on_border[:, -strip:] = True
    ys, xs = np.nonzero(on_border)
    colours = rgb[ys, xs].astype(np.float32)
    design = np.stack([np.ones_like(xs), xs / width, ys / height], axis=1).astype(np.float32)
    keep = np.ones(len(xs), dtype=bool)
    for _ in range(2):
        plane = np.linalg.lstsq(design[keep], colours[keep], rcond=None)[0]
        keep = np.abs(design @ plane - colours).max(axis=1) <= COLOUR_DISTANCE
        if keep.sum() < len(xs) // 4:  # most of the border differs: no plane to trust
            keep[:] = True
            break
    grid_y, grid_x = np.mgrid[0:height, 0:width].astype(np.float32)
    field = plane[0] + plane[1] * (grid_x / width)[..., None] + plane[2] * (grid_y / height)[..., None]
    far = np.abs(rgb - field).max(axis=2) > COLOUR_DISTANCE
    far_sides = sum(
        float(part.mean()) > BUSY_SIDE_SHARE
        for part in (far[:strip], far[-strip:], far[:, :strip], far[:, -strip:])
    )
    median = np.median(colours, axis=0)
    colour = (int(median[0]), int(median[1]), int(median[2]))
    return far, colour, far_sides >= 3


def sharpness(rgb: np.ndarray) -> float:
    """The steepest edges (top 0.2% of neighbour differences) over the picture's contrast: near 1 for
    a crisp drawing, small for a blurred one, whatever its colours."""
    import numpy as np

    gray = (rgb.sum(axis=2) // 3).astype(np.int16)
    steps = np.concatenate([np.abs(np.diff(gray, axis=0)).ravel(), np.abs(np.diff(gray, axis=1)).ravel()])
    counts = np.bincount(gray[::2, ::2].ravel(), minlength=256).cumsum()
    low, high = np.searchsorted(counts, (0.005 * counts[-1], 0.995 * counts[-1]))
    contrast = float(high - low)
    if contrast < 1.0 or steps.size == 0:
        return 1.0
    # The steepest 0.2% of steps, read off their histogram (values 0…255: no sort needed).
    histogram = np.bincount(steps, minlength=256)
    above = histogram[::-1].cumsum()[::-1]  # how many steps are at least each value
    wanted = max(1, steps.size // 500)
    steepest = int(np.flatnonzero(above >= wanted)[-1])
    return steepest / contrast


def touches_edge(mask: np.ndarray) -> bool:
    """The subject runs into the frame: more than 2% of an outer line (two pixels deep) is subject."""
    lines = (mask[:2].any(axis=0), mask[-2:].any(axis=0), mask[:, :2].any(axis=1), mask[:, -2:].any(axis=1))
    return any(float(line.mean()) > 0.02 for line in lines)


def count_parts(mask: np.ndarray) -> int:
    """Separate subjects: parts of the mask (on a coarse grid, near parts joined) at least
    ``SECOND_SUBJECT_SHARE`` of the largest; specks do not count."""
    import numpy as np

    coarse = _coarse(mask)
    labels = label(coarse)
    sizes = np.bincount(labels.ravel())[1:]
    if sizes.size == 0:
        return 0
    floor = max(SECOND_SUBJECT_SHARE * float(np.max(sizes)), 0.002 * coarse.size)
    return int((sizes >= floor).sum())


def _coarse(mask: np.ndarray) -> np.ndarray:
    """The mask on a grid of at most ``PARTS_GRID`` cells a side (a cell is subject if any pixel is),
    grown by ``JOIN_CELLS`` cells so parts close together (a robot's head over its body) count as one."""
    import numpy as np

    height, width = mask.shape
    step = max(1, -(-max(height, width) // PARTS_GRID))
    padded = np.zeros((-(-height // step) * step, -(-width // step) * step), dtype=bool)
    padded[:height, :width] = mask
    cells = padded.reshape(padded.shape[0] // step, step, padded.shape[1] // step, step).any(axis=(1, 3))
    grown = cells.copy()
    for _ in range(JOIN_CELLS):
        before = grown.copy()
        grown[1:] |= before[:-1]
        grown[:-1] |= before[1:]
        grown[:, 1:] |= before[:, :-1]
        grown[:, :-1] |= before[:, 1:]
    return grown


def label(mask: np.ndarray) -> np.ndarray:
    """Connected parts (4-neighbours) numbered 1…n, 0 outside: each cell takes the smallest number
    among its neighbours until none changes (a coarse grid keeps that to a few dozen passes)."""
    import numpy as np

    big = np.iinfo(np.int32).max
    labels = np.where(mask, np.arange(mask.size, dtype=np.int32).reshape(mask.shape) + 1, big)
    for _ in range(mask.size):
        low = labels.copy()
        low[1:] = np.minimum(low[1:], labels[:-1])
        low[:-1] = np.minimum(low[:-1], labels[1:])
        low[:, 1:] = np.minimum(low[:, 1:], labels[:, :-1])
        low[:, :-1] = np.minimum(low[:, :-1], labels[:, 1:])
        low = np.where(mask, low, big)
        inside = low != big  # a number is a cell of the same part: take that cell's number (pointer jumping)
        low[inside] = np.minimum(low[inside], low.ravel()[low[inside] - 1])
        if np.array_equal(low, labels):
            break
        labels = low
    _, numbered = np.unique(np.where(mask, labels, 0), return_inverse=True)
    return (
        numbered.reshape(mask.shape).astype(np.int32) if not mask.all() else numbered.reshape(mask.shape) + 1
    )


def _box(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The subject's box (left, top, right, bottom; right and bottom past the last pixel)."""
    import numpy as np

    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1
