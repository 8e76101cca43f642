"""Image-to-3D: sniff the upload, cut out the object's silhouette, inflate it into a textured relief.

The silhouette comes from the alpha channel when the picture has one, otherwise from keying out
the background colour found along the border. The relief is a "pillow": a front and a back
surface that meet at the silhouette outline, bulging with the distance to the outline plus a
little luminance relief, UV-mapped with the picture itself so the result visibly comes from it.
"""

from __future__ import annotations

import io

import numpy as np
import trimesh
from PIL import Image
from trimesh.visual import TextureVisuals

from sandbox.meshes import z_up_to_y_up

#: Vertices along the longer side of the picture per resolution (1536 has ~4x the triangles).
GRID = {1024: 80, 1536: 160}
TEXTURE_MAX = 512
WORK_MAX = 1024  # the silhouette is cut from a copy at most this big: enough for a 160-vertex grid
MAX_SIDE = 8192


class ImageTooLarge(ValueError):
    """The picture's dimensions (not its file size) exceed MAX_SIDE."""


KEY_DISTANCE = 40.0


def sniff_format(data: bytes) -> str | None:
    """Image format by content (magic bytes), not by file name or declared type."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def decode(data: bytes) -> Image.Image:
    """Decode fully now so a broken file is rejected at submit, not when the task runs."""
    image = Image.open(io.BytesIO(data))
    if max(image.size) > MAX_SIDE:
        raise ImageTooLarge(f"images are limited to {MAX_SIDE} pixels per side")
    image.load()
    return image.convert("RGBA")


def silhouette(image: Image.Image) -> np.ndarray:
    """Boolean mask of the object: alpha if the picture has transparency, else a keyed background."""
    rgba = np.asarray(image.convert("RGBA"), dtype=np.float32)
    alpha = rgba[..., 3]
    if alpha.min() < 250:
        return alpha > 127
    rgb = rgba[..., :3]
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]])
    background = np.median(border, axis=0)
    mask = np.linalg.norm(rgb - background, axis=-1) > KEY_DISTANCE
    return mask if mask.any() else np.ones(mask.shape, dtype=bool)


def _depth(inside: np.ndarray) -> np.ndarray:
    """Grid steps to the outline (0 outside, 1 on the outline) by repeated 4-neighbour erosion."""
    depth = np.zeros(inside.shape, dtype=np.float64)
    current = inside.copy()
    while current.any():
        depth += current
        padded = np.pad(current, 1, constant_values=False)
        current = current & padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return depth


def image_mesh(image: Image.Image, resolution: int) -> trimesh.Trimesh:
    """Inflated, textured relief of the picture's silhouette, about one unit tall."""
    image = image.copy()
    image.thumbnail((WORK_MAX, WORK_MAX))
    width, height = image.size
    cells = GRID[resolution]
    cols = max(2, round(cells * width / max(width, height)))
    rows = max(2, round(cells * height / max(width, height)))
    mask = silhouette(image)
    ys = np.linspace(0, height - 1, rows).round().astype(int)
    xs = np.linspace(0, width - 1, cols).round().astype(int)
    inside = mask[np.ix_(ys, xs)]
    # A vertex belongs to the mesh only through a quad whose four corners are inside.
    quads = inside[:-1, :-1] & inside[1:, :-1] & inside[:-1, 1:] & inside[1:, 1:]
    if not quads.any():
        inside[:] = True
        quads = np.ones((rows - 1, cols - 1), dtype=bool)
    used = np.zeros((rows, cols), dtype=bool)
    for dy in (0, 1):
        for dx in (0, 1):
            used[dy : rows - 1 + dy, dx : cols - 1 + dx] |= quads
    depth = _depth(used)
    outline = depth == 1
    rim = np.clip((depth - 1) / max(float(depth.max()) - 1, 1.0), 0, 1)
    grey = np.asarray(image.convert("L"), dtype=np.float64)[np.ix_(ys, xs)] / 255.0
    scale = 1.0 / (max(rows, cols) - 1)
    bulge = 0.35 * np.sqrt(rim) + 0.04 * (grey - 0.5) * np.minimum(1.0, 3 * rim)
    bulge[outline] = 0.0

    row_idx, col_idx = np.nonzero(used)
    front = -np.ones((rows, cols), dtype=np.int64)
    front[row_idx, col_idx] = np.arange(len(row_idx))
    back = front.copy()
    interior = used & ~outline
    back[interior] = len(row_idx) + np.arange(int(interior.sum()))

    thickness = 0.25 * bulge
    back_rows, back_cols = np.nonzero(interior)
    front_vertices = np.column_stack(
        [(col_idx - (cols - 1) / 2) * scale, -thickness[row_idx, col_idx], ((rows - 1) - row_idx) * scale]
    )
    back_vertices = np.column_stack(
        [
            (back_cols - (cols - 1) / 2) * scale,
            thickness[back_rows, back_cols],
            ((rows - 1) - back_rows) * scale,
        ]
    )
    vertices = np.vstack([front_vertices, back_vertices])
    # Stand on the ground, centred, like the text objects.
    vertices -= [(vertices[:, 0].min() + vertices[:, 0].max()) / 2, 0.0, vertices[:, 2].min()]
    uv_front = np.column_stack([xs[col_idx] / (width - 1), 1.0 - ys[row_idx] / (height - 1)])
    uv_back = np.column_stack([xs[back_cols] / (width - 1), 1.0 - ys[back_rows] / (height - 1)])
    uv = np.vstack([uv_front, uv_back])

    qr, qc = np.nonzero(quads)
    faces = []
    for grid, flip in ((front, False), (back, True)):
        a, b = grid[qr, qc], grid[qr, qc + 1]
        c, d = grid[qr + 1, qc + 1], grid[qr + 1, qc]
        # Front faces look towards -Y (the viewer in Blender's front view); the back the other way.
        tris = np.vstack([np.column_stack([a, d, c]), np.column_stack([a, c, b])])
        if flip:
            # A back triangle made only of outline vertices would duplicate its front twin.
            tris = tris[(tris >= len(row_idx)).any(axis=1), ::-1]
        faces.append(tris)
    texture = image.convert("RGB")
    texture.thumbnail((TEXTURE_MAX, TEXTURE_MAX))
    visual = TextureVisuals(uv=uv, image=texture)
    return trimesh.Trimesh(z_up_to_y_up(vertices), np.vstack(faces), visual=visual, process=False)
