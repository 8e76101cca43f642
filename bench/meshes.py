"""Large textured GLBs made on the spot: the sizes a 1536 "ultra" result can reach.

The textured grid lives with the sandbox (``sandbox/grid.py``), which also serves it; these
helpers write it, and other shapes, to files for the bench and the tests.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import trimesh
from trimesh.exchange.gltf import export_glb
from trimesh.visual import TextureVisuals

from sandbox.grid import grid_side, textured_grid

#: UV layouts the grid can carry: its own (one square, no overlap), and the hostile ones a public
#: file may bring (the quality report must stay bounded on each).
UV_LAYOUTS = ("ordinary", "scaled x1000", "random", "not numbers", "whole square")


def write_textured_glb(path: Path, triangles: int, uvs: str = "ordinary") -> int:
    """Write the grid as a GLB with the UV layout ``uvs`` (once; reused when present); returns its
    triangle count."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        part.write_bytes(
            _valid_json(export_glb(with_uvs(textured_grid(triangles), uvs), include_normals=True))
        )
        part.replace(path)
    return 2 * grid_side(triangles) ** 2


def with_uvs(mesh: trimesh.Trimesh, layout: str) -> trimesh.Trimesh:
    """``mesh`` with the UV layout ``layout`` (one of :data:`UV_LAYOUTS`):

    - scaled x1000: the texture repeats a thousand times across (each triangle spans more than a tile);
    - random: every vertex anywhere in ±1,000,000;
    - not numbers: every coordinate NaN;
    - whole square: every triangle's corners at (0, 0), (1, 0), (1, 1) (its vertices split apart).
    """
    uv = np.asarray(mesh.visual.uv, dtype=np.float64)
    if layout == "ordinary":
        return mesh
    if layout == "scaled x1000":
        mesh.visual.uv = uv * 1000.0
    elif layout == "random":
        mesh.visual.uv = np.random.default_rng(34).uniform(-1e6, 1e6, uv.shape)
    elif layout == "not numbers":
        mesh.visual.uv = np.full(uv.shape, np.nan)
    elif layout == "whole square":
        # Three vertices of its own per triangle (trimesh's unmerge_vertices recomputes the normals:
        # minutes at 1M triangles without scipy).
        corners = np.asarray(mesh.faces).reshape(-1)
        corner_uv = np.tile(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), (len(mesh.faces), 1))
        return trimesh.Trimesh(
            vertices=np.asarray(mesh.vertices)[corners],
            faces=np.arange(len(corners)).reshape(-1, 3),
            vertex_normals=np.asarray(mesh.vertex_normals)[corners],
            visual=TextureVisuals(uv=corner_uv, material=mesh.visual.material),
            process=False,
        )
    else:
        raise ValueError(f"unknown UV layout {layout!r}")
    return mesh


def _valid_json(glb: bytes) -> bytes:
    """``glb`` without the accessor bounds trimesh writes as NaN (JSON has no NaN, and Kiln refuses
    such a file): a texture coordinate needs none, so a real file of NaN UVs has the NaN in its
    binary data only."""
    length = struct.unpack_from("<I", glb, 12)[0]
    document = json.loads(glb[20 : 20 + length])
    for accessor in document.get("accessors", []):
        if any(math.isnan(v) for v in (*accessor.get("min", ()), *accessor.get("max", ()))):
            accessor.pop("min", None)
            accessor.pop("max", None)
    text = json.dumps(document, separators=(",", ":")).encode()
    text += b" " * (_pad(len(text)) - len(text))
    rest = glb[20 + length :]
    return (
        struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(rest))
        + struct.pack("<II", len(text), 0x4E4F534A)
        + text
        + rest
    )


def write_big_glb(path: Path, size: int) -> None:
    """A valid GLB of exactly ``size`` bytes, almost all of it one binary buffer (for downloads)."""
    document = b'{"asset":{"version":"2.0"},"buffers":[{"byteLength":%d}]}'
    json_chunk = document % 0
    for _ in range(3):  # the buffer length depends on the JSON length; settles in two rounds
        json_chunk = document % (size - 12 - 8 - _pad(len(json_chunk)) - 8)
    json_chunk += b" " * (_pad(len(json_chunk)) - len(json_chunk))
    bin_length = size - 12 - 8 - len(json_chunk) - 8
    with path.open("wb") as fh:
        fh.write(struct.pack("<4sII", b"glTF", 2, size))
        fh.write(struct.pack("<II", len(json_chunk), 0x4E4F534A) + json_chunk)
        fh.write(struct.pack("<II", bin_length, 0x004E4942))
        fh.truncate(size)  # a sparse file: no time spent writing zeros


def _pad(length: int) -> int:
    return (length + 3) // 4 * 4
