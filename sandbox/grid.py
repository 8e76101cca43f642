"""A large textured test mesh: a wavy grid with UVs and one image texture, so Blender's importer
does its full work (mesh, UVs, material, image). Deterministic, so runs compare.

The sandbox serves it for the prompt "textured test grid of N triangles" (the window suite's
1.2M-triangle import); the bench writes it to files.
"""

from __future__ import annotations

import math

import numpy as np
import trimesh
from PIL import Image
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
