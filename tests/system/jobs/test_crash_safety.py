"""A Blender killed mid-job loses nothing: the next one resumes the task and imports it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS
from killed_blender import killed_after_a_submit

SCRIPTS = BLENDER_SCRIPTS


@pytest.mark.slow
def test_sigkill_while_running_then_resume_imports_with_one_submit(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(speed=1.0)
    env = {
        **os.environ,
        "BLENDER_USER_RESOURCES": str(tmp_path / "user"),
        "KILN_BASE_URL": sandbox.base_url,
        "KILN_API_KEY": sandbox_key,
    }
    repo = tmp_path / "repo"
    task_id = killed_after_a_submit(env, repo)
    assert sandbox.tasks[task_id].status != "completed"

    second = subprocess.run(
        [sys.executable, str(SCRIPTS / "resume_and_wait.py"), "--", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"IMPORTED {task_id} a stone house" in second.stdout
    assert sandbox.submit_count == 1
