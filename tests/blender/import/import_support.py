"""Small helpers shared by the import tests (a module of its own: ``conftest`` names clash across folders)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

TEXT = {"kind": "text", "prompt": "a red chair"}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        # A killed child that is not reaped yet is a zombie: gone for every purpose here.
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except OSError:
        return True


def wait_for(condition: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
