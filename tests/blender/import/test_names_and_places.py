"""Imported results carry the request's name, and the Jobs panel says where each result really is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from importing import job_importer
from recording_layout import draw, run_pending_sync, sync_asked

PROMPT = "a weathered oak armchair with carved lion-paw legs and a faded red velvet seat"
NAME = "a weathered oak armchair with carved…"


def details(bpy: Any, jobs_panel: Any) -> str:
    """The Jobs panel's text once its rows are in sync (the newest job is the active row)."""
    draw(jobs_panel.KILN_PT_jobs, bpy.context)
    if sync_asked(jobs_panel):
        run_pending_sync(bpy, jobs_panel)
    return draw(jobs_panel.KILN_PT_jobs, bpy.context).text()


def test_a_single_mesh_is_named_after_the_prompt_and_is_in_the_scene_only_in_its_file(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    jobs_panel = kiln_module("panels.jobs")
    chair_file = tmp_path / "chair.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(chair_file))
    assert blender.ops.kiln.generate_from_text(prompt=PROMPT) == {"FINISHED"}
    results = [obj for obj in blender.data.objects if obj.get("kiln_task_id")]
    assert [obj.name for obj in results] == [NAME]  # what the Outliner shows
    assert results[0].type == "MESH" and results[0]["kiln_prompt"] == PROMPT  # provenance as before
    assert "In the scene" in details(blender, jobs_panel)
    blender.ops.wm.save_mainfile()

    blender.ops.wm.read_homefile(use_empty=True)  # File ▸ New: none of its objects is here
    text = details(blender, jobs_panel)
    assert "In the scene" not in text
    assert "Imported into chair.blend" in text

    blender.ops.wm.open_mainfile(filepath=str(chair_file))
    assert "In the scene" in details(blender, jobs_panel)
    for obj in [obj for obj in blender.data.objects if obj.get("kiln_task_id")]:
        blender.data.objects.remove(obj)
    assert "Imported into this file, since removed" in details(blender, jobs_panel)


def test_a_result_imported_into_an_unsaved_file_says_so_in_the_next_one(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    jobs_panel = kiln_module("panels.jobs")
    assert blender.ops.kiln.generate_from_text(prompt="a stone") == {"FINISHED"}
    assert "In the scene" in details(blender, jobs_panel)
    blender.ops.wm.read_homefile(use_empty=True)
    assert "Imported into a file that was not saved" in details(blender, jobs_panel)


def test_several_objects_get_a_parent_named_after_the_request_and_keep_their_own_names(
    corpus: dict[str, Path], blender: Any, kiln_module: Any, jobs: Any
) -> None:
    import_job = job_importer(kiln_module)
    request = jobs.JobRequest(kind="image", image_path="/art/concepts/reading lamp.png", resolution=1024)
    job = jobs.Job(
        id="j", request=request, task_id="t-9", mesh_path=str(corpus["hierarchy"]), resolution=1024
    )
    blender.ops.wm.read_homefile(use_empty=True)
    blender.context.scene.cursor.location = (1.0, 2.0, 3.0)
    names = import_job(blender.context, job)
    objects = [blender.data.objects[name] for name in names]
    roots = [obj for obj in objects if obj.parent is None]
    assert [root.name for root in roots] == ["reading lamp"]
    parent = roots[0]
    assert parent.type == "EMPTY" and tuple(parent.location) == (1.0, 2.0, 3.0)
    assert {obj.name for obj in parent.children} == {"Top"}  # the GLB's own root, kept below it
    assert {"Top", "Child0", "Child1", "Child2", "Sibling"} <= set(names)
    assert all(obj["kiln_task_id"] == "t-9" and obj["kiln_image"] for obj in objects)
    assert blender.context.view_layer.objects.active == parent
