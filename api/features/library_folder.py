"""The library folder on disk, below its index: the folder made where it may be, a file written
whole, and the names of files still being written.

Light on purpose (no job model): registering Kiln makes the library folder and writes which
libraries Kiln added (``session.library``); the index (``library_index``) stands on this.
"""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path

from .. import fs
from ..errors import StorageError

TEMP_SUFFIX = ".tmp"


def temp_name(final: Path) -> Path:
    """A unique name beside ``final`` that no reader takes for a finished file (hidden, ``.tmp``)."""
    return final.with_name(f".{final.name}.{uuid.uuid4().hex}{TEMP_SUFFIX}")


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def write_whole(path: Path, data: bytes) -> None:
    """Write ``path`` so that a reader anywhere sees the old file or the whole new one (StorageError)."""
    temp = temp_name(path)
    try:
        with temp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        fs.replace(temp, path)
    except OSError as exc:
        raise StorageError(path, exc) from None
    finally:
        if temp.exists():
            fs.discard(temp)


def reach_folder(folder: Path, create_parents: bool) -> None:
    """Make sure the library folder is there (StorageError with a sentence when it cannot be).

    A chosen folder whose parent is missing is most likely a network share that is not mounted:
    it is not created, so results never land on the local disk where the share should be.
    """
    if folder.is_dir():
        return
    if not create_parents and not folder.parent.is_dir():
        missing = FileNotFoundError(errno.ENOENT, "it, or the network share holding it, is not there")
        raise StorageError(folder, missing)
    try:
        folder.mkdir(parents=create_parents, exist_ok=True)
    except OSError as exc:
        raise StorageError(folder, exc) from None
