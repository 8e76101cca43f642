"""The sandbox in its own (lower-priority) process: the service is another machine in real life.

Used where this process's main thread is being timed: an in-process sandbox would compete
with it for the GIL and the CPU, and make Kiln look slower than it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bench.addon import ROOT

KEY = "sbx_live_bench00000000"
SANDBOX = (sys.executable, "-m", "sandbox")


@contextmanager
def sandbox_process(speed: float) -> Iterator[str]:
    """Start ``python -m sandbox`` on a free port; yields its base URL; stops it after."""
    process = subprocess.Popen(
        [*SANDBOX, "--port", "0", "--key", KEY, "--speed", str(speed), "--log-level", "WARNING"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.nice(10),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"the sandbox did not start: {line!r}")
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        process.terminate()
        process.wait(10)
