"""A mesh's silhouettes from the front, the side and the top, drawn from a GLB without a GPU.

The fidelity measure (:mod:`.fidelity`) compares these with the concept image's subject. A GLB
that :func:`.glb.check_glb` passed is read here (every accessor lies inside its buffer), its
triangles placed by their nodes' transforms and projected orthographically; each silhouette is the
union of the triangles, filled by sampling each one densely enough for the fixed grid (numpy,
vectorised by triangle size), so a mesh of 200,000 triangles costs a fraction of a second.

glTF is Y up with the front facing +Z: the front view is X–Y, the side Z–Y, the top X–Z. The back
and the other side are the mirrors of these, which :mod:`.fidelity` compares as well.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: The silhouettes' grid: the subject's longest side fills it (uniform scale, centred).
GRID = 256
#: The views, each the two axes (right, up) of the picture: front, side, top.
VIEWS = {"front": (0, 1), "side": (2, 1), "top": (0, 2)}
_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
_DTYPES = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}


class Unmeasurable(Exception):
    """The GLB holds nothing this reader can draw (compressed or sparse data, no triangles)."""


def read_triangles(path: str | Path) -> np.ndarray:
    """Every triangle of the GLB's default scene in world space, as an (n, 3, 3) float32 array."""
    import numpy as np

    doc, blob = _read_glb(Path(path))
    if doc.get("extensionsRequired"):
        raise Unmeasurable(f"needs extensions {doc['extensionsRequired']}")
    triangles: list[np.ndarray] = []
    for mesh_index, matrix in _mesh_nodes(doc):
        for primitive in doc["meshes"][mesh_index].get("primitives", []):
            if primitive.get("mode", 4) != 4 or "POSITION" not in primitive.get("attributes", {}):
                continue
            points = _accessor(doc, blob, primitive["attributes"]["POSITION"]).astype(np.float32)
            if "indices" in primitive:
                order = _accessor(doc, blob, primitive["indices"]).astype(np.int64).ravel()
            else:
                order = np.arange(len(points))
            order = order[: len(order) // 3 * 3]
            if order.size and int(np.max(order)) >= len(points):
                raise Unmeasurable("an index beyond the mesh's points")
            placed = points @ matrix[:3, :3].T + matrix[:3, 3]
            triangles.append(placed[order].reshape(-1, 3, 3))
    if not triangles:
        raise Unmeasurable("no triangles")
    return np.concatenate(triangles)


def _read_glb(path: Path) -> tuple[dict[str, Any], bytes]:
    data = path.read_bytes()
    if len(data) < 20 or data[:4] != b"glTF":
        raise Unmeasurable("not a GLB")
    length, _kind = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20 : 20 + length])
    at = 20 + length
    blob = b""
    if at + 8 <= len(data):
        bin_length, _ = struct.unpack_from("<II", data, at)
        blob = data[at + 8 : at + 8 + bin_length]
    return doc, blob


def _mesh_nodes(doc: dict[str, Any]) -> list[tuple[int, np.ndarray]]:
    """Each mesh of the default scene with its node's world matrix."""
    import numpy as np

    nodes = doc.get("nodes", [])
    scenes = doc.get("scenes", [])
    roots = scenes[doc.get("scene", 0)].get("nodes", []) if scenes else range(len(nodes))
    found: list[tuple[int, np.ndarray]] = []
    stack = [(int(index), np.eye(4)) for index in roots]
    seen = 0
    while stack and seen < 100_000:  # a node cycle (a broken file) cannot loop forever
        index, parent = stack.pop()
        seen += 1
        node = nodes[index]
        world = parent @ _local(node)
        if "mesh" in node:
            found.append((int(node["mesh"]), world))
        stack.extend((int(child), world) for child in node.get("children", []))
    return found


def _local(node: dict[str, Any]) -> np.ndarray:
    import numpy as np

    if "matrix" in node:
        return np.array(node["matrix"], dtype=np.float64).reshape(4, 4).T
    x, y, z, w = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    rotation = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    local = np.eye(4)
    local[:3, :3] = rotation * np.array(node.get("scale", (1.0, 1.0, 1.0)))
    local[:3, 3] = node.get("translation", (0.0, 0.0, 0.0))
    return local


def _accessor(doc: dict[str, Any], blob: bytes, index: int) -> np.ndarray:
    import numpy as np

    accessor = doc["accessors"][index]
    if "sparse" in accessor or "bufferView" not in accessor:
        raise Unmeasurable("sparse or empty accessor")
    view = doc["bufferViews"][accessor["bufferView"]]
    if view.get("buffer", 0) != 0 or "extensions" in view:
        raise Unmeasurable("data outside the GLB's own chunk, or compressed")
    width = _COMPONENTS[accessor["type"]]
    dtype = np.dtype(_DTYPES[accessor["componentType"]])
    count = int(accessor["count"])
    start = int(view.get("byteOffset", 0)) + int(accessor.get("byteOffset", 0))
    stride = int(view.get("byteStride", 0)) or width * dtype.itemsize
    raw = np.frombuffer(
        blob, dtype=np.uint8, count=max(0, (count - 1) * stride + width * dtype.itemsize), offset=start
    )
    rows = np.lib.stride_tricks.as_strided(raw, shape=(count, width * dtype.itemsize), strides=(stride, 1))
    return np.ascontiguousarray(rows).view(dtype).reshape(count, width)


def silhouette(triangles: np.ndarray, axes: tuple[int, int], grid: int = GRID) -> np.ndarray:
    """The triangles seen along the third axis: a ``grid`` square bool picture, the shape's longest
    side filling it, centred, up at the top."""
    import numpy as np

    flat = triangles[:, :, list(axes)].astype(np.float32)
    low = flat.reshape(-1, 2).min(axis=0)
    high = flat.reshape(-1, 2).max(axis=0)
    extent = float(np.max(high - low))
    picture = np.zeros((grid, grid), dtype=bool)
    if extent <= 0:
        return picture
    scale = (grid - 1) / extent
    centre = (low + high) / 2
    flat = ((flat - centre) * scale + (grid - 1) / 2).astype(np.float32)
    flat[..., 1] = (grid - 1) - flat[..., 1]  # up is the picture's top row
    _fill(picture, flat)
    return picture


def _fill(picture: np.ndarray, flat: np.ndarray) -> None:
    """Mark every cell a triangle covers: each triangle is sampled on a barycentric grid at most
    half a cell apart, triangles of one size class together (a few numpy passes in all)."""
    import numpy as np

    span = np.ptp(flat, axis=1).max(axis=1)
    steps = np.ceil(np.maximum(span, 0.5) * 2).astype(np.int64)
    classes = np.minimum(np.ceil(np.log2(steps)).astype(np.int64), 12)
    grid = picture.shape[0]
    for size_class in np.unique(classes):
        chosen = flat[classes == size_class]
        count = 2 ** int(size_class)
        u, v = np.meshgrid(np.arange(count + 1), np.arange(count + 1))
        keep = (u + v) <= count
        weights = np.stack([u[keep], v[keep]], axis=1).astype(np.float32) / count
        for start in range(0, len(chosen), max(1, 4_000_000 // len(weights))):
            part = chosen[start : start + max(1, 4_000_000 // len(weights))]
            a = part[:, 0:1]
            points = (
                a + weights[None, :, 0:1] * (part[:, 1:2] - a) + weights[None, :, 1:2] * (part[:, 2:3] - a)
            )
            cells = np.clip(np.rint(points.reshape(-1, 2)).astype(np.int64), 0, grid - 1)
            picture[cells[:, 1], cells[:, 0]] = True
