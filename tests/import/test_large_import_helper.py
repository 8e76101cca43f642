"""Large results are imported by a helper Blender and appended, and nothing freezes or lingers.

Runs inside the bpy module: the helper is this very Python running ``operators/glb_to_blend.py``
(``bpy.app.binary_path`` is empty here), exactly what Kiln starts when it runs as the bpy module.
"""

from __future__ import annotations

import logging
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.meshes import write_textured_glb

TEXT = {"kind": "text", "prompt": "a red chair"}


@pytest.fixture(scope="module")
def large_glb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("large") / "large.glb"
    return path, write_textured_glb(path, 250_000)


@pytest.fixture
def jobs(kiln_module: Any) -> Any:
    return kiln_module("api.jobs")


@pytest.fixture
def convert(kiln_module: Any) -> Any:
    return kiln_module("api.convert")


@pytest.fixture
def make_engine(tmp_path: Path, jobs: Any) -> Iterator[Any]:
    engines: list[Any] = []

    def make(sandbox: Any, key: str, **overrides: Any) -> Any:
        config = jobs.ServiceConfig(
            base_url=sandbox.base_url, api_key=key, poll_interval=0.2, timeout_seconds=60.0, **overrides
        )
        engine = jobs.JobEngine(tmp_path / "state", workers=2)
        engine.start(config)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.shutdown()


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
        "objects": sorted((obj.type, obj.parent is None) for obj in objects),
        "triangles": triangles,
        "materials": sorted(slot.material.name for obj in objects for slot in obj.material_slots),
        "images": sorted((tuple(image.size), image.packed_file is not None) for image in images),
        "image_has_pixels": all(image.has_data and max(image.pixels[:4096]) > 0 for image in images),
    }


def leftovers(folder: Path) -> list[str]:
    """Temp files of a conversion (Blender saves through "<name>@"; ours go through ".part")."""
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".part", "@", ".blend")))


def test_a_large_textured_glb_through_the_helper_matches_the_in_process_import(
    blender: Any, kiln_module: Any, jobs: Any, convert: Any, large_glb: tuple[Path, int], tmp_path: Path
) -> None:
    glb, triangles = large_glb
    assert triangles >= 200_000
    import_job = kiln_module("operators.scene_import").import_job
    request = jobs.JobRequest(**TEXT)

    import_job(blender.context, jobs.Job(id="a", request=request, task_id="t-in", mesh_path=str(glb)))
    in_process = scene_summary(blender)
    assert in_process["triangles"] == triangles and in_process["images"]

    blender.ops.wm.read_homefile(use_empty=True)
    blender.context.scene.cursor.location = (1.0, 2.0, 3.0)
    command = convert.helper_command(blender.app.binary_path)
    assert command[0] == sys.executable  # the bpy module: its own Python runs the helper script
    blend = convert.convert_to_blend(command, glb, tmp_path / "t-helper.blend", cancelled=lambda: False)
    job = jobs.Job(id="b", request=request, task_id="t-helper", mesh_path=str(glb), blend_path=str(blend))
    names = import_job(blender.context, job)

    assert scene_summary(blender) == in_process
    assert all(image.packed_file is not None for image in blender.data.images if image.users)
    objects = [blender.data.objects[name] for name in names]
    assert all(obj.name in blender.data.collections["Kiln"].objects for obj in objects)
    assert all(obj["kiln_task_id"] == "t-helper" and obj["kiln_prompt"] == "a red chair" for obj in objects)
    roots = [obj for obj in objects if obj.parent is None]
    assert tuple(roots[0].location) == pytest.approx((1.0, 2.0, 3.0))
    assert blender.context.view_layer.objects.active in objects
    assert not list(blender.data.libraries), "the appended file must not stay referenced"
    assert leftovers(tmp_path) == [], "the .blend is deleted once appended"


def test_a_large_result_is_prepared_by_the_helper_and_appended(
    service: Any, blender: Any, kiln_module: Any, convert: Any, make_engine: Any, sandbox_key: str
) -> None:
    engine = make_engine(
        service, sandbox_key, large_import_triangles=0, helper_command=convert.helper_command("")
    )
    job = engine.submit(kiln_module("api.jobs").JobRequest(**TEXT))
    assert engine.wait([job.id], timeout=60)
    ready = engine.get(job.id)
    assert ready.state.value == "ready", ready.error
    assert Path(ready.blend_path) == engine.cache_dir / f"{job.id}.blend"  # named by Kiln, not the service
    assert leftovers(engine.cache_dir) == [Path(ready.blend_path).name]

    names = kiln_module("operators.scene_import").import_job(blender.context, ready)
    summary = scene_summary(blender)
    assert names and summary["triangles"] == ready.triangles
    assert summary["images"] and summary["image_has_pixels"]
    assert leftovers(engine.cache_dir) == []


