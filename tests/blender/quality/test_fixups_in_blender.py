"""Fix-ups in the real helper: each repairs what it says, says what it changed, and leaves the rest."""

from __future__ import annotations

from typing import Any

import numpy as np
from importing import job_importer
from quality_support import fixes, reports, run


def polygons(obj: Any) -> tuple[np.ndarray, np.ndarray]:
    """(normals, centres) of every polygon, in world space."""
    mesh = obj.data
    normals = np.empty(len(mesh.polygons) * 3)
    centres = np.empty(len(mesh.polygons) * 3)
    mesh.polygons.foreach_get("normal", normals)
    mesh.polygons.foreach_get("center", centres)
    matrix = np.array(obj.matrix_world)
    return normals.reshape(-1, 3) @ matrix[:3, :3].T, centres.reshape(-1, 3) @ matrix[:3, :3].T + matrix[
        :3, 3
    ]


def test_each_fix_repairs_what_it_claims_and_nothing_else(
    quality_engine: Any, blender: Any, kiln_module: Any
) -> None:
    import bmesh

    jobs = kiln_module("api.jobs")
    game = kiln_module("api.features.quality.options").GameOptions
    import_job = job_importer(kiln_module)
    asked = [
        ("a box defect:seams", game(fix_merge=True)),
        ("a box defect:flipped", game(fix_normals=True)),
        ("a box defect:loose", game(fix_loose=0.01)),
        ("a box defect:flipped", game()),
        ("a box defect:insideout", game(fix_normals=True)),
    ]
    done = run(quality_engine, jobs, [(prompt, options.to_text()) for prompt, options in asked])
    results = []
    for job in done:
        names = import_job(blender.context, job)
        results.append((blender.data.objects[names[0]], reports(blender, names)[0]))

    merged, report = results[0]
    assert fixes(report) == ["Fix-ups merged 1,918 vertices."]
    bm = bmesh.new()
    bm.from_mesh(merged.data)
    assert len(bm.verts) == 386 and len(bm.faces) == 768
    assert all(edge.is_manifold for edge in bm.edges), (
        "a closed mesh split along its seams is manifold after merge"
    )
    bm.free()
    assert (report["parts"], report["boundary_edges"], report["triangles"]) == (1, 0, 768)

    faced, report = results[1]
    untouched, before = results[3]
    assert fixes(report) == ["Fix-ups turned 18 triangles to face out."]
    assert before["inverted_faces"] == 18 and report["inverted_faces"] == 0
    normals, centres = polygons(faced)
    centre = np.array([0.0, 0.0, 0.5]) + np.array(faced.matrix_world.translation)
    assert (np.einsum("ij,ij->i", normals, centres - centre) > 0).all(), "every face points out"
    assert len(faced.data.vertices) == len(untouched.data.vertices)
    assert len(faced.data.polygons) == len(untouched.data.polygons)
    _normals, untouched_centres = polygons(untouched)
    assert np.allclose(
        np.sort(centres - faced.matrix_world.translation, axis=0),
        np.sort(untouched_centres - untouched.matrix_world.translation, axis=0),
    )

    turned, report = results[4]
    assert fixes(report) == ["Fix-ups turned 768 triangles to face out."] and report["inside_out_faces"] == 0
    normals, centres = polygons(turned)
    centre = np.array([0.0, 0.0, 0.5]) + np.array(turned.matrix_world.translation)
    assert (np.einsum("ij,ij->i", normals, centres - centre) > 0).all(), "an inside-out box faces out"

    cleaned, report = results[2]
    assert fixes(report) == ["Fix-ups removed 3 loose parts."]
    assert (report["parts"], report["triangles"], report["small_parts"]) == (1, 768, 0)
    assert len(cleaned.data.vertices) == 486, "the box keeps every vertex"


def test_a_triangle_budget_lands_within_five_percent_without_tearing_seams(
    quality_engine: Any, blender: Any, kiln_module: Any
) -> None:
    jobs = kiln_module("api.jobs")
    game = kiln_module("api.features.quality.options").GameOptions
    import_job = job_importer(kiln_module)
    asked = [("a grey rock", 1000), ("a box defect:seams", 300)]
    done = run(quality_engine, jobs, [(p, game(triangles=n).to_text()) for p, n in asked])
    for (prompt, budget), job in zip(asked, done, strict=True):
        report = reports(blender, import_job(blender.context, job))[0]
        assert abs(report["triangles"] - budget) <= 0.05 * budget, (prompt, report["triangles"])
        assert fixes(report) == [f"Fix-ups reduced {job.triangles:,} triangles to {report['triangles']:,}."]
        assert (report["parts"], report["boundary_edges"], report["inverted_faces"]) == (1, 0, 0), prompt
