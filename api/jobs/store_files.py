"""What Kiln can tell about its job store's files before SQLite opens them.

SQLite reads two kinds of damage as "nothing here" and acts on them at once: a zero-byte
database is a new one (it writes a fresh schema into it), and a write-ahead log (``-wal``)
whose header it rejects is treated as empty and reset at the next write. Either would lose the
jobs only that file held, without a word and without a backup. So the store looks first
(:func:`damage`), and a file found so is backed up and said like any other damage.

How Kiln knows it had written a store: an empty store file is also what SQLite makes the moment
another Kiln starts creating the list, so emptiness alone proves nothing. Kiln writes a small
marker (:data:`MARKER`) beside the store once the store holds its tables, and removes it just
before it creates a store where none is. An empty store with the marker beside it was written
and then emptied; an empty store without it is one being created. (The marker is checked for
presence only; a marker missing from a folder an older Kiln wrote is added on the next open.)
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
MARKER = "jobs.written"
#: https://www.sqlite.org/fileformat2.html#walformat: the 32-byte header of a write-ahead log.
WAL_HEADER_BYTES = 32
ByteOrder = Literal["little", "big"]
WAL_MAGIC: dict[int, ByteOrder] = {0x377F0682: "little", 0x377F0683: "big"}  # the checksum's byte order
WAL_VERSION = 3007000
#: A header may be read while another Kiln's SQLite rewrites it: a bad one is read again after this.
REREAD_SECONDS = 0.05

_MARKER_TEXT = (
    "Kiln has written its job list (jobs.sqlite3) in this folder. If that file is ever found\n"
    "empty, it was damaged, and Kiln keeps it as a backup instead of starting a new list.\n"
)


def damage(store: Path) -> str | None:
    """Why ``store`` (or its write-ahead log) must be kept as damaged before SQLite opens it; or None."""
    try:
        with store.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return None
    if head and head != SQLITE_MAGIC:
        return "it is not a database (its first bytes are wrong)"
    if not head and (store.parent / MARKER).exists():
        return "it was emptied: the file is 0 bytes, though Kiln had written its list to it"
    wal = store.with_name(store.name + "-wal")
    problem = wal_problem(wal)
    if problem is not None:
        time.sleep(REREAD_SECONDS)
        problem = wal_problem(wal)
    return f"its write-ahead log {wal.name} {problem}" if problem is not None else None


def wal_problem(wal: Path) -> str | None:
    """Why SQLite would reject the header of ``wal``, in a few words; None when it would not.

    A missing log, or one shorter than a header, holds no committed change (SQLite writes the
    header with the first change), so there is nothing in it to lose.
    """
    try:
        with wal.open("rb") as fh:
            header = fh.read(WAL_HEADER_BYTES)
    except FileNotFoundError:
        return None
    if len(header) < WAL_HEADER_BYTES:
        return None
    words = [int.from_bytes(header[i : i + 4], "big") for i in range(0, WAL_HEADER_BYTES, 4)]
    magic, version, page_size = words[0], words[1], words[2]
    if magic not in WAL_MAGIC:
        return "does not start like one"
    if version != WAL_VERSION:
        return f"names a format version SQLite does not know ({version})"
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return f"names an impossible page size ({page_size})"
    if _checksum(header[:24], WAL_MAGIC[magic]) != (words[6], words[7]):
        return "has a header whose checksum is wrong"
    return None


def mark_written(store: Path) -> None:
    """The store holds Kiln's tables: from now on an empty store file is damage (best effort)."""
    marker = store.parent / MARKER
    if marker.exists():
        return
    try:
        marker.write_text(_MARKER_TEXT, encoding="utf-8")
    except OSError as exc:
        log.debug("Could not write %s: %s", marker, exc)


def forget_written(store: Path) -> None:
    """No store here: the next one starts empty while it is created, which is not damage."""
    with contextlib.suppress(FileNotFoundError):
        (store.parent / MARKER).unlink()


def _checksum(data: bytes, order: ByteOrder) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), words read in ``order``."""
    s0 = s1 = 0
    for i in range(0, len(data), 8):
        s0 = (s0 + int.from_bytes(data[i : i + 4], order) + s1) & 0xFFFFFFFF
        s1 = (s1 + int.from_bytes(data[i + 4 : i + 8], order) + s0) & 0xFFFFFFFF
    return s0, s1
