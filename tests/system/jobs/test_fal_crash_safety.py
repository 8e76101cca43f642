"""A Blender killed after sending an image job to fal.ai loses nothing: the next one resumes the
request on fal's queue (the model's own, from the tier kept with the job) and sends nothing twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import BLENDER_SCRIPTS
from concepts import CONCEPTS

KEY = "fal_live_crashtest0000"


@pytest.mark.slow
def test_sigkill_after_a_submit_to_fal_resumes_there_with_nothing_sent_twice(tmp_path: Path) -> None:
    from sandbox.server import Sandbox

    with Sandbox(service="fal", keys=[KEY], speed=2.0) as server:
        env = {
            **os.environ,
            "BLENDER_USER_RESOURCES": str(tmp_path / "user"),
            "KILN_FAL_BASE_URL": server.base_url,
            "KILN_FAL_API_KEY": KEY,
        }
        repo = tmp_path / "repo"
        image = CONCEPTS / "chair.png"
        first = subprocess.Popen(
            [
                sys.executable,
                str(BLENDER_SCRIPTS / "submit_image_and_hang.py"),
                "--",
                str(repo),
                "FAL",
                str(image),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert first.stdout is not None
            seen = [first.stdout.readline()]
            while seen[-1] and not seen[-1].startswith("TASK "):
                seen.append(first.stdout.readline())
            assert seen[-1].startswith("TASK "), "".join(seen[-30:])
            task_id = seen[-1].split()[1]
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()

        second = subprocess.run(
            [sys.executable, str(BLENDER_SCRIPTS / "resume_and_wait.py"), "--", str(repo)],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert second.returncode == 0, second.stderr[-3000:]
        assert f"IMPORTED {task_id}" in second.stdout, second.stdout[-2000:]
        assert server.submit_attempts == 1, "nothing was sent twice"
        polls = [r.path for r in server.requests if r.method == "GET" and not r.path.startswith("/files/")]
        assert polls and all(p.startswith(f"/fal-ai/trellis/requests/{task_id}") for p in polls)
