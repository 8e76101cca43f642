"""A Blender that sends a job and is killed (SIGKILL) once the job's task id is on disk."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from checkout import BLENDER_SCRIPTS


def killed_after_a_submit(env: dict[str, str], repo: Path, service: str = "", image: str = "") -> str:
    """Run ``submit_and_hang.py`` (Kiln enabled from ``repo``, the job sent to ``service`` or the
    preferences' choice; ``image`` instead of the prompt where given) until it reports its task id
    on disk, kill it, and return the task id."""
    first = subprocess.Popen(
        [
            sys.executable,
            str(BLENDER_SCRIPTS / "submit_and_hang.py"),
            "--",
            str(repo),
            *filter(None, [service, image]),
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
        return seen[-1].split()[1]
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
