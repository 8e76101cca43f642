"""Keeping a collision hull small: engines cap a convex collider (Unity's at 255 triangles), so a
hull with more is rebuilt from fewer of its points and grown until it holds the whole mesh again.
Plain numpy; Blender builds the hulls themselves."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Unity's limit for a convex MeshCollider; Unreal and Godot take it as it is.
MAX_TRIANGLES = 255
#: A closed triangulated convex hull of V points has 2V - 4 triangles.
MAX_POINTS = (MAX_TRIANGLES + 4) // 2


def farthest_points(points: NDArray[np.float64], count: int) -> NDArray[np.int64]:
    """Indices of ``count`` points spread over the set: each next one the farthest from those taken."""
    if len(points) <= count:
        return np.arange(len(points))
    chosen = [int(np.argmax(np.linalg.norm(points - points.mean(axis=0), axis=1)))]
    nearest = np.linalg.norm(points - points[chosen[0]], axis=1)
    for _ in range(count - 1):
        index = int(np.argmax(nearest))
        chosen.append(index)
        nearest = np.minimum(nearest, np.linalg.norm(points - points[index], axis=1))
    return np.array(chosen, dtype=np.int64)


def enclosing_scale(
    vertices: NDArray[np.float64], triangles: NDArray[np.int64], points: NDArray[np.float64]
) -> tuple[float, NDArray[np.float64]]:
    """(factor, centre): scaling the convex hull (``vertices``, outward ``triangles``) by ``factor``
    about ``centre`` (its vertices' mean, inside it) makes it hold every one of ``points``.

    A point p is inside the hull scaled by s iff for every face, with normal n and distance h from
    the centre, n·(p - centre) ≤ s·h; so s is the largest ratio over faces and points, at least 1.
    """
    centre = vertices.mean(axis=0)
    a, b, c = (vertices[triangles[:, i]] for i in range(3))
    normals = np.cross(b - a, c - a)
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 1e-12 * (float(np.max(lengths)) if len(lengths) else 0.0)
    normals = normals[keep] / lengths[keep, None]
    heights = np.einsum("ij,ij->i", normals, a[keep] - centre)
    reach = (points - centre) @ normals.T  # (points, faces)
    ratios = reach / heights
    return max(1.0, float(np.max(ratios)) if ratios.size else 1.0), centre
