"""The quality report, computed in the real helper on meshes the sandbox serves with known defects.

Each count must equal an independent count made here with trimesh and numpy on the same GLB.
"""

from __future__ import annotations

from typing import Any

import pytest
from importing import job_importer
from quality_support import independent_counts, reports, run

DEFECTS = ("none", "seams", "flipped", "hole", "loose", "uvoverlap", "insideout")
COUNTS = (
    "triangles",
    "vertices",
    "parts",
    "boundary_edges",
    "non_manifold_edges",
    "inverted_faces",
    "inside_out_faces",
)


def test_every_defect_is_counted_as_an_independent_count_says(
    quality_engine: Any, blender: Any, kiln_module: Any
) -> None:
    jobs = kiln_module("api.jobs")
    import_job = job_importer(kiln_module)
    done = run(quality_engine, jobs, [(f"a box defect:{name}", "") for name in DEFECTS])
    verdicts = {}
    for name, job in zip(DEFECTS, done, strict=True):
        names = import_job(blender.context, job)
        report = reports(blender, names)[0]
        assert all(r == report for r in reports(blender, names)), "the same report on every object"
        expected = independent_counts(job.mesh_path)
        for key in COUNTS:
            assert report[key] == expected[key], (name, key, report[key], expected[key])
        assert report["uv_overlap"] == pytest.approx(expected["uv_overlap"], abs=0.01), name
        assert report["dimensions"] == pytest.approx([1.0 if name != "loose" else 1.55, 1.0, 1.0], abs=1e-3)
        assert report["objects"] == 1 and report["materials"] == 1 and report["textures"] == ["64x64"]
        verdicts[name] = report["verdict"]
    assert verdicts == {
        "none": "ready",
        "seams": "ready",
        "flipped": "problems",
        "hole": "problems",
        "loose": "check",
        "uvoverlap": "check",
        "insideout": "problems",
    }
