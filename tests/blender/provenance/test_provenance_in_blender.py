"""Provenance in the files Kiln writes, read back by Blender's own importer; the disclosure report.

A finished job here is the sandbox's treasure chest (a model made in Blender, what the sandbox
serves) imported the way the watcher imports a job (``importing.job_importer``); the bpy module has
no Blender program for a helper, so the import, the fix-ups and the exports run in place, as
``kiln.export_job`` does there. A Khronos glTF validator run is added when node and npm's
``gltf-validator`` are found (``KILN_NODE_MODULES``: a ``node_modules`` folder holding it).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from importing import job_importer

TRAINED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"
CHEST = Path(__file__).resolve().parents[3] / "sandbox" / "samples" / "treasure-chest.glb"


def finished_job(kiln_module: Any, folder: Path, prompt: str, task_id: str, game: str = "") -> Any:
    """A job as the engine leaves it once its mesh is downloaded (its GLB: the sandbox's chest)."""
    jobs = kiln_module("api.jobs")
    mesh = folder / f"{task_id}.glb"
    shutil.copyfile(CHEST, mesh)
    request = jobs.JobRequest(kind="text", prompt=prompt, game=game)
    return jobs.Job(
        id=f"job-{task_id}",
        request=request,
        task_id=task_id,
        mesh_path=str(mesh),
        resolution=1024,
        created_at=time.time(),
    )


def land(blender: Any, kiln_module: Any, job: Any) -> list[Any]:
    """The job's objects in the scene, as the watcher puts them there."""
    jobs = kiln_module("api.jobs")
    names = job_importer(kiln_module)(blender.context, job)
    job.objects, job.state = names, jobs.JobState.IMPORTED
    return [blender.data.objects[name] for name in names]


def options(kiln_module: Any, engine: str, folder: Path) -> Any:
    game = kiln_module("api.features.quality.options").GameOptions
    return game(engine=engine, export_dir=str(folder / "out"))


def export(blender: Any, kiln_module: Any, job: Any, engine: str, folder: Path) -> list[str]:
    """``kiln.export_job``'s work where no helper can run (the bpy module)."""
    exports = kiln_module("session.exports")
    paths, error = exports.export_in_place(
        job, exports.export_options(job, engine, str(folder)), blender.context
    )
    assert not error
    return list(paths)


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def packet(kiln_module: Any, path: Path) -> dict[str, Any]:
    provenance = kiln_module("api.features.provenance")
    document = provenance.read_glb_json(path)
    assert provenance.EXTENSION in document["extensionsUsed"]
    found = provenance.packet_of(document)
    assert found is not None
    return dict(found)


def validate_with_khronos(path: Path) -> dict[str, Any] | None:
    """The Khronos glTF validator's report on ``path``; None when node or the validator is missing."""
    modules = os.environ.get("KILN_NODE_MODULES", "")
    node = shutil.which("node")
    if not node or not modules or not (Path(modules) / "gltf-validator").is_dir():
        return None
    script = (
        "const v = require('gltf-validator'); const fs = require('fs');"
        "v.validateBytes(new Uint8Array(fs.readFileSync(process.argv[1])))"
        ".then(r => console.log(JSON.stringify(r)), e => { console.error(e); process.exit(2); });"
    )
    done = subprocess.run(
        [node, "-e", script, str(path)],
        env={**os.environ, "NODE_PATH": modules},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(done.stdout))


def test_an_exported_glb_declares_where_it_came_from_and_still_imports(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    prefs = kiln_module("preferences").get(blender.context)
    prefs.credit_line = "Ada Artist"
    try:
        job = finished_job(kiln_module, tmp_path, "a brass lamp", "t-lamp")
        land(blender, kiln_module, job)
        assert export(blender, kiln_module, job, "GLB", tmp_path / "out") == [
            str(tmp_path / "out/BrassLamp.glb")
        ]
        views, runtime = kiln_module("agents.views"), kiln_module("session.runtime")
        view = views.view(blender.context, runtime.engine(blender.context), job)
    finally:
        prefs.credit_line = ""

    glb = tmp_path / "out" / "BrassLamp.glb"
    found = packet(kiln_module, glb)
    assert found["Iptc4xmpExt:DigitalSourceType"] == TRAINED
    assert found["kiln:service"] == kiln_module("api.services").info("INTERFACE").name
    assert found["kiln:prompt"] == "a brass lamp"
    assert found["kiln:taskId"] == "t-lamp"
    assert found["dc:creator"] == {"@list": ["Ada Artist"]}
    assert found["kiln:history"] == {"@list": ["Exported as BrassLamp.glb."]}
    # An FBX carries the same as custom properties (FBX user properties keep their names and text).
    # Written from the open scene: in the bpy module Blender's FBX exporter ignores a scene given
    # by a context override, which export_in_place uses (the FBX it writes there holds no mesh).
    game_ready, provenance = kiln_module("finishing.game_ready"), kiln_module("api.features.provenance")
    record = provenance.Provenance.from_json(
        kiln_module("session.provenance").export_record(
            job, options(kiln_module, "UNREAL", tmp_path), blender.context
        )
    )
    meshes = [obj for obj in blender.data.objects if obj.type == "MESH"]
    fbx_path = tmp_path / "out" / "SM_BrassLamp.fbx"
    game_ready.export(meshes, "UNREAL", fbx_path, record)
    fbx = fbx_path.read_bytes()
    assert b"kiln_digital_source_type" in fbx and TRAINED.encode() in fbx and b"t-lamp" in fbx

    # An agent's get_job says the same.
    assert view.provenance is not None
    assert (view.provenance["task_id"], view.provenance["request"]) == ("t-lamp", "a brass lamp")
    assert view.provenance["digital_source_type"] == TRAINED and view.provenance["credit"] == "Ada Artist"

    # Blender's own importer still reads the stamped file.
    blender.ops.wm.read_homefile(use_empty=True)
    assert blender.ops.import_scene.gltf(filepath=str(glb)) == {"FINISHED"}
    assert [obj for obj in blender.data.objects if obj.type == "MESH"]


def test_the_khronos_validator_finds_no_error_in_an_exported_glb(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    job = finished_job(kiln_module, tmp_path, "a brass lamp", "t-valid")
    land(blender, kiln_module, job)
    (glb,) = export(blender, kiln_module, job, "GLB", tmp_path / "out")
    report = validate_with_khronos(Path(glb))
    if report is None:
        pytest.skip(
            "node or npm's gltf-validator is missing (KILN_NODE_MODULES: a node_modules folder with it)"
        )
    issues = report["issues"]
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issues["messages"]
    assert "KHR_xmp_json_ld" in report["info"].get("extensionsUsed", []), report["info"]


def test_a_generate_time_export_keeps_the_provenance_and_what_was_done(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    options = kiln_module("api.features.quality.options").GameOptions
    game = options(engine="GODOT", lods=(0.5,), export_dir=str(tmp_path / "out")).to_text()
    job = finished_job(kiln_module, tmp_path, "a stone idol", "t-idol", game)
    land(blender, kiln_module, job)
    found = packet(kiln_module, tmp_path / "out" / "StoneIdol.glb")
    assert found["kiln:taskId"] == "t-idol" and found["kiln:prompt"] == "a stone idol"
    assert found["kiln:history"] == {
        "@list": ["Made as LOD 1 with 50% of the triangles.", "Exported as StoneIdol.glb."]
    }
    history = kiln_module("session.provenance").history
    assert history(blender.data.objects["StoneIdol_LOD1"]) == ("Made as LOD 1 with 50% of the triangles.",)
    assert history(blender.data.objects["StoneIdol"]) == ()


def test_the_report_lists_exactly_the_kiln_objects_of_the_file(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    (made, *others) = land(
        blender, kiln_module, finished_job(kiln_module, tmp_path, "a <b>red</b> chest", "t-red")
    )
    duplicate = made.copy()
    duplicate.name = "Chest copy"
    made.users_collection[0].objects.link(duplicate)
    removed = made.copy()
    removed.name = "Chest no longer declared"
    made.users_collection[0].objects.link(removed)
    del removed["kiln_task_id"]
    blender.ops.mesh.primitive_cube_add()
    listed = sorted([made.name, duplicate.name, *(o.name for o in others)])

    result = blender.ops.kiln.disclosure_report(filepath=str(tmp_path / "report.csv"))
    assert result == {"FINISHED"}
    with (tmp_path / "report.csv").open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted(row["name"] for row in rows) == listed
    for row in rows:
        assert row["where"] == "file"
        assert row["service"] == kiln_module("api.services").info("INTERFACE").name
        assert (row["request"], row["task_id"]) == ("a <b>red</b> chest", "t-red")
        assert row["date"].startswith("20") and row["source_type"] == TRAINED
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;red&lt;/b&gt;" in page and "<b>red</b>" not in page
    assert page.count("<tr>") == len(listed) + 1  # the headings, then one row a result


def test_a_library_asset_says_it_was_made_with_ai_and_the_report_lists_it(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    job = finished_job(kiln_module, tmp_path, "a gilded chest", "t-gold")
    names = [obj.name for obj in land(blender, kiln_module, job)]
    game = kiln_module("api.features.quality.options").GameOptions()
    assert kiln_module("session.library_store").store(blender.context, job, names, game) is None
    library = kiln_module("session.library").library_dir()
    (blend,) = [b for b in library.glob("*.blend") if "t-gold" in b.name or "gilded" in b.name]
    with blender.data.libraries.load(str(blend), assets_only=True, link=True) as (source, target):
        target.objects = list(source.objects)
        target.collections = list(source.collections)
    (asset,) = [a for a in (*target.objects, *target.collections) if a is not None]
    assert "CreatedWithAI" in {tag.name for tag in asset.asset_data.tags}
    assert asset.asset_data.description.startswith("Created with AI")
    assert "“a gilded chest”" in asset.asset_data.description
    assert asset.asset_data["kiln_digital_source_type"] == TRAINED
    for lib in list(blender.data.libraries):
        blender.data.libraries.remove(lib)

    objects_before = set(blender.data.objects)
    result = blender.ops.kiln.disclosure_report(filepath=str(tmp_path / "all.html"), library=True)
    assert result == {"FINISHED"}
    with (tmp_path / "all.csv").open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {row["where"] for row in rows if row["task_id"] == "t-gold"} == {"file", "library"}
    assert set(blender.data.objects) == objects_before and not list(blender.data.libraries)


def test_a_report_needs_a_file(blender: Any) -> None:
    with pytest.raises(RuntimeError, match="Choose where to write the disclosure report"):
        blender.ops.kiln.disclosure_report(filepath="")


def test_the_helper_blender_writes_the_record_it_is_handed_into_its_exports(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    isolation, provenance = kiln_module("api.isolation"), kiln_module("api.features.provenance")
    game = kiln_module("api.features.quality.options").GameOptions
    record = provenance.Provenance(
        task_id="t-helper", service_id="MESHY", prompt="an iron key", date="2026-11-27"
    )
    mesh = tmp_path / "key.glb"
    shutil.copyfile(CHEST, mesh)
    helper = isolation.ImportHelper()
    try:
        for engine in ("GODOT", "UNITY"):
            helper.prepare(
                isolation.module_helper_command(),
                isolation.HelperLimits(),
                mesh,
                tmp_path / f"{engine}.blend",
                cancelled=lambda: False,
                game=game(engine=engine, export_dir=str(tmp_path / "out")).to_text(),
                label="an iron key",
                provenance=record.to_json(),
            )
    finally:
        helper.close()
    found = packet(kiln_module, tmp_path / "out" / "IronKey.glb")
    assert (found["kiln:taskId"], found["kiln:service"]) == ("t-helper", "Meshy")
    assert found["kiln:history"] == {"@list": ["Exported as IronKey.glb."]}
    fbx = (tmp_path / "out" / "IronKey.fbx").read_bytes()
    assert b"kiln_digital_source_type" in fbx and b"t-helper" in fbx and b"IronKey" in fbx


def test_a_glb_the_helper_exported_before_the_job_was_known_gets_its_packet_on_import(
    blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    """What ``scene_import`` does for a result appended from the helper's .blend (its export was
    written without a record): the GLB is stamped afterwards, with what was done to the objects."""
    provenance, game_ready = kiln_module("api.features.provenance"), kiln_module("finishing.game_ready")
    game = kiln_module("api.features.quality.options").GameOptions(
        engine="GODOT", export_dir=str(tmp_path / "out")
    )
    job = finished_job(kiln_module, tmp_path, "a copper bell", "t-bell", game.to_text())
    blender.ops.import_scene.gltf(filepath=job.mesh_path)
    objects, said = game_ready.finish(list(blender.data.objects), game, job.request.label)  # no record
    (glb,) = said["exported"]
    assert provenance.packet_of(provenance.read_glb_json(Path(glb))) is None
    kiln_module("session.provenance").stamp_exports_later(job, game, objects)
    found = packet(kiln_module, Path(glb))
    assert (found["kiln:taskId"], found["kiln:prompt"]) == ("t-bell", "a copper bell")
    assert found["kiln:history"] == {"@list": ["Exported as CopperBell.glb."]}
