"""The operators as scripts call them: fix-up and output arguments, and export_job afterwards.

The bpy module has no Blender program for a helper, so here Kiln imports and finishes in place;
the helper path of the same work is covered by the other tests in this folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from quality_support import fixes


def imported(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def test_generate_takes_fixups_and_export_job_writes_every_engine(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    result = blender.ops.kiln.generate_from_text(
        prompt="a box defect:flipped defect:loose", fix_normals=True, fix_loose=0.01, reuse="NEVER"
    )
    assert result == {"FINISHED"}
    (obj,) = imported(blender)
    report = json.loads(obj["kiln_quality"])
    assert fixes(report) == ["Fix-ups removed 3 loose parts.", "Fix-ups turned 18 triangles to face out."]
    assert (report["inverted_faces"], report["parts"], report["verdict"]) == (0, 1, "ready")

    job = kiln_module("session.runtime").engine().jobs()[-1]
    for engine, file in (
        ("UNREAL", "SM_BoxDefectFlippedDefectLoose.fbx"),
        ("GLB", "BoxDefectFlippedDefectLoose.glb"),
    ):
        assert blender.ops.kiln.export_job(job_id=job.id, engine=engine, directory=str(tmp_path)) == {
            "FINISHED"
        }
        assert (tmp_path / file).is_file(), engine
    assert imported(blender) == [obj], "the export leaves the scene as it was"
    assert len(blender.data.scenes) == 1


def test_unusable_arguments_get_a_sentence(service: Any, blender: Any) -> None:
    with pytest.raises(RuntimeError, match="LOD ratio “half” is not a number"):
        blender.ops.kiln.generate_from_text(prompt="a chair", lods="half", reuse="NEVER")
    with pytest.raises(RuntimeError, match="no longer in the list"):
        blender.ops.kiln.export_job(job_id="nope", engine="UNITY", directory="/tmp")


def test_generate_from_selection_takes_the_same_arguments(service: Any, blender: Any) -> None:
    blender.ops.mesh.primitive_cube_add(size=2.0)
    placeholder = blender.context.active_object
    placeholder.name = "Crate"
    placeholder["kiln_prompt"] = "a box defect:seams"
    result = blender.ops.kiln.generate_from_selection(fix_merge=True, triangles=300, reuse="NEVER")
    assert result == {"FINISHED"}
    (made,) = [obj for obj in blender.data.objects if obj.get("kiln_placeholder") == "Crate"]
    report = json.loads(made["kiln_quality"])
    assert fixes(report)[0] == "Fix-ups merged 1,918 vertices." and fixes(report)[1].startswith(
        "Fix-ups reduced 768 triangles to "
    )
    assert abs(report["triangles"] - 300) <= 15 and report["boundary_edges"] == 0


def test_a_result_of_several_objects_becomes_one_named_mesh_for_an_engine(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    import trimesh

    scene = trimesh.Scene()
    scene.add_geometry(trimesh.creation.box(extents=(1, 1, 1)), node_name="Body")
    scene.add_geometry(trimesh.creation.icosphere(radius=0.3).apply_translation((0, 0, 1)), node_name="Head")
    glb = tmp_path / "two.glb"
    glb.write_bytes(scene.export(file_type="glb"))
    blender.ops.import_scene.gltf(filepath=str(glb))
    assert len(blender.data.objects) == 2
    game_ready = kiln_module("finishing.game_ready")
    options = kiln_module("api.features.quality.options").GameOptions(engine="UNREAL", collision="HULL")
    objects, said = game_ready.finish(list(blender.data.objects), options, "a snowman")
    assert sorted(obj.name for obj in objects) == ["SM_Snowman", "UCX_SM_Snowman_00"]
    report = json.loads(said["quality"])
    assert (report["objects"], report["parts"], report["triangles"]) == (1, 2, 12 + 1280)
