"""Kiln's child processes run below the artist's Blender, so its viewport keeps its rhythm.

On two cores the helper Blender opening a mesh at the same priority as the artist's Blender took
the UI thread's 10 ms timer from a p99 gap of 14 ms to 56 ms (issue 47). A child therefore starts
below normal: on Windows with ``BELOW_NORMAL_PRIORITY_CLASS`` (a creation flag, nothing runs
between fork and exec); on Linux and macOS its niceness is raised by the parent right after it
starts (``setpriority`` on a child of the same user needs no privilege). Not through ``preexec_fn``:
CPython documents running Python between fork and exec as unsafe in a threaded process, and
Blender is one.
"""

from __future__ import annotations

import logging
import os
import subprocess

log = logging.getLogger(__name__)

#: How much nicer than the artist's Blender a child runs (POSIX niceness steps; 19 is the floor).
NICER_BY = 10
MOST_NICE = 19


def creation_flags() -> int:
    """``Popen``'s ``creationflags`` for a child of Kiln: no console window, below-normal priority
    (both are 0 off Windows, where ``subprocess`` does not define them)."""
    below_normal = getattr(subprocess, "BELOW_NORMAL_PRIORITY_CLASS", 0)
    return getattr(subprocess, "CREATE_NO_WINDOW", 0) | below_normal


def run_below(pid: int) -> None:
    """Lower a POSIX child's CPU priority below this process's (nothing on Windows: its flag did it)."""
    if not hasattr(os, "setpriority"):
        return
    try:
        wanted = min(MOST_NICE, os.getpriority(os.PRIO_PROCESS, 0) + NICER_BY)
        os.setpriority(os.PRIO_PROCESS, pid, wanted)
    except OSError as exc:  # gone already, or a system that refuses: it runs at normal priority
        log.info("Could not lower the priority of child process %s: %s", pid, exc)
