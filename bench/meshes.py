"""Large textured GLBs made on the spot: the sizes a 1536 "ultra" result can reach.

The textured grid lives with the sandbox (``sandbox/grid.py``), which also serves it; these
helpers write it, and other shapes, to files for the bench and the tests.
"""

from __future__ import annotations

import struct
from pathlib import Path

from trimesh.exchange.gltf import export_glb

from sandbox.grid import grid_side, textured_grid


def write_textured_glb(path: Path, triangles: int) -> int:
    """Write the grid as a GLB (once; reused when present); returns its triangle count."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        part.write_bytes(export_glb(textured_grid(triangles), include_normals=True))
        part.replace(path)
    return 2 * grid_side(triangles) ** 2


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
