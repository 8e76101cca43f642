"""Acceptance 1: every corpus file imported both ways (in place, and helper + append) compares equal.

The corpus is made by Blender's own exporter (textured PBR, Draco, skinned and animated, shape
keys, vertex colours, a hierarchy with custom properties, a light and a camera) and by trimesh
(an unpadded chunk). Both imports go through Kiln's ``import_job``, so placement at the cursor,
the Kiln collection, provenance and selection are compared too.
"""

from __future__ import annotations

import json
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from import_support import TEXT
from importing import job_importer
from scene_fields import describe, differences

CASES = ["textured", "draco", "skinned", "morph", "vertex_colours", "hierarchy", "light_camera", "unpadded"]
CURSOR = (1.0, 2.0, 3.0)


def extensions_used(glb: Path) -> list[str]:
    data = glb.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    return json.loads(data[20 : 20 + length]).get("extensionsUsed", [])


def fresh_scene(bpy: Any) -> None:
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.cursor.location = CURSOR


@pytest.mark.parametrize("case", CASES)
def test_the_helper_and_append_give_what_a_plain_import_gives(
    case: str,
    corpus: dict[str, Path],
    blender: Any,
    kiln_module: Any,
    jobs: Any,
    isolation: Any,
    helper: Any,
    tmp_path: Path,
) -> None:
    glb = corpus[case]
    if case == "draco" and "KHR_draco_mesh_compression" not in extensions_used(glb):
        pytest.skip(
            "this bpy module ships without Blender's Draco bridge library, so it can neither write nor read "
            "Draco; the case runs where Blender has it"
        )
    import_job = job_importer(kiln_module)
    job = jobs.Job(
        id="j", request=jobs.JobRequest(**TEXT), task_id="t-1", mesh_path=str(glb), resolution=1024
    )

    fresh_scene(blender)
    in_place_names = import_job(blender.context, job)
    in_place = describe(blender)

    fresh_scene(blender)
    blend = helper.convert(
        isolation.module_helper_command(),
        isolation.HelperLimits(),
        glb,
        tmp_path / "t-1.blend",
        cancelled=lambda: False,
    )
    names = import_job(blender.context, replace(job, blend_path=str(blend)))
    isolated = describe(blender)

    assert sorted(names) == sorted(in_place_names)
    assert differences(in_place, isolated) == []
    objects = [blender.data.objects[name] for name in names]
    assert all(obj.name in blender.data.collections["Kiln"].objects for obj in objects)
    assert all(
        (obj["kiln_task_id"], obj["kiln_prompt"], obj["kiln_resolution"]) == ("t-1", TEXT["prompt"], 1024)
        for obj in objects
    )
    roots = [obj for obj in objects if obj.parent is None]
    assert roots and blender.context.view_layer.objects.active in roots
    assert all(obj.select_get() for obj in objects)
    assert not list(blender.data.libraries) and not blend.exists()


def test_the_corpus_covers_what_it_claims(
    corpus: dict[str, Path], blender: Any, kiln_module: Any, jobs: Any
) -> None:
    """Guards the comparison above against a corpus that silently lost its point."""
    import_job = job_importer(kiln_module)
    seen = {}
    for case in CASES:
        if case == "draco":
            continue
        fresh_scene(blender)
        import_job(
            blender.context,
            jobs.Job(id=case, request=jobs.JobRequest(**TEXT), task_id=case, mesh_path=str(corpus[case])),
        )
        seen[case] = describe(blender)
    assert any(image["packed"] and image["has_pixels"] for image in seen["textured"]["images"].values())
    assert seen["skinned"]["armatures"] and seen["skinned"]["actions"]
    assert any(obj["modifiers"] == [("ARMATURE", "Rig")] for obj in seen["skinned"]["objects"].values())
    assert any(len(mesh["shape_keys"]) == 3 for mesh in seen["morph"]["meshes"].values())
    assert any(mesh["colours"] for mesh in seen["vertex_colours"]["meshes"].values())
    parents = {name: obj["parent"] for name, obj in seen["hierarchy"]["objects"].items()}
    # The GLB's five objects, below the parent named after the request (``import_job``).
    assert len(parents) == 6 and parents[TEXT["prompt"]] is None and parents["Top"] == TEXT["prompt"]
    extras = {
        k: v for k, v in seen["hierarchy"]["objects"]["Top"]["props"].items() if not k.startswith("kiln_")
    }
    assert extras == {"note": "the top of the tree", "weight": 4.5}
    assert len(seen["light_camera"]["lights"]) == 2 and len(seen["light_camera"]["cameras"]) == 1


@pytest.mark.parametrize("case", CASES)
def test_check_glb_passes_every_corpus_file(case: str, corpus: dict[str, Path], kiln_module: Any) -> None:
    kiln_module("api.checks.glb").check_glb(corpus[case])


def test_a_batch_grid_places_appended_results_as_it_places_imported_ones(
    corpus: dict[str, Path],
    blender: Any,
    kiln_module: Any,
    jobs: Any,
    isolation: Any,
    helper: Any,
    tmp_path: Path,
) -> None:
    import_job = job_importer(kiln_module)
    grid_slots = kiln_module("session.state").current.grid_slots  # where import_job finds a job's slot
    from mathutils import Vector

    def place_all(isolated: bool) -> dict[str, tuple[float, ...]]:
        fresh_scene(blender)
        cases = ["hierarchy", "light_camera", "textured"]
        grid_slots.reserve(cases, Vector(CURSOR))
        for case in cases:
            job = jobs.Job(
                id=case, request=jobs.JobRequest(**TEXT), task_id=case, mesh_path=str(corpus[case])
            )
            if isolated:
                blend = helper.convert(
                    isolation.module_helper_command(),
                    isolation.HelperLimits(),
                    corpus[case],
                    tmp_path / f"{case}.blend",
                    cancelled=lambda: False,
                )
                job = replace(job, blend_path=str(blend))
            import_job(blender.context, job)
        blender.context.view_layer.update()
        return {
            obj.name: tuple(round(v, 5) for v in obj.matrix_world.translation) for obj in blender.data.objects
        }

    assert place_all(isolated=True) == place_all(isolated=False)
