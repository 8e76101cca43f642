"""Every result goes through the warm helper Blender and is appended; the helper lives as long as it should.

Runs inside the bpy module: the helper is this very Python running ``helper_blender/main.py``
(``bpy.app.binary_path`` is empty here, so Kiln itself would import in place, and says so once).
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from import_support import TEXT, alive, wait_for
from importing import job_importer


def scene_summary(bpy: Any) -> dict[str, Any]:
    """What an artist would compare: objects, triangles, materials and their images."""
    objects = [obj for obj in bpy.data.objects if "kiln_task_id" in obj]
    triangles = 0
    images = []
    for obj in objects:
        if obj.type == "MESH":
            obj.data.calc_loop_triangles()
            triangles += len(obj.data.loop_triangles)
        for slot in obj.material_slots:
            for node in slot.material.node_tree.nodes:
                if node.type == "TEX_IMAGE" and node.image is not None:
                    images.append(node.image)
    return {
        "objects": len(objects),
        "triangles": triangles,
        "images": sorted((tuple(image.size), image.packed_file is not None) for image in images),
    }


def leftovers(folder: Path) -> list[str]:
    """Temp files of a conversion (Blender saves through "<name>@"; ours go through ".part")."""
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".part", "@", ".blend")))


def started_pids(caplog: pytest.LogCaptureFixture) -> list[int]:
    return [
        int(match.group(1))
        for record in caplog.records
        if (match := re.search(r"Helper Blender .* started \(pid (\d+)\)", record.getMessage()))
    ]


def run_job(engine: Any, jobs: Any, prompt: str = TEXT["prompt"]) -> Any:
    job = engine.submit(jobs.JobRequest(kind="text", prompt=prompt))
    assert engine.wait([job.id], timeout=90)
    return engine.get(job.id)


def test_every_result_is_prepared_by_the_warm_helper_and_appended(
    service: Any,
    blender: Any,
    kiln_module: Any,
    jobs: Any,
    isolation: Any,
    make_engine: Any,
    sandbox_key: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    engine = make_engine(service, sandbox_key, helper_command=isolation.module_helper_command())
    import_job = job_importer(kiln_module)
    for prompt in ("a red chair", "a blue mug"):
        ready = run_job(engine, jobs, prompt)
        assert ready.state.value == "ready", ready.error
        assert ready.triangles < 200_000, "small results go through the helper too"
        assert (
            Path(ready.blend_path) == engine.cache_dir / f"{ready.id}.blend"
        )  # named by Kiln, not the service
        assert leftovers(engine.cache_dir) == [Path(ready.blend_path).name]
        blender.ops.wm.read_homefile(use_empty=True)
        assert import_job(blender.context, ready)
        summary = scene_summary(blender)
        assert summary["triangles"] == ready.triangles and summary["images"]
        assert all(packed for _size, packed in summary["images"])
        assert leftovers(engine.cache_dir) == [] and not list(blender.data.libraries)

    pids = started_pids(caplog)
    assert len(pids) == 1, "one helper, kept warm for the second job"
    assert alive(pids[0])
    engine.shutdown()
    wait_for(lambda: not alive(pids[0]), timeout=5.0)


def test_an_idle_helper_ends_on_its_own_and_the_next_mesh_starts_another(
    isolation: Any, helper: Any, small_glb: tuple[Path, int], tmp_path: Path
) -> None:
    limits = isolation.HelperLimits(idle_seconds=0.5)
    command = isolation.module_helper_command()
    helper.convert(command, limits, small_glb[0], tmp_path / "a.blend", cancelled=lambda: False)
    first = helper.pid
    assert first is not None and alive(first)
    wait_for(lambda: not alive(first), timeout=10.0)
    helper.convert(command, limits, small_glb[0], tmp_path / "b.blend", cancelled=lambda: False)
    assert helper.pid not in (None, first)
    assert (tmp_path / "b.blend").is_file()


@pytest.mark.parametrize("ending", ["idle", "closed"])
def test_an_idle_helper_ends_as_blender_ends_and_leaves_no_temporary_folder(
    blender: Any,
    isolation: Any,
    helper: Any,
    small_glb: tuple[Path, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ending: str,
) -> None:
    """Ended idle (by its timer, or by the engine stopping) the helper is asked to end, not killed:
    a killed Blender leaves its temporary folder behind in the artist's temp folder, one a helper."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # where this helper's Blender makes its folder
    limits = isolation.HelperLimits(idle_seconds=0.5 if ending == "idle" else 600.0)
    command = isolation.module_helper_command()
    helper.convert(command, limits, small_glb[0], tmp_path / "a.blend", cancelled=lambda: False)
    pid = helper.pid
    assert pid is not None and [p.name for p in temp.iterdir() if p.name.startswith("blender")]
    if ending == "closed":
        helper.close()
    wait_for(lambda: not alive(pid), timeout=15.0)
    if blender.app.version < (5, 0, 0):
        pytest.skip(
            "Blender 4.2's bpy module crashes as it exits (tests/conftest.py), which leaves the folder "
            "however the helper ends; the Blender program an artist runs ends cleanly"
        )
    wait_for(lambda: list(temp.iterdir()) == [], timeout=5.0)


