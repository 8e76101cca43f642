"""Disk trouble as sentences: why Kiln's folder cannot be written (read-only, full, not a folder,
permission); the system's own words go to the details. A file in the way of a folder is named in the
sentence (``name``), and its folder rides along (``folder``) for the button that opens it.

The engine catches ``OSError`` and ``sqlite3.Error`` where it touches the disk and raises or
stores :class:`StoreError`, whose ``message`` every operator can say as it is.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from ..errors import KilnError
from ..words import Entry, Message, message
from ..words import catalogue as words

#: Below this much free space a failed write is put down to a full disk.
LOW_SPACE_BYTES = 1024 * 1024
#: Kiln's folders inside its user folder: downloads and previews, and PNGs saved from Blender images
#: (kept for Retry until the job is removed).
CACHE_DIR = "cache"
UPLOADS_DIR = "uploads"


class StoreError(KilnError):
    """Kiln's folder cannot hold what it must record; nothing is sent until it can."""

    def __init__(self, said: Entry | Message, folder: Path | None = None, *, details: str = "") -> None:
        super().__init__(said, details=details)
        self.folder = folder


#: What keeps Kiln's folder from being written, by cause: the sentence while it records its jobs,
#: and while it saves any other file of its own.
_CAUSES: dict[str, tuple[Entry, Entry]] = {
    "not a folder": (words.JOB_LIST_NOT_A_FOLDER, words.FILES_NOT_A_FOLDER),
    "read-only": (words.JOB_LIST_READ_ONLY, words.FILES_READ_ONLY),
    "full": (words.JOB_LIST_DISK_FULL, words.FILES_DISK_FULL),
    "no permission": (words.JOB_LIST_NO_PERMISSION, words.FILES_NO_PERMISSION),
    "other": (words.JOB_LIST_FAILED, words.FILES_FAILED),
}
#: What Kiln was doing when its folder failed it, unless said otherwise.
RECORD_JOBS = "record its jobs"


def cause(folder: Path, exc: BaseException | None = None) -> tuple[str, str]:
    """Why ``folder`` cannot be written: a cause of ``_CAUSES``, and the facts for the details."""
    code = exc.errno if isinstance(exc, OSError) else None
    name = getattr(exc, "sqlite_errorname", "")  # set on sqlite3.Error only
    probe = _nearest_existing(folder)
    said = f"{type(exc).__name__}: {exc}" if exc is not None else ""
    if probe is not None and probe != folder and not probe.is_dir():
        return "not a folder", f"{probe} is a file, not a folder; {said}"
    if code in (errno.ENOTDIR, errno.EEXIST) or (folder.exists() and not folder.is_dir()):
        return "not a folder", f"{folder} is a file, not a folder; {said}"
    if code == errno.EROFS or name == "SQLITE_READONLY" or (probe is not None and _read_only(probe)):
        return "read-only", said
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)) or name == "SQLITE_FULL" or _full(probe):
        return "full", said
    if code in (errno.EACCES, errno.EPERM) or (probe is not None and not os.access(probe, os.W_OK)):
        return "no permission", said
    return "other", said


def in_the_way(folder: Path) -> Path:
    """The file that stands where ``folder`` (or one of its parents) should be: the nearest existing
    path, or ``folder`` itself when nothing of it can be seen."""
    return _nearest_existing(folder) or folder


def store_error(folder: Path, exc: BaseException, doing: str = RECORD_JOBS) -> StoreError:
    """The error for a failed write into ``folder`` (while Kiln tried to ``doing``); the folder, the
    cause's facts and what Kiln was doing go to the details. A file in the way is named."""
    kind, facts = cause(folder, exc)
    job_list, files = _CAUSES[kind]
    details = f"could not {doing} in {folder}: {facts}"
    entry = job_list if doing == RECORD_JOBS else files
    if kind == "not a folder":
        culprit = in_the_way(folder)
        said = message(entry, name=culprit.name, folder=str(culprit.parent), details=details)
        return StoreError(said, folder)
    return StoreError(entry, folder, details=details)


def ensure_folder(folder: Path, doing: str = RECORD_JOBS) -> None:
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
