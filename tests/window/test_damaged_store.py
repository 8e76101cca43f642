"""A job list SQLite would read as new, met by the Blender program with a window: the bytes are kept
as a backup, and the status bar and the Jobs panel say so (issues 25 and 33; ``blender -b`` has its
own tests in tests/system/store)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from program import Program, Window
from test_session_flow import SLOW, started_job

from sandbox.server import Sandbox

STORE = Path("extensions") / ".user" / "user_default" / "kiln" / "jobs.sqlite3"
START_ENGINE = "sys.modules[MODULE + '.session.runtime'].engine(bpy.context)"


@pytest.mark.parametrize("damage", ["emptied store", "garbage write-ahead log"])
def test_the_damage_is_kept_and_said_in_the_status_bar_and_the_panel(
    open_window: Callable[..., Window], user: Path, damage: str
) -> None:
    window = open_window()
    window.call(START_ENGINE)  # Kiln writes its job list
    assert window.quit() == 0
    store = user / STORE
    assert store.is_file()
    damaged = b"" if damage == "emptied store" else os.urandom(4096)
    store.with_name(store.name + ("" if damage == "emptied store" else "-wal")).write_bytes(damaged)

    window = open_window()
    window.call(START_ENGINE)
    deadline = time.monotonic() + 30
    while "Kiln kept a copy of it" not in (said := window.log()):
        assert time.monotonic() < deadline, f"no sentence in the status bar:\n{said[-3000:]}"
        time.sleep(0.25)
    (backup,) = [
        p for p in store.parent.glob("jobs.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    ]
    kept = backup if damage == "emptied store" else backup.with_name(backup.name + "-wal")
    assert kept.read_bytes() == damaged
    assert backup.name in said


def test_a_list_emptied_after_blender_was_killed_keeps_its_log_and_the_job_lands_once(
    program: Program,
    open_window: Callable[..., Window],
    user: Path,
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
) -> None:
    """Blender killed after a submit (the task id in the write-ahead log, not checkpointed), the list
    then emptied: the next Blender keeps the log, the job comes back from it and lands once (issue 33)."""
    sandbox = sandbox_factory(speed=SLOW)
    env = {"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key}
    window = open_window(env=env)
    scene = window.agent_dir / "scene.blend"
    window.call(f"bpy.ops.wm.save_as_mainfile(filepath={program.inside(scene)!r})")
    job = started_job(window, "a stone house")
    deadline = time.monotonic() + 60  # polled once: its task id was on disk before the first poll
    while not any(r.method == "GET" and r.path.endswith(job["task_id"]) for r in list(sandbox.requests)):
        assert time.monotonic() < deadline, "the job was never polled"
        time.sleep(0.1)
    window.kill()
    store = user / STORE
    log = store.with_name(store.name + "-wal").read_bytes()
    assert job["task_id"].encode() in log and job["task_id"].encode() not in store.read_bytes()
    store.write_bytes(b"")  # something outside Kiln empties the list
    sandbox.complete_now(job["task_id"])

    again = open_window(env=env, blend=scene)
    sentence = (
        "Kiln's job list was emptied by something outside Kiln. Kiln kept a copy of it in its user folder "
        "and brought back 1 job from it."
    )
    objects = again.wait_for("kiln_objects()", timeout=90)
    time.sleep(3.0)  # more heartbeats: a second landing would show now
    objects = again.call("result = kiln_objects()")
    assert [obj["task_id"] for obj in objects if obj["type"] == "MESH"] == [job["task_id"]], objects
    assert sandbox.submit_count == 1, "the job was never sent again"
    assert again.call(f"result = [j['state'] for j in kiln_jobs() if j['id'] == {job['id']!r}]") == [
        "imported"
    ]

    assert again.call(PROBLEMS) == [sentence], "the Jobs panel's sentence"
    # Blender logs each status-bar report; a sentence that opens with Kiln's name is said without "Kiln: ".
    reported = rf"operator +\| WARNING {re.escape(sentence)}$"
    assert re.search(reported, again.log(), re.MULTILINE), "the status bar's sentence"
    (backup,) = [
        p for p in store.parent.glob("jobs.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    ]
    assert backup.read_bytes() == b"" and backup.with_name(backup.name + "-wal").read_bytes() == log
    assert f"{backup.name}-wal" in again.log(), "the files are named in the console log"


PROBLEMS = "result = sys.modules[MODULE + '.session.runtime'].engine_if_started().store_problems()"