def test_with_import_in_this_blender_only_large_meshes_still_use_the_helper(
    service: Any, jobs: Any, isolation: Any, make_engine: Any, sandbox_key: str
) -> None:
    command = isolation.module_helper_command()
    small = make_engine(service, sandbox_key, helper_command=command, import_in_place=True)
    ready = run_job(small, jobs)
    assert ready.state.value == "ready" and ready.blend_path == ""
    small.shutdown()
    large = make_engine(
        service, sandbox_key, helper_command=command, import_in_place=True, large_import_triangles=0
    )
    ready = run_job(large, jobs, "a green tree")
    assert ready.state.value == "ready" and ready.blend_path.endswith(".blend")


HELPERLESS = {
    "bpy module": (),
    "missing": ("/nonexistent/blender", "-b"),
    "dies at start": (sys.executable, "-c", "import sys; sys.exit(3)"),
}


@pytest.mark.parametrize("helper_command", sorted(HELPERLESS))
def test_where_no_helper_can_run_kiln_imports_in_place_and_says_so_once(
    service: Any,
    blender: Any,
    kiln_module: Any,
    jobs: Any,
    isolation: Any,
    make_engine: Any,
    sandbox_key: str,
    caplog: pytest.LogCaptureFixture,
    helper_command: str,
) -> None:
    caplog.set_level(logging.WARNING)
    engine = make_engine(service, sandbox_key, helper_command=HELPERLESS[helper_command])
    import_job = job_importer(kiln_module)
    for prompt in ("a red chair", "a blue mug"):
        ready = run_job(engine, jobs, prompt)
        assert ready.state.value == "ready" and ready.blend_path == "", ready.error
        assert import_job(blender.context, ready)
    said = [r.getMessage() for r in caplog.records if "Kiln opens meshes in this Blender" in r.getMessage()]
    assert len(said) == 1, said
    tries = [r for r in caplog.records if "HelperUnavailable" in r.getMessage()]
    assert len(tries) == (0 if helper_command == "bpy module" else 1), "one try to start it per session"
    if helper_command == "bpy module":
        assert "bpy module" in said[0]
    assert scene_summary(blender)["objects"] >= 2
    assert isolation.in_place_notice.take() is None, "the status bar was told once, after the first import"
    assert leftovers(engine.cache_dir) == []


@pytest.mark.parametrize("how", ["cancel", "shutdown"])
def test_a_cancelled_job_or_stopping_engine_kills_its_helper(
    service: Any,
    jobs: Any,
    make_engine: Any,
    sandbox_key: str,
    standin: tuple[tuple[str, ...], Path],
    how: str,
) -> None:
    command, mode = standin
    mode.write_text("hang")
    busy = mode.parent / "busy"
    engine = make_engine(service, sandbox_key, helper_command=command)
    job = engine.submit(jobs.JobRequest(**TEXT))
    wait_for(lambda: busy.exists() and busy.read_text().strip() != "", timeout=60.0)
    pid = int(busy.read_text())
    assert alive(pid)

    if how == "cancel":
        engine.cancel(job.id)
    else:
        engine.shutdown()
    wait_for(lambda: not alive(pid), timeout=5.0)
    wait_for(lambda: leftovers(engine.cache_dir) == [], timeout=5.0)
    state = engine.get(job.id).state.value
    assert state == ("cancelled" if how == "cancel" else "downloading")  # a stopped job resumes next start