FAILING_HELPERS = {
    "missing": ("/nonexistent/blender", "-b"),
    "crashing": (sys.executable, "-c", "import sys; sys.exit(3)"),
}


@pytest.mark.parametrize("helper", sorted(FAILING_HELPERS))
def test_a_failing_or_missing_helper_falls_back_to_the_in_process_import(
    service: Any,
    blender: Any,
    kiln_module: Any,
    make_engine: Any,
    sandbox_key: str,
    caplog: pytest.LogCaptureFixture,
    helper: str,
) -> None:
    caplog.set_level(logging.WARNING)
    engine = make_engine(
        service, sandbox_key, large_import_triangles=0, helper_command=FAILING_HELPERS[helper]
    )
    job = engine.submit(kiln_module("api.jobs").JobRequest(**TEXT))
    assert engine.wait([job.id], timeout=60)
    ready = engine.get(job.id)
    assert ready.state.value == "ready" and ready.blend_path == ""
    assert any("importing it in-process" in record.getMessage() for record in caplog.records)
    assert leftovers(engine.cache_dir) == []

    kiln_module("operators.scene_import").import_job(blender.context, ready)
    assert scene_summary(blender)["triangles"] == ready.triangles


def hanging_helper(tmp_path: Path) -> tuple[tuple[str, ...], Path]:
    """A helper that says who it is, then never finishes (as a stuck Blender would)."""
    script, pid_file = tmp_path / "hang.py", tmp_path / "helper.pid"
    script.write_text(
        textwrap.dedent(
            """
            import os, pathlib, sys, time
            pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
            time.sleep(120)
            """
        )
    )
    return (sys.executable, str(script), str(pid_file)), pid_file


def wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", ["cancel", "shutdown"])
def test_a_cancelled_job_or_stopping_engine_kills_its_helper(
    service: Any, blender: Any, kiln_module: Any, make_engine: Any, sandbox_key: str, tmp_path: Path, how: str
) -> None:
    command, pid_file = hanging_helper(tmp_path)
    engine = make_engine(service, sandbox_key, large_import_triangles=0, helper_command=command)
    job = engine.submit(kiln_module("api.jobs").JobRequest(**TEXT))
    wait_for(pid_file.exists)
    wait_for(lambda: pid_file.read_text().strip() != "")
    pid = int(pid_file.read_text())
    assert alive(pid)

    if how == "cancel":
        engine.cancel(job.id)
    else:
        engine.shutdown()
    wait_for(lambda: not alive(pid), timeout=5.0)
    wait_for(lambda: leftovers(engine.cache_dir) == [], timeout=5.0)
    state = engine.get(job.id).state.value
    assert state == ("cancelled" if how == "cancel" else "downloading")  # a stopped job resumes next start


def test_a_helper_past_its_time_limit_is_killed(
    convert: Any, tmp_path: Path, large_glb: tuple[Path, int]
) -> None:
    command, pid_file = hanging_helper(tmp_path)
    with pytest.raises(convert.ConversionError, match="did not finish"):
        convert.convert_to_blend(
            command, large_glb[0], tmp_path / "out.blend", cancelled=lambda: False, timeout=2.0
        )
    assert not alive(int(pid_file.read_text()))
    assert leftovers(tmp_path) == []


def test_an_unreadable_blend_falls_back_to_the_glb(
    blender: Any, kiln_module: Any, jobs: Any, large_glb: tuple[Path, int], tmp_path: Path, caplog: Any
) -> None:
    caplog.set_level(logging.WARNING)
    broken = tmp_path / "t.blend"
    broken.write_bytes(b"BLENDER but not really")
    job = jobs.Job(
        id="c",
        request=jobs.JobRequest(**TEXT),
        task_id="t",
        mesh_path=str(large_glb[0]),
        blend_path=str(broken),
    )
    kiln_module("operators.scene_import").import_job(blender.context, job)
    assert scene_summary(blender)["triangles"] == large_glb[1]
    assert any("importing the GLB in-process" in record.getMessage() for record in caplog.records)
    assert not broken.exists() and not list(blender.data.libraries)
