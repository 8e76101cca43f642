"""Hostile UV layouts at 100,000 triangles, end to end: Kiln's check of the download, the real helper
(import, report, save), and the append into the scene. Each imports, and its report says what it
could not measure instead of stalling (the report used to mark every texel of each triangle's UV box:
hours for these files, past the helper's five-minute limit)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from importing import job_importer

from bench.meshes import write_textured_glb

TRIANGLES = 100_000
#: Seconds the helper may take for one of these files here: a guard, not a target (about 2 s).
GUARD_SECONDS = 60.0

REPEATS = "UV overlap not measured: the UVs repeat the texture many times."
#: What each layout's report says it did not measure. Blender's importer (4.2 and 5.2) reads UVs that
#: are not numbers as 0: every triangle a point in UV space, measured, overlapping nothing.
LAYOUTS = {"scaled x1000": {"uv_overlap": REPEATS}, "random": {"uv_overlap": REPEATS}}
LAYOUTS |= {"whole square": {"uv_overlap": REPEATS}, "not numbers": {}}


@pytest.fixture
def helper(kiln_module: Any) -> Iterator[Any]:
    isolation = kiln_module("api.isolation")
    helper = isolation.ImportHelper()
    yield helper
    helper.close()


def imported_report(blender: Any, kiln_module: Any, job: Any, triangles: int) -> dict[str, Any]:
    """Import ``job`` into the scene as Kiln does; the one mesh's report, its triangles checked."""
    names = job_importer(kiln_module)(blender.context, job)
    meshes = [blender.data.objects[name] for name in names if blender.data.objects[name].type == "MESH"]
    assert len(meshes) == 1
    meshes[0].data.calc_loop_triangles()
    assert len(meshes[0].data.loop_triangles) == triangles
    report: dict[str, Any] = json.loads(meshes[0]["kiln_quality"])
    return report


def assert_says_what_was_not_measured(report: dict[str, Any], layout: str, triangles: int) -> None:
    assert report["not_measured"] == LAYOUTS[layout]
    assert report["triangles"] == triangles and report["parts"] == 1
    said = list(LAYOUTS[layout].values())
    assert [r for r in report["reasons"] if "UV" in r] == said, "its sentence, or nothing of UVs"
    assert not said or report["reasons"][-1] == said[-1], "what was not measured comes last"
    assert report["uv_overlap"] == 0.0 and report["estimated"] == {}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_hostile_uv_layout_goes_through_the_helper_and_its_report_says_what_was_not_measured(
    layout: str, helper: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    isolation, jobs = kiln_module("api.isolation"), kiln_module("api.jobs")
    glb = tmp_path / "hostile.glb"
    triangles = write_textured_glb(glb, TRIANGLES, uvs=layout)
    kiln_module("api.checks.glb").check_glb(glb)  # what every download passes before the helper
    start = time.monotonic()
    made = helper.prepare(
        isolation.module_helper_command(),
        isolation.HelperLimits(),
        glb,
        tmp_path / "hostile.blend",
        cancelled=lambda: False,
        label="grid",
    )
    assert time.monotonic() - start < GUARD_SECONDS
    assert made.finish_error == ""
    report = json.loads(made.quality)
    assert_says_what_was_not_measured(report, layout, triangles)
    request = jobs.JobRequest(kind="text", prompt="grid")
    job = jobs.Job(id="h", request=request, task_id="h", mesh_path=str(glb), blend_path=str(made.blend))
    assert imported_report(blender, kiln_module, job, triangles) == report


@pytest.mark.parametrize("layout", ["scaled x1000", "whole square"])
def test_a_hostile_uv_layout_imported_in_this_blender_is_reported_just_as_quickly(
    layout: str, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    """Where no helper runs (the bpy module) the report is made on this thread: bounded all the same."""
    jobs = kiln_module("api.jobs")
    glb = tmp_path / "hostile.glb"
    triangles = write_textured_glb(glb, TRIANGLES, uvs=layout)
    job = jobs.Job(
        id="p", request=jobs.JobRequest(kind="text", prompt="grid"), task_id="p", mesh_path=str(glb)
    )
    start = time.monotonic()
    report = imported_report(blender, kiln_module, job, triangles)
    assert time.monotonic() - start < GUARD_SECONDS
    assert_says_what_was_not_measured(report, layout, triangles)
