"""Counts made in the tests without Kiln's code: trimesh and plain numpy on the downloaded GLB.

Kiln welds by exact position, finds parts with a vectorised union-find and rasterises UVs; here
trimesh merges vertices and finds face adjacency, parts come from a plain union-find over faces,
winding is judged from the face normals of convex parts, and UV overlap is sampled at random
points. Different methods, same answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import trimesh


def load_glb(path: Path) -> trimesh.Trimesh:
    loaded = trimesh.load(str(path), file_type="glb", process=False)
    meshes = list(loaded.geometry.values()) if isinstance(loaded, trimesh.Scene) else [loaded]
    assert len(meshes) == 1, "the sandbox serves one mesh"
    return meshes[0]


def independent_counts(path: Path, samples: int = 200_000) -> dict[str, Any]:
    mesh = load_glb(path)
    uv = np.asarray(mesh.visual.uv)[mesh.faces]
    shape = trimesh.Trimesh(np.asarray(mesh.vertices), np.asarray(mesh.faces), process=False)
    shape.merge_vertices(merge_tex=True, merge_norm=True, digits_vertex=7)
    groups = trimesh.grouping.group_rows(shape.edges_sorted)
    uses = np.array([len(g) for g in groups])
    parts = face_groups(len(shape.faces), shape.face_adjacency)
    open_edges = {tuple(shape.edges_sorted[g[0]]) for g in groups if len(g) != 2}
    inverted = inside_out = 0
    for faces in parts:
        centre = shape.triangles_center[faces].mean(axis=0)
        inward = np.einsum("ij,ij->i", shape.face_normals[faces], shape.triangles_center[faces] - centre) < 0
        inverted += int(min(inward.sum(), (~inward).sum()))
        corners = shape.faces[faces]
        sides = np.sort(np.stack([corners, np.roll(corners, 1, axis=1)], axis=2).reshape(-1, 2), axis=1)
        closed = not any(tuple(side) in open_edges for side in sides.tolist())
        if closed and inward.sum() > len(faces) / 2:
            inside_out += len(faces)
    return {
        "triangles": len(shape.faces),
        "vertices": len(shape.vertices),
        "parts": len(parts),
        "boundary_edges": int((uses == 1).sum()),
        "non_manifold_edges": int((uses != 2).sum()),
        "inverted_faces": inverted,
        "inside_out_faces": inside_out,
        "uv_overlap": sampled_uv_overlap(uv, samples),
    }


def face_groups(count: int, adjacency: np.ndarray) -> list[np.ndarray]:
    """Faces joined by shared edges, by a plain-Python union-find (trimesh's needs scipy or networkx)."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in adjacency.tolist():
        parent[root(a)] = root(b)
    roots = np.array([root(i) for i in range(count)])
    return [np.flatnonzero(roots == r) for r in np.unique(roots)]


def sampled_uv_overlap(uv: np.ndarray, samples: int) -> float:
    """Share of random points in the UV square inside two or more triangles, of those inside any.

    The points are sorted by u once, so each triangle tests only the points between its smallest
    and largest u (the same points and sums as testing them all, in a fraction of the time)."""
    rng = np.random.default_rng(7)
    points = rng.random((samples, 2))
    points = points[np.argsort(points[:, 0])]
    along_u = points[:, 0]
    hits = np.zeros(samples, dtype=np.int64)
    a, b, c = uv[:, 0], uv[:, 1], uv[:, 2]
    ab, ac = b - a, c - a
    keep = np.abs(ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]) > 1e-12
    for tri_a, tri_b, tri_c in zip(a[keep], b[keep], c[keep], strict=True):
        us = (tri_a[0], tri_b[0], tri_c[0])
        first = int(np.searchsorted(along_u, min(us), side="left"))
        last = int(np.searchsorted(along_u, max(us), side="right"))
        near = points[first:last]
        v0, v1, v2 = tri_c - tri_a, tri_b - tri_a, near - tri_a
        d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
        d20, d21 = v2 @ v0, v2 @ v1
        denom = d00 * d11 - d01 * d01
        u = (d11 * d20 - d01 * d21) / denom
        v = (d00 * d21 - d01 * d20) / denom
        hits[first:last] += (u >= 0) & (v >= 0) & (u + v <= 1)
    covered = (hits > 0).sum()
    return float((hits > 1).sum() / covered) if covered else 0.0


def reports(bpy: Any, names: list[str]) -> list[dict[str, Any]]:
    return [json.loads(bpy.data.objects[name]["kiln_quality"]) for name in names]


def run(engine: Any, jobs: Any, prompts: list[tuple[str, str]]) -> list[Any]:
    """Send (prompt, game options JSON) jobs, wait, and check the helper prepared each one."""
    sent = [engine.submit(jobs.JobRequest(kind="text", prompt=p, game=game)) for p, game in prompts]
    assert engine.wait([job.id for job in sent], timeout=240)
    done = [engine.get(job.id) for job in sent]
    for job in done:
        assert job.state.value == "ready", job.error
        assert job.blend_path, "prepared by the helper"
    return done


def fixes(report: dict[str, Any]) -> list[str]:
    """What a report says the fix-ups changed, in English (the report keeps each as a stored message)."""
    from api.words import Message, english_message

    return [english_message(Message.from_json(fix)) for fix in report["fixes"]]  # type: ignore[arg-type]
