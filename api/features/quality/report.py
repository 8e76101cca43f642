"""The quality report of one result: counts an artist checks by hand, from plain mesh arrays.

The helper Blender reads each mesh object into a :class:`MeshArrays` (world space, triangles,
UVs per triangle corner) and a :class:`Inventory` (objects, materials, texture sizes), and this
module does the rest without Blender. Each object is analysed on its own (:class:`Analysis`):
its shape is welded by position (``topology``), so a seamed or flat-shaded mesh reads as one sound
part. The analyses also tell the fix-ups which triangles to delete or turn round.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from numpy.typing import NDArray

from . import topology, uv, verdict

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


@dataclass
class QualityReport:
    """The ``kiln_quality`` custom property (as JSON): the names are a contract (docs/game-ready.md)."""

    triangles: int = 0
    vertices: int = 0
    split_vertices: int = 0
    objects: int = 0
    materials: int = 0
    textures: list[str] = field(default_factory=list)
    dimensions: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    parts: int = 0
    small_parts: int = 0
    non_manifold_edges: int = 0
    boundary_edges: int = 0
    zero_area_faces: int = 0
    inverted_faces: int = 0
    #: Triangles of closed parts turned inside out as a whole (consistent winding, facing in).
    inside_out_faces: int = 0
    uv_overlap: float = 0.0
    has_uvs: bool = True
    verdict: str = verdict.READY
    reasons: list[str] = field(default_factory=list)
    #: What the fix-ups changed, in words ("merged 1,204 vertices"); empty when none ran.
    fixes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> QualityReport:
        """Raises ValueError for text that is not a report (a hand-edited property, say)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a quality report")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def summary(self) -> str:
        """One short line for a panel or a table: "ready · 12,034 tris · 1 part"."""
        parts = f"{self.parts:,} part" + ("" if self.parts == 1 else "s")
        return f"{self.verdict} · {self.triangles:,} tris · {parts}"


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
        area = 0.5 * np.linalg.norm(self.cross, axis=1)
        return int((area <= ZERO_AREA_SHARE * diagonal * diagonal).sum())

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


def build_report(meshes: Sequence[MeshArrays], inventory: Inventory) -> tuple[QualityReport, list[Analysis]]:
    """The report of a whole result, and each mesh's analysis (for the fix-ups)."""
    analyses = [Analysis(mesh) for mesh in meshes]
    report = QualityReport(
        objects=inventory.objects,
        materials=inventory.materials,
        textures=[f"{w}x{h}" for w, h in sorted(set(inventory.textures), reverse=True)],
    )
    # Every vertex, used by a triangle or not: a stray vertex is part of what the engine gets too.
    meshes_with_points = [a.positions for a in analyses if len(a.positions)]
    if meshes_with_points:
        low = np.min(np.array([p.min(axis=0) for p in meshes_with_points]), axis=0)
        high = np.max(np.array([p.max(axis=0) for p in meshes_with_points]), axis=0)
        sides: list[float] = (high - low).tolist()
        report.dimensions = [round(side, 4) for side in sides]
    diagonal = float(np.linalg.norm(report.dimensions))
    total = sum(a.triangle_count for a in analyses)
    for a in analyses:
        report.triangles += a.triangle_count
        report.vertices += a.vertex_count
        report.split_vertices += len(a.positions)
        sizes = a.part_sizes()
        report.parts += len(sizes)
        report.small_parts += int((sizes < verdict.SMALL_PART_SHARE * total).sum()) if len(sizes) > 1 else 0
        report.boundary_edges += int((a.edges.uses == 1).sum())
        report.non_manifold_edges += int((a.edges.uses != 2).sum())
        report.zero_area_faces += a.zero_area(diagonal)
        report.inverted_faces += a.inverted()
        report.inside_out_faces += a.inside_out()
        if a.uvs is None:
            report.has_uvs = report.has_uvs and a.triangle_count == 0
        else:
            # Per object (each may have its own texture); the worst one is the result's.
            share = uv.overlap_share(np.asarray(a.uvs, dtype=np.float64).reshape(-1, 3, 2))
            report.uv_overlap = max(report.uv_overlap, round(share, 4))
    report.verdict, report.reasons = verdict.judge(report)
    return report, analyses
