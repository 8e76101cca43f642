"""Meshes with known defects, served on demand: a prompt with ``defect:<name>`` words.

The base is a 1 m box standing on the ground, each side a grid of its own UV chart (a 3 x 2
atlas), its vertices split along the box's edges as any glTF writer splits them at UV seams:
sound, closed, one part. Each defect word changes it in one known way, and several combine:

- ``defect:seams``: every triangle gets vertices of its own (flat-shaded split, still sound);
- ``defect:flipped``: a block of triangles on the +X side winds the other way;
- ``defect:hole``: a block of triangles on the -X side is missing;
- ``defect:loose``: three small tetrahedra float beside the box (4 triangles each, under 1%);
- ``defect:uvoverlap``: the -X side's chart lies on the +X side's;
- ``defect:insideout``: every triangle of the box winds the other way (consistent, facing in);
- ``defect:none``: the base alone.

Sizes (grid cells per side, the blocks) scale with the resolution, so 1536 is denser, same defects.
"""

from __future__ import annotations

import re

import numpy as np
import trimesh
from PIL import Image
from trimesh.visual import TextureVisuals

NAMES = ("none", "seams", "flipped", "hole", "loose", "uvoverlap", "insideout")
_WORD = re.compile(r"\bdefect:([a-z]+)")
#: Flipped and missing blocks, in grid cells per side (2 triangles each).
FLIPPED_CELLS = 3
HOLE_CELLS = 2
LOOSE_PIECES = 3
UV_MARGIN = 0.02
TETRAHEDRON = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
TETRAHEDRON_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])  # wound outwards


def defects_in(prompt: str) -> set[str] | None:
    """The known defect words of a prompt; None when it names none (an ordinary prompt)."""
    found = set(_WORD.findall(prompt.lower())) & set(NAMES)
    return found or None


def _side(axis: int, sign: float, cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One side of the unit box (centred on x, y; z from 0 to 1): vertices, outward triangles, grid UVs."""
    ticks = np.linspace(0.0, 1.0, cells + 1)
    s, t = np.meshgrid(ticks, ticks, indexing="ij")
    other = [i for i in range(3) if i != axis]
    points = np.zeros((cells + 1, cells + 1, 3))
    points[..., axis] = 0.5 + 0.5 * sign
    points[..., other[0]], points[..., other[1]] = s, t
    points = points.reshape(-1, 3) - np.array([0.5, 0.5, 0.0])
    index = np.arange((cells + 1) ** 2).reshape(cells + 1, cells + 1)
    a, b = index[:-1, :-1].ravel(), index[1:, :-1].ravel()
    c, d = index[:-1, 1:].ravel(), index[1:, 1:].ravel()
    faces = np.concatenate([np.column_stack([a, b, d]), np.column_stack([a, d, c])])
    # Wind outwards: the normal of (s, t) is +axis for an even permutation of the axes.
    normal = np.cross(points[faces[0, 1]] - points[faces[0, 0]], points[faces[0, 2]] - points[faces[0, 0]])
    if normal[axis] * sign < 0:
        faces = faces[:, [0, 2, 1]]
    return points, faces, np.column_stack([s.ravel(), t.ravel()])


def defect_mesh(defects: set[str], resolution: int) -> trimesh.Trimesh:
    """The box with ``defects``; Y-up like every glTF (the caller's z_up_to_y_up is applied here)."""
    cells = 8 if resolution < 1536 else 16
    vertices, faces, uvs, offset = [], [], [], 0
    sides = [(0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0), (2, 1.0), (2, -1.0)]
    for number, (axis, sign) in enumerate(sides):
        points, tris, grid = _side(axis, sign, cells)
        chart = 0 if number == 1 and "uvoverlap" in defects else number
        cell = np.array([chart % 3 / 3.0, chart // 3 / 2.0])
        chart_uv = cell + UV_MARGIN + grid * (np.array([1 / 3.0, 1 / 2.0]) - 2 * UV_MARGIN)
        quads = tris.reshape(2, cells, cells, 3)  # [half][row][column]: a cell is two triangles
        if number == 0 and "flipped" in defects:
            block = (slice(None), slice(1, 1 + FLIPPED_CELLS), slice(1, 1 + FLIPPED_CELLS))
            quads[block] = quads[block][..., ::-1].copy()
        keep = np.ones((2, cells, cells), dtype=bool)
        if number == 1 and "hole" in defects:
            keep[:, 2 : 2 + HOLE_CELLS, 2 : 2 + HOLE_CELLS] = False
        tris = quads[keep]
        vertices.append(points)
        faces.append(tris + offset)
        uvs.append(chart_uv)
        offset += len(points)
    if "loose" in defects:
        for i in range(LOOSE_PIECES):
            vertices.append(TETRAHEDRON * 0.05 + np.array([0.8 + 0.1 * i, 0.0, 0.05]))
            faces.append(TETRAHEDRON_FACES + offset)
            uvs.append(np.full((4, 2), 0.99))
            offset += 4
    v, f, uv = np.vstack(vertices), np.vstack(faces), np.vstack(uvs)
    if "insideout" in defects:
        f = f[:, ::-1].copy()
    if "seams" in defects:
        v, uv, f = v[f.reshape(-1)], uv[f.reshape(-1)], np.arange(f.size).reshape(-1, 3)
    image = Image.new("RGB", (64, 64), (180, 180, 180))
    visual = TextureVisuals(uv=uv, image=image)
    y_up = np.column_stack([v[:, 0], v[:, 2], -v[:, 1]])
    return trimesh.Trimesh(vertices=y_up, faces=f, visual=visual, process=False)
