"""A job outlives what an artist does to the session: File ▸ New, quitting, autosave."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from program import Program, Window
from sidebar import open_kiln_tab, viewport_centre

from sandbox.server import Sandbox

IN_VIEW3D = "with in_view3d('WINDOW'):\n    "
ACTIVE = "('submitting', 'queued', 'running', 'downloading')"
SLOW = 0.02  # a text job takes about four minutes unless the test finishes it


def started_job(window: Window, prompt: str) -> dict[str, str]:
    window.call(IN_VIEW3D + f"bpy.ops.kiln.generate_from_text(prompt={prompt!r})")
    return window.wait_for(f"[j for j in kiln_jobs() if j['task_id'] and j['state'] in {ACTIVE}]")[0]


def job_state(window: Window, job_id: str) -> str:
    return str(window.call(f"result = [j['state'] for j in kiln_jobs() if j['id'] == {job_id!r}][0]"))


def test_file_new_while_a_job_runs_keeps_it_out_of_the_new_file_and_import_still_works(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory(speed=SLOW)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    job = started_job(window, "a copper kettle")

    window.call(IN_VIEW3D + "bpy.ops.wm.read_homefile(app_template='')")  # File ▸ New ▸ General
    sandbox.complete_now(job["task_id"])
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {job['id']!r} and j['state'] == 'ready']", 60)
    time.sleep(2.0)  # several heartbeats: a wrong auto-import would have happened by now
    assert window.call("result = kiln_objects()") == []
    assert job_state(window, job["id"]) == "ready"

    open_kiln_tab(window)
    window.call(IN_VIEW3D + f"bpy.ops.kiln.import_job(job_id={job['id']!r})")
    objects = window.wait_for("kiln_objects()", timeout=30)
    assert {obj["task_id"] for obj in objects} == {job["task_id"]}
    assert job_state(window, job["id"]) == "imported"


def test_quit_mid_job_and_start_again_resumes_and_lands_once(
    program: Program,
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
) -> None:
    sandbox = sandbox_factory(speed=SLOW)
    env = {"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key}
    window = open_window(env=env)
    scene = window.agent_dir / "scene.blend"
    window.call(f"bpy.ops.wm.save_as_mainfile(filepath={program.inside(scene)!r})")
    job = started_job(window, "a carved wooden owl")
    assert window.quit() == 0

    sandbox.complete_now(job["task_id"])
    again = open_window(env=env, blend=scene)
    objects = again.wait_for("kiln_objects()", timeout=90)
    time.sleep(3.0)  # more heartbeats: a second landing would show now
    objects = again.call("result = kiln_objects()")
    assert {obj["task_id"] for obj in objects} == {job["task_id"]}
    assert len([obj for obj in objects if obj["type"] == "MESH"]) == 1, objects
    assert sandbox.submit_count == 1
    assert again.call(f"result = [j['state'] for j in kiln_jobs() if j['id'] == {job['id']!r}]") == [
        "imported"
    ]


def test_autosave_happens_while_a_job_runs(
    program: Program,
    user: Path,
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
) -> None:
    temp = program.workdir("autosave")
    program.blender(
        ["-b", "--python-expr",
         "import bpy; p = bpy.context.preferences.filepaths; p.use_auto_save_temporary_files = True; "
         f"p.auto_save_time = 1; p.temporary_directory = {program.inside(temp) + '/'!r}; "
         "bpy.ops.wm.save_userpref()"],
        user,
    )  # fmt: skip
    sandbox = sandbox_factory(speed=SLOW)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    # An unsaved change made by hand (select all over the viewport): autosave skips a clean file.
    window.display.xdotool("mousemove", "--sync", *viewport_centre(window), "key", "a")
    window.wait_for("bpy.data.is_dirty", timeout=10)
    job = started_job(window, "a lighthouse on a rock")

    deadline = time.monotonic() + 120
    while not list(temp.glob("*autosave*.blend")):
        assert time.monotonic() < deadline, f"no autosave in {temp} after 120 s"
        time.sleep(1.0)
    assert job_state(window, job["id"]) in ACTIVE, "the autosave came only after the job had ended"
