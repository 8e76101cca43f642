"""What Kiln can tell about its job store's files before SQLite opens them.

SQLite reads several kinds of damage as "nothing here" and acts on them at once: a zero-byte or
missing main file is a new database (SQLite writes a fresh schema into it and deletes the
write-ahead log beside it, ``-wal``, with every change only that log held), and a log whose header
it rejects is treated as empty and reset at the next write. A main file cut short is read with the
log checkpointed into it, so the log's own bytes are gone before anyone could keep them. So the
store looks first (:func:`damage`), reading headers itself (:mod:`.wal`), and a file found so is
kept, main file and log together, and said like any other damage.

How Kiln knows it had written a store: an empty store file is also what SQLite makes the moment
another Kiln starts creating the list, so emptiness alone proves nothing. Kiln writes a small
marker (:data:`MARKER`) beside the store once the store holds its tables, and removes it just
before it creates a store where none is. An empty store with the marker beside it was written
and then emptied; an empty store without it is one being created. (The marker is checked for
presence only; a marker missing from a folder an older Kiln wrote is added on the next open.)
A log with bytes in it beside an empty or missing main file is damage with or without the marker:
SQLite writes the main file's first page before it ever starts a log.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from . import wal

log = logging.getLogger(__name__)

MARKER = "jobs.written"
#: A header may be read while another Kiln's SQLite rewrites it: a bad one is read again after this.
REREAD_SECONDS = 0.05
#: The first bytes of a database file that hold its header (page size, size in pages).
DATABASE_HEADER_BYTES = 100

_MARKER_TEXT = (
    "Kiln has written its job list (jobs.sqlite3) in this folder. If that file is ever found\n"
    "empty, it was damaged, and Kiln keeps it as a backup instead of starting a new list.\n"
)


#: What happened to the main file (emptied, deleted, cut short, overwritten), to its write-ahead log
#: (log); or what SQLite found (unreadable), or tables Kiln did not write (foreign).
DamageKind = Literal["emptied", "deleted", "cut short", "overwritten", "log", "unreadable", "foreign"]


@dataclass(frozen=True)
class Damage:
    """Why a store must be kept as damaged: ``kind`` chooses the artist's sentence, ``detail`` says
    exactly what was found, for the console log."""

    kind: DamageKind
    detail: str


def _log_path(store: Path) -> Path:
    return store.with_name(store.name + "-wal")


def damage(store: Path) -> Damage | None:
    """Why ``store`` (or its write-ahead log) must be kept as damaged before SQLite opens it; or None."""
    head, size = _read_head(store)
    found = _replaced(store, head, size)
    if found is not None or size <= 0:
        return found
    log_file = _log_path(store)
    short = _cut_short(head, size, log_file)
    if short is not None:
        return Damage("cut short", short)
    problem = _log_problem(log_file)
    if problem is not None:
        time.sleep(REREAD_SECONDS)
        problem = _log_problem(log_file)
    return Damage("log", f"its write-ahead log {log_file.name} {problem}") if problem is not None else None


def replaced(store: Path) -> Damage | None:
    """Damage that is never a passing state of a store SQLite is writing (emptied, deleted or
    overwritten main file), so a process with the store open may act on it at once. A main file
    found short, or a log header found wrong, may be one another process is writing this instant."""
    return _replaced(store, *_read_head(store))


def _read_head(store: Path) -> tuple[bytes, int]:
    """The first bytes of the main file and its size; size -1 when there is no main file."""
    try:
        with store.open("rb") as fh:
            return fh.read(DATABASE_HEADER_BYTES), fh.seek(0, 2)
    except FileNotFoundError:
        return b"", -1


def _replaced(store: Path, head: bytes, size: int) -> Damage | None:
    log_file = _log_path(store)
    logged = _size(log_file)
    if size < 0:
        return Damage("deleted", f"the file is missing, {_beside(log_file, logged)}") if logged else None
    if not size:
        if logged:
            return Damage("emptied", f"the file is 0 bytes, {_beside(log_file, logged)}")
        if (store.parent / MARKER).exists():
            return Damage("emptied", "the file is 0 bytes, though Kiln had written its list to it")
        return None
    if not head.startswith(wal.SQLITE_MAGIC[: len(head)]):
        return Damage("overwritten", "it is not a database (its first bytes are wrong)")
    if len(head) == DATABASE_HEADER_BYTES and not wal.page_size_of(head):
        return Damage("overwritten", "its header names a page size SQLite does not allow")
    return None


def _cut_short(head: bytes, size: int, log_file: Path) -> str | None:
    """Why a main file is shorter than its own header says, when its log does not make up for it.

    A checkpoint writes the log's pages into the main file one by one, first page first: a main
    file found short while (or after) one ran is whole again with its log, and SQLite reads it so.
    """
    if len(head) < DATABASE_HEADER_BYTES:
        return f"it is cut short inside its header ({size} bytes)"
    page_size = wal.page_size_of(head)
    named = int.from_bytes(head[28:32], "big") if head[92:96] == head[24:28] else 0
    pages = max(named, -(-size // page_size))
    if size == pages * page_size:
        return None
    try:
        found = wal.committed(log_file.read_bytes())
    except FileNotFoundError:
        found = None
    if found is not None and found.size and found.page_size == page_size:
        missing = range(size // page_size + 1, found.size + 1)
        if all(number in found.pages for number in missing):
            return None
    return f"it is cut short: {size} bytes of the {pages * page_size} its header names"


def _beside(log_file: Path, size: int) -> str:
    return f"though its write-ahead log {log_file.name} beside it holds {size} bytes"


def _log_problem(log_file: Path) -> str | None:
    try:
        with log_file.open("rb") as fh:
            return wal.problem(fh.read(wal.HEADER_BYTES))
    except FileNotFoundError:
        return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


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
