"""Disk trouble as sentences: which folder, and why (read-only, full, not a folder, permission).

The engine catches ``OSError`` and ``sqlite3.Error`` where it touches the disk and raises or
stores :class:`StoreError`, whose ``user_message`` every operator can show as it is.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from ..errors import KilnError

#: Below this much free space a failed write is put down to a full disk.
LOW_SPACE_BYTES = 1024 * 1024
#: Kiln's folders inside its user folder: downloads and previews, and PNGs saved from Blender images
#: (kept for Retry until the job is removed).
CACHE_DIR = "cache"
UPLOADS_DIR = "uploads"


class StoreError(KilnError):
    """Kiln's folder cannot hold what it must record; nothing is sent until it can."""

    def __init__(self, user_message: str, folder: Path | None = None) -> None:
        super().__init__(user_message)
        self.folder = folder


def cause(folder: Path, exc: BaseException | None = None) -> str:
    """Why ``folder`` cannot be written, in a few words ("is read-only", "is full", …)."""
    code = exc.errno if isinstance(exc, OSError) else None
    name = getattr(exc, "sqlite_errorname", "") if isinstance(exc, sqlite3.Error) else ""
    probe = _nearest_existing(folder)
    if probe is not None and probe != folder and not probe.is_dir():
        return f"{probe} is a file, not a folder"
    if code in (errno.ENOTDIR, errno.EEXIST) or (folder.exists() and not folder.is_dir()):
        return "it is a file, not a folder"
    if code == errno.EROFS or name == "SQLITE_READONLY" or (probe is not None and _read_only(probe)):
        return "the disk or folder is read-only"
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)) or name == "SQLITE_FULL" or _full(probe):
        return "the disk is full"
    if code in (errno.EACCES, errno.EPERM) or (probe is not None and not os.access(probe, os.W_OK)):
        return "Kiln has no permission to write there"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) if exc is not None else "it cannot be written"


def store_error(folder: Path, exc: BaseException, doing: str = "record its jobs") -> StoreError:
    """The sentence for a failed write into ``folder`` (while Kiln tried to ``doing``)."""
    return StoreError(
        f"Kiln could not {doing} in {folder}: {cause(folder, exc)}. "
        "Nothing was sent. Free some space or fix the folder's permissions, then try again.",
        folder,
    )


def ensure_folder(folder: Path, doing: str = "record its jobs") -> None:
    """Create ``folder`` (and its parents); raises StoreError with the reason."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise store_error(folder, exc, doing) from exc
    if not folder.is_dir():
        raise store_error(folder, NotADirectoryError(errno.ENOTDIR, "not a folder"), doing)


def inside(path: str | Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies in it (no ``..`` or link leads out): Kiln only deletes there."""
    try:
        return Path(path).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):
        return False


def _nearest_existing(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        try:
            if candidate.exists():
                return candidate
        except OSError:
            return None
    return None


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs on Windows
        return False


def _full(path: Path | None) -> bool:
    if path is None:
        return False
    try:
        return shutil.disk_usage(path).free < LOW_SPACE_BYTES
    except OSError:
        return False
