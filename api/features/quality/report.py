"""The quality report of one result: counts an artist checks by hand, from plain mesh arrays.

The helper Blender reads each mesh object into a :class:`MeshArrays` (world space, triangles,
UVs per triangle corner) and a :class:`Inventory` (objects, materials, texture sizes), and this
module does the rest without Blender. Each object is analysed on its own (:class:`Analysis`):
its shape is welded by position (``topology``), so a seamed or flat-shaded mesh reads as one sound
part. The analyses also tell the fix-ups which triangles to delete or turn round.

A report never fails an import: each measure runs on its own, within the report's deadline
(``budget``); one that fails or runs out of time leaves its fields out of the count, names them in
``not_measured`` with a sentence, and the rest of the report stands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from ...words import catalogue as words
from ...words import english, message
from . import topology, uv, verdict
from .budget import Deadline, OutOfTime
from .findings import QualityReport

log = logging.getLogger(__name__)

FAILED = words.QUALITY_NOT_MEASURED_FAILED
OUT_OF_TIME = words.QUALITY_NOT_MEASURED_OUT_OF_TIME


@dataclass(frozen=True)
class Measure:
    """One measure of the report: what a sentence calls it (a catalogue entry), and the report fields
    it fills."""

    what: str
    fields: tuple[str, ...]


SIZE = Measure(words.MEASURE_SIZE, ("dimensions",))
#: Welding and the edges and winding of one mesh (:class:`Analysis`): every shape count needs it.
SHAPE = Measure(
    words.MEASURE_SHAPE,
    (
        "vertices",
        "parts",
        "small_parts",
        "non_manifold_edges",
        "boundary_edges",
        "zero_area_faces",
        "inverted_faces",
        "inside_out_faces",
    ),
)
PARTS = Measure(words.MEASURE_PARTS, ("parts", "small_parts"))
EDGES = Measure(words.MEASURE_EDGES, ("non_manifold_edges", "boundary_edges"))
ZERO_AREA = Measure(words.MEASURE_ZERO_AREA, ("zero_area_faces",))
WINDING = Measure(words.MEASURE_WINDING, ("inverted_faces",))
INSIDE_OUT = Measure(words.MEASURE_INSIDE_OUT, ("inside_out_faces",))
UV_OVERLAP = Measure(words.MEASURE_UV_OVERLAP, ("uv_overlap",))

#: A triangle with less area than this share of the squared bounding-box diagonal has none.
ZERO_AREA_SHARE = 1e-10


@dataclass(frozen=True)
class MeshArrays:
    """One mesh object, as the helper reads it: world-space positions, triangles, corner UVs."""

    positions: NDArray[np.float64]  # (vertices, 3)
    triangles: NDArray[np.int64]  # (triangles, 3), indices into positions
    uvs: NDArray[np.float64] | None = None  # (triangles, 3, 2); None: the mesh has no UV map


@dataclass(frozen=True)
class Inventory:
    """What the result holds besides its meshes' shapes."""

    objects: int = 0
    materials: int = 0
    textures: tuple[tuple[int, int], ...] = ()


