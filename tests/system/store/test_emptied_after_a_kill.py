"""Blender killed after a submit, then its job list emptied by something outside Kiln: the next
Blender keeps the list with its write-ahead log, and the paid job comes back from the log and lands
once, never sent again (issue 33). The log holds it because Blender died before a checkpoint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS
from killed_blender import killed_after_a_submit
from plain_words import internals_in

STORE = "jobs.sqlite3"


@pytest.mark.slow
def test_a_list_emptied_after_a_kill_keeps_its_log_and_the_job_lands_once(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(speed=0.05)  # the task runs on while no Blender follows it
    user, repo = tmp_path / "user", tmp_path / "repo"
    env = {
        **os.environ,
        "BLENDER_USER_RESOURCES": str(user),
        "KILN_BASE_URL": sandbox.base_url,
        "KILN_API_KEY": sandbox_key,
    }
    task_id = killed_after_a_submit(env, repo)
    (store,) = user.rglob(STORE)
    state = store.parent
    log = (state / f"{STORE}-wal").read_bytes()
    assert task_id.encode() in log and task_id.encode() not in store.read_bytes(), "not checkpointed"
    store.write_bytes(b"")  # something outside Kiln empties the list
    sandbox.complete_now(task_id)

    second = subprocess.run(
        [sys.executable, str(BLENDER_SCRIPTS / "resume_and_wait.py"), "--", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = second.stdout + second.stderr
    assert second.returncode == 0, output[-3000:]
    assert [line for line in second.stdout.splitlines() if line.startswith("IMPORTED ")] == [
        f"IMPORTED {task_id} a stone house"
    ]
    assert sandbox.submit_count == 1, "the job was never sent again"

    (backup,) = [p for p in state.glob(f"{STORE}.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert backup.read_bytes() == b"" and backup.with_name(backup.name + "-wal").read_bytes() == log
    sentence = (
        "Kiln's job list was emptied by something outside Kiln. Kiln kept a copy of it in its user "
        "folder and brought back 1 job from it."
    )
    assert sentence in output.splitlines(), output[-3000:]
    assert not internals_in(sentence) and f"{backup.name}-wal" in output, "the files are named in the log"
