"""The shape of a triangle mesh, read as an artist would: vertices at one position are one vertex.

glTF splits a vertex wherever its UV, normal or colour changes (UV seams, hard edges, flat
shading), and Blender's importer keeps every split vertex. Counted as stored, a sound cube reads
as six loose pieces with 24 open edges; welded by position first, it reads as one closed part.
Every count here is on the welded shape. Plain numpy, vectorised: a 1.2M-triangle mesh takes
about a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


def weld(positions: NDArray[np.floating]) -> tuple[IntArray, int]:
    """(welded id per vertex, welded count): vertices with bit-identical positions share an id.

    Exact, not by distance: glTF writers copy a split vertex's position, so the copies are equal to
    the bit; a distance would also join vertices the artist meant apart (``fix_merge`` does that,
    on request). ``-0.0`` and ``0.0`` are the same position.
    """
    count = len(positions)
    if count == 0:
        return np.zeros(0, dtype=np.int64), 0
    exact = np.ascontiguousarray(positions, dtype=np.float32) + np.float32(0.0)  # -0.0 → 0.0
    bits = exact.view(np.uint32).astype(np.uint64)
    high = (bits[:, 0] << np.uint64(32)) | bits[:, 1]
    low = bits[:, 2]
    order = np.lexsort((low, high))
    new = np.ones(count, dtype=bool)
    new[1:] = (high[order][1:] != high[order][:-1]) | (low[order][1:] != low[order][:-1])
    ids = np.empty(count, dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, int(new.sum())


def components(count: int, a: IntArray, b: IntArray) -> IntArray:
    """The component label (its smallest member) of each of ``count`` nodes joined by pairs (a, b).

    Union-find without a Python loop over nodes: every pair hooks the larger root under the
    smaller, then paths are halved until every node points at its root; a few rounds suffice.
    """
    parent = np.arange(count, dtype=np.int64)
    while True:
        root_a, root_b = parent[a], parent[b]
        low, high = np.minimum(root_a, root_b), np.maximum(root_a, root_b)
        apart = low != high
        if not apart.any():
            return parent
        np.minimum.at(parent, high[apart], low[apart])
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped


@dataclass(frozen=True)
class Edges:
    """The welded shape's undirected edges and the triangles around each."""

    #: Per edge: how many triangle sides lie on it (1 = open, 2 = manifold, more = non-manifold).
    uses: IntArray
    #: Per triangle side (3 per triangle, in order 01, 12, 20): the edge it lies on.
    side_edge: IntArray
    #: Per triangle side: whether it runs from the smaller welded id to the larger.
    side_forward: NDArray[np.bool_]


def edges_of(triangles: IntArray, vertex_count: int) -> Edges:
    """Edges of welded triangles (rows of three welded ids; degenerate rows are the caller's to drop)."""
    start = triangles.reshape(-1)
    end = triangles[:, [1, 2, 0]].reshape(-1)
    low, high = np.minimum(start, end), np.maximum(start, end)
    keys = low * np.int64(max(vertex_count, 1)) + high
    unique, side_edge, uses = np.unique(keys, return_inverse=True, return_counts=True)
    del unique
    return Edges(uses=uses.astype(np.int64), side_edge=side_edge.reshape(-1), side_forward=start < end)


def winding_patches(edges: Edges, triangle_count: int) -> tuple[IntArray, IntArray]:
    """(patch per triangle, pairs of patches meeting with opposite winding).

    Two triangles on a manifold edge agree when they run along it in opposite directions; a patch
    is a region whose neighbours all agree. A mesh with a flipped area has that area as a patch of
    its own, meeting the rest along edges where the winding disagrees.
    """
    manifold_sides = np.flatnonzero(edges.uses[edges.side_edge] == 2)
    order = manifold_sides[np.argsort(edges.side_edge[manifold_sides], kind="stable")]
    first, second = order[0::2], order[1::2]
    tri_a, tri_b = first // 3, second // 3
    agree = edges.side_forward[first] != edges.side_forward[second]
    patch = components(triangle_count, tri_a[agree], tri_b[agree])
    disagree = np.column_stack([patch[tri_a[~agree]], patch[tri_b[~agree]]])
    disagree = disagree[disagree[:, 0] != disagree[:, 1]]
    return patch, np.unique(np.sort(disagree, axis=1), axis=0) if len(disagree) else disagree


def two_colour(patch: IntArray, disagree: IntArray) -> IntArray:
    """0 or 1 per triangle: which way it winds relative to the smallest patch of its region.

    Each patch has two copies, one per colour; a pair meeting with opposite winding joins each copy
    of one patch to the other copy of the other. A patch's colour-0 copy then lies with its region's
    smallest patch's colour-0 copy, or with its colour-1 copy: one union-find over twice the patches,
    without a Python loop (a mesh with every other triangle flipped has as many patches as triangles).
    A non-orientable region (a Möbius strip) joins both copies; its patches all get colour 0.
    """
    count = len(patch)  # patch ids are triangle indices (``winding_patches``), so below the count
    a, b = disagree[:, 0], disagree[:, 1]
    label = components(2 * count, np.concatenate([2 * a, 2 * a + 1]), np.concatenate([2 * b + 1, 2 * b]))
    flipped = label[0::2] > label[1::2]
    return flipped[patch].astype(np.int64)