class Analysis:
    """One mesh object's welded shape: parts, edges and winding, computed once, read by report and fixes."""

    def __init__(self, mesh: MeshArrays) -> None:
        positions = np.asarray(mesh.positions, dtype=np.float64).reshape(-1, 3)
        triangles = np.asarray(mesh.triangles, dtype=np.int64).reshape(-1, 3)
        self.positions = positions
        self.triangles = triangles
        self.uvs = mesh.uvs
        self.welded, self.vertex_count = topology.weld(positions)
        shape = self.welded[triangles] if len(triangles) else np.zeros((0, 3), dtype=np.int64)
        corners = positions[triangles] if len(triangles) else np.zeros((0, 3, 3))
        self.cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        self.centre = corners.mean(axis=1) if len(corners) else np.zeros((0, 3))
        # Triangles with a repeated welded corner have no edges of their own: left out of the topology.
        self.sound = (shape != shape[:, [1, 2, 0]]).all(axis=1)
        sound = shape[self.sound]
        self.edges = topology.edges_of(sound, self.vertex_count)
        vertex_part = topology.components(
            self.vertex_count, sound.reshape(-1), sound[:, [1, 2, 0]].reshape(-1)
        )
        #: The connected part each triangle belongs to (its smallest welded vertex id).
        self.part = vertex_part[shape[:, 0]] if len(shape) else np.zeros(0, dtype=np.int64)
        #: Each part's label, and per triangle the index of its part among them (counted once, read often).
        self.part_labels, self.part_index = np.unique(self.part, return_inverse=True)
        patch, disagree = topology.winding_patches(self.edges, len(sound))
        colour = np.zeros(len(triangles), dtype=np.int64)
        colour[self.sound] = topology.two_colour(patch, disagree)
        self.colour = colour

    @property
    def triangle_count(self) -> int:
        return len(self.triangles)

    def part_sizes(self) -> NDArray[np.int64]:
        """Triangles in each part."""
        return np.bincount(self.part_index, minlength=len(self.part_labels))

    def inverted(self) -> int:
        """Triangles winding against their neighbours, counted on the smaller side of each part."""
        labels, part_index = self.part_labels, self.part_index
        flipped = np.bincount(part_index, weights=self.colour, minlength=len(labels))
        total = np.bincount(part_index, minlength=len(labels))
        return int(np.minimum(flipped, total - flipped).sum())

    def zero_area(self, diagonal: float) -> int:
        """Triangles with no area; one whose corners are not numbers (NaN, infinite) has none either."""
        with np.errstate(over="ignore", invalid="ignore"):
            area = 0.5 * np.linalg.norm(self.cross, axis=1)
            return int((~(area > ZERO_AREA_SHARE * diagonal * diagonal)).sum())

    def inward(self) -> NDArray[np.bool_]:
        """Triangles to turn round so every part winds one way and faces out (positive volume)."""
        return self.colour != self._outward_colour()[self.part_index]

    def inside_out(self) -> int:
        """Triangles of closed parts that face in as a whole: wound consistently (mostly), but their
        volume is negative. Open parts have no inside, so they are never counted here."""
        labels, part_index = self.part_labels, self.part_index
        flipped = np.bincount(part_index, weights=self.colour, minlength=len(labels))
        total = np.bincount(part_index, minlength=len(labels))
        majority = (2 * flipped > total).astype(np.int64)
        # A triangle is open when one of its sides is on an edge without exactly two triangles.
        open_sides = (self.edges.uses[self.edges.side_edge] != 2).reshape(-1, 3).any(axis=1)
        open_triangles = np.zeros(len(self.triangles), dtype=np.int64)
        open_triangles[np.flatnonzero(self.sound)] = open_sides
        closed = np.bincount(part_index, weights=open_triangles, minlength=len(labels)) == 0
        return int(total[closed & (majority != self._outward_colour())].sum())

    def _outward_colour(self) -> NDArray[np.int64]:
        """Per part, the winding colour (``topology.two_colour``) whose faces point out."""
        labels, part_index = self.part_labels, self.part_index
        # Signed volume of each part as colour 0 winds, about the part's centre (a tetrahedron each).
        weights = np.bincount(part_index, minlength=len(labels)).astype(np.float64)
        centre = (
            np.stack(
                [np.bincount(part_index, weights=self.centre[:, i], minlength=len(labels)) for i in range(3)],
                axis=1,
            )
            / np.maximum(weights, 1)[:, None]
        )
        sign = np.where(self.colour == 0, 1.0, -1.0)
        volume = np.einsum("ij,ij->i", self.cross, self.centre - centre[part_index]) * sign
        return (np.bincount(part_index, weights=volume, minlength=len(labels)) < 0).astype(np.int64)

    def loose(self, share: float, total_triangles: int) -> NDArray[np.bool_]:
        """Triangles of parts holding less than ``share`` of ``total_triangles`` (the largest part stays)."""
        small = self.part_sizes() < share * total_triangles
        return small[self.part_index]


