"""Large textured GLBs made on the spot: the sizes a 1536 "ultra" result can reach.

A wavy grid with UVs and one image texture, so Blender's importer does its full work (mesh,
UVs, material, image). Deterministic, so runs compare; shared by the bench and the tests.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import trimesh
from PIL import Image
from trimesh.exchange.gltf import export_glb
from trimesh.visual import TextureVisuals
from trimesh.visual.material import SimpleMaterial

TEXTURE_SIZE = 1024


def grid_side(triangles: int) -> int:
    """Quads per side of a grid with at least ``triangles`` triangles (two per quad)."""
    return max(1, math.ceil(math.sqrt(triangles / 2)))


def texture(size: int = TEXTURE_SIZE) -> Image.Image:
    """A colour gradient with a checker, so a lost or unpacked texture is obvious."""
    ramp = np.linspace(0, 255, size, dtype=np.float32)
    red, green = np.meshgrid(ramp, ramp[::-1])
    checker = ((np.indices((size, size)) // 32).sum(axis=0) % 2) * 80.0
    rgb = np.stack([red, green, np.full_like(red, 120.0) + checker], axis=-1)
    return Image.fromarray(rgb.clip(0, 255).astype(np.uint8), "RGB")


def textured_grid(triangles: int) -> trimesh.Trimesh:
    """A wavy square of ``2 * n * n`` triangles (n the smallest side reaching ``triangles``)."""
    n = grid_side(triangles)
    ticks = np.linspace(0.0, 1.0, n + 1)
    u, v = np.meshgrid(ticks, ticks)
    height = 0.05 * np.sin(u * 12.0) * np.cos(v * 9.0)
    # Normals from the height field's slope (real results carry normals; trimesh is slow at 1M).
    slope_u = 0.05 * 12.0 * np.cos(u * 12.0) * np.cos(v * 9.0) / 2.0
    slope_v = -0.05 * 9.0 * np.sin(u * 12.0) * np.sin(v * 9.0) / 2.0
    normals = np.column_stack([-slope_u.ravel(), np.ones(u.size), -slope_v.ravel()])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    # glTF is Y-up: the grid lies in XZ with the waves along Y.
    vertices = np.column_stack([(u - 0.5).ravel() * 2.0, height.ravel(), (v - 0.5).ravel() * 2.0])
    index = np.arange((n + 1) * (n + 1)).reshape(n + 1, n + 1)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, :-1].ravel(), index[1:, 1:].ravel()
    faces = np.concatenate([np.column_stack([a, c, b]), np.column_stack([b, c, d])])
    material = SimpleMaterial(image=texture())
    visual = TextureVisuals(uv=np.column_stack([u.ravel(), v.ravel()]), material=material)
    return trimesh.Trimesh(
        vertices=vertices, faces=faces, vertex_normals=normals, visual=visual, process=False
    )


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
