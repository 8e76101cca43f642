"""LODs, a convex hull, engine names and exports, made in the real helper, then read back in Blender."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from importing import job_importer
from quality_support import run

ENGINES = {
    "UNREAL": (
        ["SM_GreyRock", "SM_GreyRock_LOD1", "SM_GreyRock_LOD2"],
        "UCX_SM_GreyRock_00",
        "SM_GreyRock.fbx",
    ),
    "UNITY": (["GreyRock_LOD0", "GreyRock_LOD1", "GreyRock_LOD2"], "GreyRock_Collider", "GreyRock.fbx"),
    "GODOT": (["GreyRock", "GreyRock_LOD1", "GreyRock_LOD2"], "GreyRock-convcolonly", "GreyRock.glb"),
}

#: How far (share of the mesh's size) a point may lie outside a hull face's plane.
SLACK = 0.003


def world_points(obj: Any) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3)
    obj.data.vertices.foreach_get("co", co)
    matrix = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


def triangles(obj: Any) -> int:
    obj.data.calc_loop_triangles()
    return len(obj.data.loop_triangles)


def assert_convex_and_enclosing(hull: Any, mesh: Any) -> None:
    """Every hull face's plane has the whole hull and the whole mesh on its inner side.

    Faces of almost no area are skipped: their normal is rounding noise, not a plane. Blender's
    hull (bmesh, single precision) bends by up to 0.2% of the size on near-flat patches, so the
    planes get 0.3% of the size as slack.
    """
    matrix = np.array(hull.matrix_world)
    hull_points, mesh_points = world_points(hull), world_points(mesh)
    scale = np.ptp(mesh_points, axis=0).max()
    for polygon in hull.data.polygons:
        if polygon.area < 1e-6 * scale * scale:
            continue
        normal = matrix[:3, :3] @ np.array(polygon.normal)
        normal /= np.linalg.norm(normal)
        point = matrix[:3, :3] @ np.array(polygon.center) + matrix[:3, 3]
        assert ((hull_points - point) @ normal <= SLACK * scale).all(), "convex"
        assert ((mesh_points - point) @ normal <= SLACK * scale).all(), "encloses the mesh"


def reimport(bpy: Any, path: Path) -> dict[str, Any]:
    bpy.ops.wm.read_homefile(use_empty=True)
    if path.suffix == ".fbx":
        bpy.ops.import_scene.fbx(filepath=str(path))
    else:
        bpy.ops.import_scene.gltf(filepath=str(path))
    bpy.context.view_layer.update()
    return {obj.name: obj for obj in bpy.data.objects if obj.type == "MESH"}


def size(obj: Any) -> np.ndarray:
    return np.ptp(world_points(obj), axis=0)


def test_lods_hull_names_and_exports_for_each_engine(
    quality_engine: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    jobs = kiln_module("api.jobs")
    game = kiln_module("api.features.quality.options").GameOptions
    import_job = job_importer(kiln_module)
    asked = [
        game(lods=(0.5, 0.25), collision="HULL", engine=engine, export_dir=str(tmp_path / engine.lower()))
        for engine in ENGINES
    ]
    done = run(quality_engine, jobs, [("a grey rock", options.to_text()) for options in asked])
    made: dict[str, tuple[np.ndarray, Path]] = {}
    for (engine, (lod_names, hull_name, file)), job in zip(ENGINES.items(), done, strict=True):
        blender.ops.wm.read_homefile(use_empty=True)
        names = import_job(blender.context, job)
        assert sorted(names) == sorted([*lod_names, hull_name]), engine
        objects = blender.data.objects
        lod0 = objects[lod_names[0]]
        assert triangles(lod0) == job.triangles
        for name, ratio in zip(lod_names[1:], (0.5, 0.25), strict=True):
            target = ratio * job.triangles
            assert abs(triangles(objects[name]) - target) <= 0.05 * target, (name, triangles(objects[name]))
        assert_convex_and_enclosing(objects[hull_name], lod0)
        assert triangles(objects[hull_name]) <= 255, "fits Unity's convex collider"
        assert all("kiln_quality" in objects[name] for name in names)
        exported = tmp_path / engine.lower() / file
        assert exported.is_file(), engine
        made[engine] = (size(lod0), exported)

    for engine, (lod_names, hull_name, _file) in ENGINES.items():
        original_size, exported = made[engine]
        back = reimport(blender, exported)
        assert set(back) >= {*lod_names, hull_name}, (engine, sorted(back))
        lod0 = back[lod_names[0]]
        assert size(lod0) == pytest.approx(original_size, rel=1e-3), f"{engine}: same axes and scale"


def test_an_export_that_cannot_be_written_leaves_the_result_imported_with_its_report(
    quality_engine: Any, blender: Any, kiln_module: Any, tmp_path: Path, caplog: Any
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the export folder should be")
    jobs = kiln_module("api.jobs")
    game = kiln_module("api.features.quality.options").GameOptions(
        engine="GODOT", export_dir=str(blocked / "out")
    )
    (job,) = run(quality_engine, jobs, [("a grey rock", game.to_text())])
    names = job_importer(kiln_module)(blender.context, job)
    assert names == ["GreyRock"] and "kiln_quality" in blender.data.objects["GreyRock"]
    said = [r.getMessage() for r in caplog.records if "could not finish it" in r.getMessage()]
    assert (
        len(said) == 1 and f"the export to {blocked / 'out' / 'GreyRock.glb'} could not be written" in said[0]
    )


def test_the_helper_renders_a_review_picture_framed_alike_and_leaves_no_camera(
    quality_engine: Any, blender: Any, kiln_module: Any
) -> None:
    import struct

    jobs = kiln_module("api.jobs")
    isolation = kiln_module("api.isolation")
    cache_name = kiln_module("api.jobs.model").cache_name
    game = kiln_module("api.features.quality.options").GameOptions(review=True).to_text()
    done = run(quality_engine, jobs, [("a grey rock", game), ("a red chair", game)])
    for job in done:
        picture = isolation.review_picture(quality_engine.cache_dir / f"{cache_name(job)}.blend")
        data = picture.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (256, 256)
        names = job_importer(kiln_module)(blender.context, job)
        assert all(blender.data.objects[name].type == "MESH" for name in names), "no camera comes along"
    assert not [c for c in blender.data.cameras if c.name.startswith("Kiln Review")]
