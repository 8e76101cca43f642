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


#: Each other service: its stand-in, a key it takes, where Kiln reads both, and how many tasks one
#: text job makes there (Meshy's textured text job is a preview, then a refine).
OTHER_SERVICES = (
    ("TRIPO", "tripo", "tsk_live_crashtest0000", "KILN_TRIPO", 1),
    ("MESHY", "meshy", "msy_live_crashtest0000", "KILN_MESHY", 2),
    ("RODIN", "rodin", "rodin_live_crashtest0000", "KILN_RODIN", 1),
)


@pytest.mark.slow
@pytest.mark.parametrize(("service", "standin", "key", "variable", "tasks"), OTHER_SERVICES)
def test_sigkill_after_a_submit_to_another_service_resumes_there_with_no_task_made_twice(
    tmp_path: Path, service: str, standin: str, key: str, variable: str, tasks: int
) -> None:
    """The restarted Blender polls the right service with the right key, and sends nothing again."""
    from sandbox.server import Sandbox

    with Sandbox(service=standin, keys=[key], speed=2.0) as server:
        env = {
            **os.environ,
            "BLENDER_USER_RESOURCES": str(tmp_path / "user"),
            f"{variable}_BASE_URL": server.base_url,
            f"{variable}_API_KEY": key,
        }
        repo = tmp_path / "repo"
        task_id = killed_after_a_submit(env, repo, service)
        second = subprocess.run(
            [sys.executable, str(SCRIPTS / "resume_and_wait.py"), "--", str(repo)],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert second.returncode == 0, second.stderr[-3000:]
        assert "IMPORTED" in second.stdout and "a stone house" in second.stdout, second.stdout[-2000:]
        assert task_id in server.tasks or any(task_id in str(t) for t in server.tasks)
        assert server.submit_count == tasks, "no task was made twice"


#: The studio's own servers: their stand-in and where Kiln reads their address (no key); they take images.
LOCAL_SERVICES = (("COMFYUI", "comfyui", "KILN_COMFYUI"), ("HUNYUAN3D", "hunyuan3d", "KILN_HUNYUAN3D"))


@pytest.mark.slow
@pytest.mark.parametrize(("service", "standin", "variable"), LOCAL_SERVICES)
def test_sigkill_after_an_image_sent_to_a_studio_server_resumes_there_with_nothing_sent_twice(
    tmp_path: Path, service: str, standin: str, variable: str
) -> None:
    """The restarted Blender follows the same task on the studio's server; no key ever reaches it."""
    from concepts import CONCEPTS

    from sandbox.server import Sandbox

    with Sandbox(service=standin, speed=2.0) as server:
        env = {
            **os.environ,
            "BLENDER_USER_RESOURCES": str(tmp_path / "user"),
            f"{variable}_BASE_URL": server.base_url,
        }
        repo = tmp_path / "repo"
        task_id = killed_after_a_submit(env, repo, service, str(CONCEPTS / "chair.png"))
        second = subprocess.run(
            [sys.executable, str(SCRIPTS / "resume_and_wait.py"), "--", str(repo)],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert second.returncode == 0, second.stderr[-3000:]
        assert f"IMPORTED {task_id}" in second.stdout, second.stdout[-2000:]
        assert server.submit_attempts == 1, "nothing was sent twice"
        assert not [r for r in server.requests if "authorization" in r.headers]


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
