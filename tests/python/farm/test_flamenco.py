"""Kiln's Flamenco job type, compiled under Node against a small stand-in of Flamenco's job-compiler API.

Not a Flamenco Manager: the Node test checks the tasks and commands the script asks for
(see tests/python/farm/flamenco_job_type.test.js); the worker side is the same farm script OpenJD runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_the_flamenco_job_type_compiles_chunks_then_a_summary() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Flamenco job type's compile test runs under Node")
    done = subprocess.run(
        [node, "--test", str(HERE / "flamenco_job_type.test.js")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 3" in done.stdout
