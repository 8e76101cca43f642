"""Which Kiln process owns a job, and whether that process is still there.

An owner is a pid plus the time its engine started (a later process that reuses the pid is a
different owner), and a heartbeat the owner's store thread writes every few seconds. An owner is
gone when it said goodbye (its row was removed on shutdown), when its pid no longer runs (killed,
crashed), or when its heartbeat is older than ``STALE_AFTER`` (frozen, or a reused pid).
"""

from __future__ import annotations

import os
import sys
import time

from .model import Owner

HEARTBEAT_SECONDS = 2.0
STALE_AFTER = 30.0


def this_process(label: str) -> Owner:
    """The owner identity of the engine being started in this process."""
    return Owner(pid=os.getpid(), started=time.time(), label=label)


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid runs (a zombie does not count)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _windows_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    except OSError:
        return False
    return not _zombie(pid)


def is_gone(
    owner: Owner | None, heartbeats: dict[tuple[int, float], float], now: float | None = None
) -> bool:
    """Whether nobody works on a job owned by ``owner`` any more (``heartbeats``: owner key → last beat)."""
    if owner is None:
        return True
    beat = heartbeats.get(owner.key)
    if beat is None:
        return True
    if (now if now is not None else time.time()) - beat > STALE_AFTER:
        return True
    return not pid_alive(owner.pid)


def _zombie(pid: int) -> bool:
    """Linux: a killed child its parent has not reaped yet still answers kill(0)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def _windows_alive(pid: int) -> bool:
    import ctypes

    process_query_limited_information, still_active = 0x1000, 259
    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(process_query_limited_information, False, pid)
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return False
        return code.value == still_active
    finally:
        kernel32.CloseHandle(handle)
