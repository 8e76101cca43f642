"""How much of a UV layout is covered twice: the texture space two places of the surface share.

Measured on a raster of the UV square: each triangle marks the texel centres it covers, and the
share is texels marked twice or more over texels marked at all. Triangles smaller than a texel
mark nothing, which leaves the share of a dense, sound layout unchanged. Plain numpy.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Texels per side of the raster: 0.2% of the side, finer than any chart a texture artist packs.
RESOLUTION = 512
#: Triangles whose bounding box would cover more texels than this are marked in batches.
BATCH_TEXELS = 4_000_000


def overlap_share(uvs: NDArray[np.floating], resolution: int = RESOLUTION) -> float:
    """Share (0–1) of the covered UV area covered more than once; ``uvs`` is (triangles, 3, 2).

    A triangle outside 0–1 is moved into it by whole tiles (a tiling texture repeats there); a part
    crossing a tile edge is cut off. Triangles of zero UV area are skipped: a layout that maps whole
    parts to one texel (a palette texture) overlaps nothing.
    """
    if len(uvs) == 0:
        return 0.0
    uvs = np.asarray(uvs, dtype=np.float64)
    pixels = (uvs - np.floor(uvs.min(axis=1, keepdims=True))) * resolution
    a, b, c = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    twice_area = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    keep = np.abs(twice_area) > 1e-12
    pixels, twice_area = pixels[keep], twice_area[keep]
    counts = np.zeros(resolution * resolution, dtype=np.int32)
    low = np.clip(np.floor(pixels.min(axis=1) - 0.5).astype(np.int64) + 1, 0, resolution)
    high = np.clip(np.floor(pixels.max(axis=1) - 0.5).astype(np.int64) + 1, 0, resolution)
    span = np.maximum(high - low, 0)
    texels = span[:, 0] * span[:, 1]
    start = 0
    while start < len(pixels):
        stop = start + max(1, int(np.searchsorted(np.cumsum(texels[start:]), BATCH_TEXELS)))
        batch = slice(start, stop)
        _mark(counts, pixels[batch], twice_area[batch], low[batch], span[batch], resolution)
        start = stop
    covered = int((counts > 0).sum())
    return float((counts > 1).sum()) / covered if covered else 0.0


def _mark(
    counts: NDArray[np.int32],
    pixels: NDArray[np.float64],
    twice_area: NDArray[np.float64],
    low: NDArray[np.int64],
    span: NDArray[np.int64],
    resolution: int,
) -> None:
    """Add one to every texel whose centre lies inside each triangle.

    Strictly inside: a centre on the edge two neighbours share would otherwise count as covered twice.
    """
    sizes = span[:, 0] * span[:, 1]
    owner = np.repeat(np.arange(len(pixels)), sizes)
    if len(owner) == 0:
        return
    first = np.cumsum(sizes) - sizes
    local = np.arange(len(owner)) - first[owner]
    x = low[owner, 0] + local % span[owner, 0]
    y = low[owner, 1] + local // span[owner, 0]
    px, py = x + 0.5, y + 0.5
    corners = pixels[owner]
    sign = np.sign(twice_area[owner])
    inside = np.ones(len(owner), dtype=bool)
    for i in range(3):
        (x0, y0), (x1, y1) = corners[:, i].T, corners[:, (i + 1) % 3].T
        inside &= sign * ((x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)) > 0
    flat = y[inside] * resolution + x[inside]
    # One mark per triangle and texel: a texel is "twice" only when two triangles cover it.
    np.add.at(counts, flat, 1)
