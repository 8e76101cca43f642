"""A damaged job list several Kiln processes share: one recovery at a time, never under a live one.

Moving a store aside is safe only while no other process has it open. A process with an open
connection keeps writing into the moved files (POSIX lets an open file be renamed), so its later
changes would land in the backup and a checkpoint of its own could overwrite the kept log; and
SQLite opening an emptied store deletes the log another process still writes to. So before Kiln
moves anything:

1. it takes the recovery lock (:func:`one_recovery`), so that two Kilns that found the same damage
   at the same moment do not both move it: the second would move the first's new, healthy list;
2. it judges the files again under that lock (the caller does: the first may have recovered them);
3. it asks whether another process has the store open (:func:`open_elsewhere`): SQLite holds a
   shared lock on one byte of the ``-shm`` file for as long as a connection is open (the "DMS" lock,
   https://www.sqlite.org/walformat.html), so Kiln tries to take that byte for an instant.

Where another process has it open, nothing is moved and nothing is opened: the other process keeps
its log and, when it closes, SQLite writes that log back into the main file; the next start finds
the list whole again, or damaged with nothing in use, and recovers it then.

Windows has no such byte to ask about from Python, and needs none: it refuses to rename a file
another process has open, so the move fails (a sentence naming the locked file) with nothing moved.
The POSIX probe opens and closes the ``-shm`` file, which drops this process's own locks on it; the
engine opens one store per process and has none open while it recovers, so none are held.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

#: The lock file beside the store: an empty SQLite file, locked (``BEGIN EXCLUSIVE``) while one
#: Kiln recovers; SQLite's locking works the same on every system Blender runs on.
LOCK_FILE = "jobs.recovery-lock"
#: How long one recovery may keep another Kiln waiting (a recovery takes milliseconds to a second).
LOCK_SECONDS = 30.0
#: https://www.sqlite.org/walformat.html, "the DMS lock": byte 128 of the -shm file (unix VFS).
DMS_BYTE = 128


@contextlib.contextmanager
def one_recovery(folder: Path) -> Iterator[None]:
    """Hold the folder's recovery lock; raises sqlite3.OperationalError ("locked") past the wait."""
    lock = sqlite3.connect(folder / LOCK_FILE, timeout=LOCK_SECONDS, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            lock.execute("ROLLBACK")
    finally:
        lock.close()


def open_elsewhere(store: Path) -> bool:
    """Whether another process has an SQLite connection to ``store`` open right now (POSIX)."""
    try:
        import fcntl
    except ImportError:  # Windows: the rename itself is refused while the files are open
        return False
    shm = store.with_name(store.name + "-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except OSError:
        return False  # no -shm: no connection in WAL mode has it open
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, DMS_BYTE)
        except OSError:
            log.info("%s is open in another process", store)
            return True
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, DMS_BYTE)
        return False
    finally:
        os.close(fd)
