"""PNG thumbnail drawn from the mesh itself: orthographic 3/4 view, faces shaded by their normal."""

from __future__ import annotations

import io

import numpy as np
import trimesh
from PIL import Image, ImageDraw

SIZE = 256
SUPERSAMPLE = 2
LIGHT = np.array([0.4, 0.5, 0.77])


def _rotation(yaw: float, pitch: float) -> np.ndarray:
    cy, sy, cp, sp = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch)
    turn = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    tilt = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    return tilt @ turn


def _face_colours(mesh: trimesh.Trimesh) -> np.ndarray:
    """Texture colour under each face's UV centroid (RGB floats 0..1)."""
    visual = mesh.visual
    image = visual.material.image.convert("RGB")  # type: ignore[union-attr]
    pixels = np.asarray(image, dtype=np.float64) / 255.0
    uv = np.asarray(visual.uv)[mesh.faces].mean(axis=1)  # type: ignore[union-attr]
    h, w = pixels.shape[:2]
    px = np.clip((uv[:, 0] * (w - 1)).round().astype(int), 0, w - 1)
    py = np.clip(((1 - uv[:, 1]) * (h - 1)).round().astype(int), 0, h - 1)
    return pixels[py, px]


def render_png(mesh: trimesh.Trimesh) -> bytes:
    """Painter's-algorithm render of the (Y-up, glTF-space) mesh seen from front-left, slightly above."""
    # glTF front is +Z; look from +Z turned 30 degrees, tilted 20 degrees down.
    view = np.asarray(mesh.vertices) @ _rotation(np.radians(-30), np.radians(20)).T
    triangles = view[mesh.faces]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    visible = (normals[:, 2] > 0) & (lengths > 0)
    normals = normals[visible] / lengths[visible, None]
    colours = _face_colours(mesh)[visible]
    triangles = triangles[visible]
    shade = 0.35 + 0.65 * np.clip(normals @ (LIGHT / np.linalg.norm(LIGHT)), 0, 1)
    rgb = np.clip(colours * shade[:, None] * 255, 0, 255).astype(int)

    canvas = SIZE * SUPERSAMPLE
    points = view[:, :2]
    low, high = points.min(axis=0), points.max(axis=0)
    scale = 0.9 * canvas / max(float((high - low).max()), 1e-9)
    centre = (low + high) / 2
    xy = (triangles[:, :, :2] - centre) * scale
    xy[:, :, 1] *= -1
    xy += canvas / 2

    image = Image.new("RGBA", (canvas, canvas), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    for index in np.argsort(triangles[:, :, 2].mean(axis=1)):
        r, g, b = rgb[index]
        draw.polygon([tuple(p) for p in xy[index].tolist()], fill=(int(r), int(g), int(b), 255))
    image = image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
