"""Blockout to assets: what a placeholder asks for, and how a result is fitted into it.

Pure geometry on plain tuples, so it is tested without Blender. Boxes are axis-aligned in one
frame: for the placeholder that is its own frame (its location and rotation, scale included in
the box), and the result's box is measured in that same frame before it is fitted. A fit maps a
result point ``p`` to ``scale * p + offset``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Vec3 = tuple[float, float, float]
Fit = Literal["CONTAIN", "HEIGHT", "NONE"]
FITS: tuple[Fit, ...] = ("CONTAIN", "HEIGHT", "NONE")

_NUMERIC_SUFFIX = re.compile(r"\.\d+$")
#: A box side shorter than this is flat: it cannot bound a fit.
_FLAT = 1e-9


@dataclass(frozen=True)
class Box:
    """An axis-aligned box: its lowest and highest corner."""

    low: Vec3
    high: Vec3

    @classmethod
    def around(cls, points: list[Vec3]) -> Box:
        if not points:
            raise ValueError("a box needs at least one point")
        return cls(
            (min(p[0] for p in points), min(p[1] for p in points), min(p[2] for p in points)),
            (max(p[0] for p in points), max(p[1] for p in points), max(p[2] for p in points)),
        )

    @property
    def size(self) -> Vec3:
        return (self.high[0] - self.low[0], self.high[1] - self.low[1], self.high[2] - self.low[2])

    @property
    def base_centre(self) -> Vec3:
        """The middle of the bottom face: where a result stands."""
        return ((self.low[0] + self.high[0]) / 2, (self.low[1] + self.high[1]) / 2, self.low[2])


@dataclass(frozen=True)
class JobSource:
    """What a placeholder asks for: a prompt, or an image (a path or a Blender image's name)."""

    kind: Literal["text", "image"]
    value: str


def base_name(name: str) -> str:
    """The name without Blender's numeric suffix: ``Barrel.003`` → ``Barrel``."""
    return _NUMERIC_SUFFIX.sub("", name).strip()


#: The names Blender gives new objects (its primitives, curves, lights, cameras…), in English; the
#: Blender side adds their translations when Blender names new data in the artist's language.
DEFAULT_NAMES = frozenset(
    {
        *("Plane", "Cube", "Circle", "Sphere", "Icosphere", "Cylinder", "Cone", "Torus", "Grid", "Suzanne"),
        *("BezierCurve", "BezierCircle", "NurbsCurve", "NurbsCircle", "NurbsPath", "Curve", "Mball"),
        *("SurfCurve", "SurfCircle", "SurfPatch", "SurfCylinder", "SurfSphere", "SurfTorus", "Surface"),
        *("Text", "Volume", "Armature", "Lattice", "Empty", "Image", "Camera", "Speaker", "Field"),
        *(
            "Light",
            "Point",
            "Sun",
            "Spot",
            "Area",
            "IrradianceVolume",
            "ReflectionCubemap",
            "ReflectionPlane",
        ),
        *("GPencil", "Stroke", "Grease Pencil", "PointCloud", "Curves"),
    }
)
#: Object kinds that are never a placeholder, whatever they carry: nothing generated can stand in for them.
NEVER_PLACEHOLDERS = frozenset({"CAMERA", "LIGHT", "LIGHT_PROBE", "LIGHTPROBE", "SPEAKER"})


def has_default_name(name: str, defaults: frozenset[str] = DEFAULT_NAMES) -> bool:
    """Whether the object still has a name Blender gave it (``Cube``, ``Cube.001``…): nobody named it."""
    return base_name(name) in defaults


def job_source(prompt: object = None, image: object = None) -> JobSource | None:
    """The job a placeholder is marked with: ``kiln_image`` first, then ``kiln_prompt``; None when
    it is not marked (an object's name alone asks for nothing: a click must never pay for one)."""
    if isinstance(image, str) and image.strip():
        return JobSource("image", image.strip())
    if isinstance(prompt, str) and prompt.strip():
        return JobSource("text", prompt.strip())
    return None


def fit_scale(placeholder: Box, result: Box, fit: Fit) -> float:
    """The uniform scale the result gets: largest inside (CONTAIN), same height (HEIGHT), or 1."""
    if fit == "NONE":
        return 1.0
    wanted, have = placeholder.size, result.size
    if fit == "HEIGHT":
        return wanted[2] / have[2] if have[2] > _FLAT else 1.0
    ratios = [w / h for w, h in zip(wanted, have, strict=True) if h > _FLAT]
    return min(ratios) if ratios else 1.0


def fit_into(placeholder: Box, result: Box, fit: Fit) -> tuple[float, Vec3]:
    """Scale and offset that put the result's base centre on the placeholder's, scaled per ``fit``."""
    scale = fit_scale(placeholder, result, fit)
    target, source = placeholder.base_centre, result.base_centre
    offset = (
        target[0] - scale * source[0],
        target[1] - scale * source[1],
        target[2] - scale * source[2],
    )
    return scale, offset


def scaled_box(low: Vec3, high: Vec3, scale: Vec3) -> Box:
    """A local box scaled per axis (a negative scale flips the side): the box in the object's frame."""
    corners = [(low[0] * scale[0], low[1] * scale[1], low[2] * scale[2])]
    corners.append((high[0] * scale[0], high[1] * scale[1], high[2] * scale[2]))
    return Box.around(corners)


def empty_box(display_size: float, scale: Vec3) -> Box:
    """An empty stands for a cube of half-size ``display_size``, scaled with the empty."""
    half = abs(display_size)
    return scaled_box((-half, -half, -half), (half, half, half), scale)


def variant_after(variants: list[int], shown: int | None, step: int) -> int | None:
    """The variant to show after ``shown`` going ``step`` (+1 or -1), wrapping; None without variants."""
    if not variants:
        return None
    ordered = sorted(variants)
    if shown not in ordered:
        return ordered[-1]
    return ordered[(ordered.index(shown) + step) % len(ordered)]
