"""The quality report, computed in the real helper on meshes the sandbox serves with known defects.

Each count must equal an independent count made here with trimesh and numpy on the same GLB.
"""

from __future__ import annotations

from typing import Any

import pytest
from quality_support import independent_counts, reports

DEFECTS = ("none", "seams", "flipped", "hole", "loose", "uvoverlap")
COUNTS = ("triangles", "vertices", "parts", "boundary_edges", "non_manifold_edges", "inverted_faces")


def run(engine: Any, jobs: Any, prompts: list[str], **game: Any) -> list[Any]:
    options = jobs_game(jobs, **game)
    sent = [engine.submit(jobs.JobRequest(kind="text", prompt=p, game=options)) for p in prompts]
    assert engine.wait([job.id for job in sent], timeout=240)
    done = [engine.get(job.id) for job in sent]
    for job in done:
        assert job.state.value == "ready", job.error
        assert job.blend_path, "prepared by the helper"
    return done


def jobs_game(jobs: Any, **game: Any) -> str:
    from importlib import import_module

    options = import_module(jobs.__name__.rsplit(".", 2)[0] + ".api.quality.options")
    return options.GameOptions(**game).to_text()


def test_every_defect_is_counted_as_an_independent_count_says(
    quality_engine: Any, blender: Any, kiln_module: Any
) -> None:
    jobs = kiln_module("api.jobs")
    import_job = kiln_module("operators.scene_import").import_job
    done = run(quality_engine, jobs, [f"a box defect:{name}" for name in DEFECTS])
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
    }
