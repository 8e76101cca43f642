"""The Kiln asset library in real Blender against the sandbox: results kept as assets, and reused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def submits(sandbox: Any) -> int:
    return sum(1 for r in sandbox.requests if r.method == "POST")


def library_folder(kiln_module: Any) -> Path:
    return Path(kiln_module("session.library").library_dir())


def test_an_imported_result_is_an_asset_with_its_preview_and_metadata_in_a_registered_library(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    job = kiln_module("session.runtime").engine().jobs()[-1]
    folder = library_folder(kiln_module)
    assert any(Path(lib.path) == folder for lib in blender.context.preferences.filepaths.asset_libraries)
    blends = list(folder.glob("*.blend"))
    assert len(blends) == 1
    catalogs = (folder / "blender_assets.cats.txt").read_text()

    blender.ops.wm.read_homefile(use_empty=True)
    with blender.data.libraries.load(str(blends[0]), assets_only=True) as (source, target):
        target.objects = list(source.objects)
        target.collections = list(source.collections)
    assets = [a for a in (*target.objects, *target.collections) if a is not None]
    assert len(assets) == 1
    data = assets[0].asset_data
    assert "a red chair" in data.description and data.description.startswith("Created with AI")
    assert {"Kiln", "text", "CreatedWithAI"} <= {tag.name for tag in data.tags}
    assert data["kiln_digital_source_type"].endswith("/trainedAlgorithmicMedia")
    assert data["kiln_service"] == "INTERFACE"
    assert data["kiln_task_id"] == job.task_id
    assert data["kiln_resolution"] == job.resolution
    assert data["kiln_triangles"] == job.triangles
    assert data["kiln_date"]
    assert data.catalog_id in catalogs
    from PIL import Image

    with Image.open(job.preview_path) as service_preview:
        assert tuple(assets[0].preview.image_size) == service_preview.size
    assert max(assets[0].preview.image_pixels_float[:]) > 0.0


def test_the_same_prompt_in_a_new_file_with_reuse_always_sends_nothing(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    task_id = kiln_objects(blender)[0]["kiln_task_id"]
    sent = submits(service)
    requests = len(service.requests)

    blender.ops.wm.read_homefile(use_empty=True)
    blender.context.scene.cursor.location = (4.0, 0.0, 0.0)
    result = blender.ops.kiln.generate_from_text(prompt="  A  red CHAIR ", reuse="ALWAYS")
    assert result == {"FINISHED"}
    assert submits(service) == sent
    assert len(service.requests) == requests
    objects = kiln_objects(blender)
    assert objects and {o["kiln_task_id"] for o in objects} == {task_id}
    assert all(o.name in blender.data.collections["Kiln"].objects for o in objects)
    roots = [o for o in objects if o.parent is None]
    assert tuple(roots[0].location) == pytest.approx((4.0, 0.0, 0.0))
    assert all(o.asset_data is None for o in objects)


def test_reuse_never_sends_again(service: Any, blender: Any, kiln_module: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    sent = service.submit_count
    assert blender.ops.kiln.generate_from_text(prompt="a red chair", reuse="NEVER") == {"FINISHED"}
    assert service.submit_count == sent + 1


def test_a_different_resolution_is_not_the_same_request(service: Any, blender: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair", resolution="1024") == {"FINISHED"}
    sent = service.submit_count
    assert blender.ops.kiln.generate_from_text(prompt="a red chair", reuse="ALWAYS") == {"FINISHED"}
    assert service.submit_count == sent + 1


def test_a_batch_uses_the_library_for_lines_already_generated_and_sends_the_rest(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    sent = service.submit_count
    prompts = tmp_path / "props.txt"
    prompts.write_text("a red chair\na small mug\n")
    blender.ops.wm.read_homefile(use_empty=True)
    assert blender.ops.kiln.generate_batch(filepath=str(prompts)) == {"FINISHED"}
    assert service.submit_count == sent + 1
    groups = {child.name: len(child.objects) for child in blender.data.collections["Kiln"].children}
    assert groups.keys() == {"a red chair", "a small mug"} and all(groups.values())


def test_an_image_sent_again_with_the_same_bytes_is_reused(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    from concepts import CONCEPTS

    first = tmp_path / "first.png"
    first.write_bytes((CONCEPTS / "chair.png").read_bytes())
    again = tmp_path / "renamed copy.png"
    again.write_bytes(first.read_bytes())
    assert blender.ops.kiln.generate_from_image(filepath=str(first), resolution="1024") == {"FINISHED"}
    sent = service.submit_count
    assert blender.ops.kiln.generate_from_image(filepath=str(again), resolution="1024") == {"FINISHED"}
    assert service.submit_count == sent  # ASK in background mode uses the library's copy
    assert blender.ops.kiln.generate_from_image(filepath=str(again), resolution="1536") == {"FINISHED"}
    assert service.submit_count == sent + 1


def test_a_library_that_cannot_be_written_never_fails_the_import(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    blocker = tmp_path / "not a folder"
    blocker.write_text("a file where the library folder should be")
    prefs = kiln_module("preferences").get()
    prefs.library_dir = str(blocker)
    try:
        assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
        assert kiln_objects(blender)
    finally:
        prefs.library_dir = ""


def test_kiln_removes_only_the_asset_library_it_added(blender: Any, kiln_module: Any) -> None:
    library = kiln_module("session.library")
    libraries = blender.context.preferences.filepaths.asset_libraries
    folder = library.library_dir()

    def names() -> list[str]:
        return [lib.name for lib in libraries if Path(lib.path) == folder]

    for lib in [lib for lib in libraries if Path(lib.path) == folder]:
        libraries.remove(lib)
    library.register_library()
    assert names() == ["Kiln"]
    library.unregister_library()
    assert names() == []
    # One the artist added themselves stays when Kiln is disabled.
    own = libraries.new(name="Mine", directory=str(folder))
    library.register_library()
    library.unregister_library()
    assert names() == ["Mine"]
    libraries.remove(own)
    library.register_library()


def test_a_result_of_several_objects_is_one_collection_asset_and_the_scene_is_left_as_it_was(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    library_store = kiln_module("session.library_store")
    jobs = kiln_module("api.jobs")
    no_outputs = kiln_module("api.features.quality.options").GameOptions()
    blender.ops.mesh.primitive_cube_add(location=(3.0, 0.0, 0.0))
    blender.ops.mesh.primitive_uv_sphere_add(location=(5.0, 0.0, 0.0))
    names = [o.name for o in blender.data.objects]
    request = jobs.JobRequest(kind="text", prompt="a cube and a ball")
    job = jobs.Job(id="0123456789ab", request=request, task_id="task_x")
    assert library_store.store(blender.context, job, names, no_outputs) is None  # kept: nothing to say
    assert len(blender.data.collections) == 0
    assert all(o.asset_data is None for o in blender.data.objects)
    assert blender.data.objects[names[0]].location.x == 3.0

    blend = kiln_module("session.library").library_dir() / "a_cube_and_a_ball_0123456789ab.blend"
    with blender.data.libraries.load(str(blend), assets_only=True) as (source, target):
        assert list(source.collections) and not list(source.objects)
        target.collections = list(source.collections)
    (asset,) = target.collections
    assert "“a cube and a ball”" in asset.asset_data.description
    assert "CreatedWithAI" in {tag.name for tag in asset.asset_data.tags}
    assert sorted(o.name.split(".")[0] for o in asset.objects) == sorted(names)  # appended: Cube.001
    # The asset sits at the origin: the first object's place is subtracted from all of them.
    assert sorted(round(o.location.x, 3) for o in asset.objects) == [0.0, 2.0]


def test_a_reused_copy_takes_the_import_options_and_the_name_of_the_request_that_reuses_it(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    """Reuse and import place a result the one same way (session.placement)."""
    from concepts import CONCEPTS
    from mathutils import Vector

    first = tmp_path / "first.png"
    first.write_bytes((CONCEPTS / "chair.png").read_bytes())
    assert blender.ops.kiln.generate_from_image(filepath=str(first), resolution="1024") == {"FINISHED"}
    sent = service.submit_count
    blender.ops.wm.read_homefile(use_empty=True)
    again = tmp_path / "tall chair.png"
    again.write_bytes(first.read_bytes())
    result = blender.ops.kiln.generate_from_image(
        filepath=str(again), resolution="1024", reuse="ALWAYS", target_height=2.5, origin_at_base=True
    )
    assert result == {"FINISHED"} and service.submit_count == sent
    objects = kiln_objects(blender)
    assert objects and all("kiln_reused" in obj for obj in objects)
    assert [obj.name for obj in objects if obj.parent is None] == ["tall chair"]
    blender.context.view_layer.update()
    meshes = [obj for obj in objects if obj.type == "MESH"]
    heights = [(obj.matrix_world @ Vector(corner)).z for obj in meshes for corner in obj.bound_box]
    assert max(heights) - min(heights) == pytest.approx(2.5, rel=1e-3)
    assert all(min(v.co.z for v in obj.data.vertices) == pytest.approx(0.0, abs=1e-5) for obj in meshes)
