"""Which .blend is which, the same on every system.

A job imports on its own only into the .blend it was started from, so Kiln must know when two
paths name one file: ``c:\\art\\shot.blend`` and ``C:\\Art\\Shot.blend`` on Windows, a mapped
drive and its ``\\\\server\\share`` path, a symlinked project folder, or a path with another case
on macOS, whose disks ignore case by default.
"""

from __future__ import annotations

import ntpath
import os
import sys

#: How the identity of a .blend that was never saved starts (a per-session token follows).
UNSAVED_PREFIX = "unsaved:"


def file_identity(path: str, platform: str = sys.platform) -> str:
    """Equal for every spelling of one file: its real path, case folded where the system ignores case.

    ``platform`` other than this system's only folds the spelling (tests stand in for Windows and
    macOS that way); on the system itself, symlinks are resolved first, and on Windows
    ``realpath`` also turns a mapped drive into its ``\\\\server\\share`` path.
    """
    if platform == sys.platform:
        path = os.path.realpath(path)
    if platform == "win32":
        return ntpath.normcase(ntpath.normpath(path))
    if platform == "darwin":
        return path.casefold()
    return path