def build_report(
    meshes: Sequence[MeshArrays], inventory: Inventory, *, seconds: float | None = None
) -> tuple[QualityReport, list[Analysis | None]]:
    """The report of a whole result, and each mesh's analysis (for the fix-ups; None where its shape
    could not be analysed). Never raises for what is in the meshes: a measure that fails or passes
    the deadline (``seconds``, or ``budget``'s default for the triangle count) is named in the
    report's ``not_measured``.
    """
    triangle_counts = [np.asarray(mesh.triangles).size // 3 for mesh in meshes]
    total = sum(triangle_counts)
    deadline = Deadline.for_triangles(total, seconds)
    report = QualityReport(
        objects=inventory.objects,
        materials=inventory.materials,
        textures=[f"{w}x{h}" for w, h in sorted(set(inventory.textures), reverse=True)],
        triangles=total,
        split_vertices=sum(np.asarray(mesh.positions).size // 3 for mesh in meshes),
        has_uvs=all(
            mesh.uvs is not None or count == 0 for mesh, count in zip(meshes, triangle_counts, strict=True)
        ),
    )
    report.dimensions = _measured(report, SIZE, deadline, lambda: _dimensions(meshes)) or [0.0, 0.0, 0.0]
    diagonal = float(np.linalg.norm(report.dimensions))
    analyses: list[Analysis | None] = []
    for mesh in meshes:
        a = _measured(report, SHAPE, deadline, partial(Analysis, mesh))
        analyses.append(a)
        if a is not None:
            _add_shape(report, a, total, diagonal, deadline)
        if mesh.uvs is not None:
            _add_uv_overlap(report, mesh.uvs, deadline)
    report.verdict, report.reasons = verdict.judge(report)
    return report, analyses


def _add_shape(report: QualityReport, a: Analysis, total: int, diagonal: float, deadline: Deadline) -> None:
    """One mesh's shape counts, each measure on its own."""
    report.vertices += a.vertex_count

    def parts() -> None:
        sizes = a.part_sizes()
        small = int((sizes < verdict.SMALL_PART_SHARE * total).sum()) if len(sizes) > 1 else 0
        report.parts, report.small_parts = report.parts + len(sizes), report.small_parts + small

    def edges() -> None:
        boundary, odd = int((a.edges.uses == 1).sum()), int((a.edges.uses != 2).sum())
        report.boundary_edges, report.non_manifold_edges = (
            report.boundary_edges + boundary,
            report.non_manifold_edges + odd,
        )

    _measured(report, PARTS, deadline, parts)
    _measured(report, EDGES, deadline, edges)
    report.zero_area_faces += _measured(report, ZERO_AREA, deadline, lambda: a.zero_area(diagonal)) or 0
    report.inverted_faces += _measured(report, WINDING, deadline, a.inverted) or 0
    report.inside_out_faces += _measured(report, INSIDE_OUT, deadline, a.inside_out) or 0


def _add_uv_overlap(report: QualityReport, uvs: NDArray[np.float64], deadline: Deadline) -> None:
    """One mesh's UV overlap (each object may have its own texture): the worst one is the result's."""
    made = _measured(report, UV_OVERLAP, deadline, lambda: uv.overlap(uvs, deadline=deadline))
    if made is None:
        return
    if made.share is None:
        report.not_measured.setdefault("uv_overlap", made.note)
        return
    if made.estimated:
        report.estimated.setdefault("uv_overlap", made.note)
    report.uv_overlap = max(report.uv_overlap, round(made.share, 4))


def _dimensions(meshes: Sequence[MeshArrays]) -> list[float]:
    """The bounding box of every vertex, used by a triangle or not (a stray vertex is part of what the
    engine gets too); coordinates that are not numbers are left out."""
    lows, highs = [], []
    for mesh in meshes:
        points = np.asarray(mesh.positions, dtype=np.float64).reshape(-1, 3)
        points = points[np.isfinite(points).all(axis=1)]
        if len(points):
            lows.append(points.min(axis=0))
            highs.append(points.max(axis=0))
    if not lows:
        return [0.0, 0.0, 0.0]
    sides: list[float] = (np.max(highs, axis=0) - np.min(lows, axis=0)).tolist()
    return [round(side, 4) for side in sides]


T = TypeVar("T")


def _measured(report: QualityReport, measure: Measure, deadline: Deadline, work: Callable[[], T]) -> T | None:
    """``work()``, or None when it fails or the deadline passes: then ``measure``'s fields are named
    in the report's ``not_measured`` with a sentence saying why (the first reason stays)."""
    try:
        deadline.check()
        return work()
    except OutOfTime:
        why = OUT_OF_TIME
    except Exception:  # a report never fails an import: the reason goes to the log
        log.exception("The quality report could not measure %s", measure.what.lower())
        why = FAILED
    for name in measure.fields:
        report.not_measured.setdefault(name, english(why, what=message(measure.what)))
    return None