@pytest.mark.parametrize("allowed", [False, True], ids=["isolated", "in place allowed"])
def test_an_unreadable_blend_is_a_sentence_unless_in_place_imports_are_allowed(
    blender: Any,
    kiln_module: Any,
    jobs: Any,
    small_glb: tuple[Path, int],
    tmp_path: Path,
    allowed: bool,
) -> None:
    scene_import = kiln_module("session.scene_import")
    prefs = kiln_module("preferences").get()
    broken = tmp_path / "t.blend"
    broken.write_bytes(b"BLENDER but not really")
    job = jobs.Job(
        id="c",
        request=jobs.JobRequest(**TEXT),
        task_id="t",
        mesh_path=str(small_glb[0]),
        blend_path=str(broken),
    )
    prefs.import_in_place = allowed
    try:
        if allowed:
            job_importer(kiln_module)(blender.context, job)
            assert scene_summary(blender)["triangles"] == small_glb[1]
        else:
            with pytest.raises(
                scene_import.ImportFailed, match="could not open the copy of the mesh it had prepared"
            ):
                job_importer(kiln_module)(blender.context, job)
            assert scene_summary(blender)["objects"] == 0
    finally:
        prefs.import_in_place = False
    assert not broken.exists() and not list(blender.data.libraries)


def test_the_helper_is_the_running_blender_program_never_python(isolation: Any, tmp_path: Path) -> None:
    blender = tmp_path / "blender"
    blender.write_text("#!/bin/sh\n")
    blender.chmod(0o755)
    command = isolation.helper_command(str(blender))
    assert command[:4] == (str(blender), "-b", "--factory-startup", "--python-exit-code")
    assert command[-2:] == ("--python", str(isolation.route.SCRIPT)) and isolation.route.SCRIPT.is_file()
    assert isolation.helper_command("") == ()
    assert isolation.helper_command(sys.executable) == ()
    assert isolation.helper_command(str(tmp_path / "missing")) == ()


def test_which_meshes_go_through_the_helper(jobs: Any, isolation: Any, small_glb: tuple[Path, int]) -> None:
    glb, triangles = small_glb
    isolated = jobs.ServiceConfig(base_url="", api_key="")
    assert isolated.import_in_place is False
    assert isolation.wants_helper(isolated, glb, triangles)
    in_place = jobs.ServiceConfig(base_url="", api_key="", import_in_place=True)
    assert not isolation.wants_helper(in_place, glb, triangles)
    assert isolation.wants_helper(in_place, glb, 250_000)
    tiny_files = jobs.ServiceConfig(base_url="", api_key="", import_in_place=True, large_import_bytes=10)
    assert isolation.wants_helper(tiny_files, glb, None)


def test_a_script_generates_through_the_helper_end_to_end(
    service: Any,
    blender: Any,
    kiln_module: Any,
    isolation: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The operator a pipeline calls, with the helper a real Blender would get (here the bpy module's)."""
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(isolation, "helper_command", lambda _binary: isolation.module_helper_command())
    blender.context.scene.cursor.location = (0.0, 0.0, 2.0)
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    objects = [obj for obj in blender.data.objects if "kiln_task_id" in obj]
    assert objects and all(obj.name in blender.data.collections["Kiln"].objects for obj in objects)
    assert any("prepared by the helper Blender" in r.getMessage() for r in caplog.records)
    assert not list(blender.data.libraries)
    engine = kiln_module("session.runtime").engine_if_started()
    assert leftovers(engine.cache_dir) == []
    pids = started_pids(caplog)
    assert len(pids) == 1 and alive(pids[0])
    kiln_module("session.runtime").shutdown()  # what disabling the add-on does
    wait_for(lambda: not alive(pids[0]), timeout=5.0)
