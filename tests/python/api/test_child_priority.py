"""Kiln's child processes run below the artist's Blender (issue 47, item 6): the helper Blender's
process, started the way Kiln starts it, is nicer than this process on Linux."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api.isolation import priority
from api.isolation.child import HelperProcess

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX niceness, read on Linux")


def _niceness(pid: int) -> int:
    """The process's niceness as the kernel reports it (field 19 of /proc/<pid>/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    return int(stat.rsplit(")", 1)[1].split()[16])


def test_the_helper_child_starts_below_this_process() -> None:
    mine = _niceness(os.getpid())
    child = HelperProcess([sys.executable, "-c", "import time; time.sleep(30)"], ceiling=2**34)
    try:
        assert _niceness(child.pid) == min(priority.MOST_NICE, mine + priority.NICER_BY) > mine
        assert _niceness(os.getpid()) == mine, "only the child is lowered"
    finally:
        child.kill()


def test_a_child_already_gone_is_no_error() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    time.sleep(0.05)
    priority.run_below(process.pid)  # logged, not raised


def test_windows_children_are_asked_below_normal_by_their_creation_flag() -> None:
    """Off Windows the flags are 0; on Windows they hold BELOW_NORMAL_PRIORITY_CLASS (0x4000)."""
    flags = priority.creation_flags()
    assert flags == 0 if not hasattr(subprocess, "BELOW_NORMAL_PRIORITY_CLASS") else flags & 0x4000
