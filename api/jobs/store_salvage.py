"""What can still be read from a damaged store kept as a backup: its jobs and its owners.

Nothing here opens the kept files with SQLite (it would reset or delete the log): their bytes are
read, and SQLite works on a copy rebuilt in memory (:func:`.wal.rebuild`), read-only. Two readers,
the newest version of each job winning (by its ``rev``, a counter every change raises):

* SQLite over the rebuilt copy, the whole table or row by row past a damaged page;
* the rows on the table pages the log committed (:mod:`.leaf_pages`), for when the copy cannot be
  opened at all: a main file emptied or deleted after a checkpoint took its first page with it,
  while the page with the newest job is in the log. A job removed in the log stays removed.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import leaf_pages, wal

log = logging.getLogger(__name__)

SALVAGE_GAP = 1000  # rowids in a row that could not be read before salvage stops looking
Owner = tuple[int | float, int | float, int | float, str]  # pid, started, heartbeat, label


@dataclass
class StoreSalvage:
    """A damaged store's readable jobs (newest version of each) and owners, and what the log gave."""

    records: list[dict[str, Any]] = field(default_factory=list)
    owners: list[Owner] = field(default_factory=list)
    log_pages: int = 0  # committed pages in the kept log
    from_log_pages: int = 0  # jobs only the log's pages gave back (for the console log)


def salvage(backup: Path) -> StoreSalvage:
    """What can be read from the store kept as ``backup`` (its ``-wal`` beside it, either may be gone)."""
    committed = wal.committed(_bytes(backup.with_name(backup.name + "-wal")))
    found = StoreSalvage(log_pages=len(committed.pages) if committed is not None else 0)
    newest: dict[str, tuple[int, dict[str, Any]]] = {}
    image = wal.rebuild(_bytes(backup), committed)
    whole = image is not None and _read_copy(image, newest, found)
    if committed is not None and not whole:
        before = set(newest)
        _read_pages(committed, newest, found)
        found.from_log_pages = len(set(newest) - before)
    found.records = [record for _, record in newest.values()]
    return found


def _read_copy(image: bytes, newest: dict[str, tuple[int, dict[str, Any]]], found: StoreSalvage) -> bool:
    """Jobs and owners SQLite reads from the rebuilt copy; whether it read the job table whole."""
    try:
        connection = sqlite3.connect(":memory:")
        connection.deserialize(image)
        connection.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        log.info("SQLite cannot read the rebuilt copy: %s", exc)
        return False
    whole = True
    try:
        try:
            rows = connection.execute("SELECT rev, data FROM jobs").fetchall()
        except sqlite3.Error:
            whole, rows = False, list(_row_by_row(connection))
        for rev, data in rows:
            _keep(newest, rev, data)
        try:
            owners = connection.execute("SELECT pid, started, heartbeat, label FROM owners").fetchall()
        except sqlite3.Error:
            owners = []
        found.owners = [_owner(row) for row in owners if _is_owner(tuple(row))]
    finally:
        connection.close()
    return whole


def _read_pages(
    committed: wal.Committed, newest: dict[str, tuple[int, dict[str, Any]]], found: StoreSalvage
) -> None:
    """Rows carved from the log's table pages, told apart by their columns: a job (id, rev, state,
    data), a removed job (id, rev), an owner (pid, started, heartbeat, label). Only where SQLite could
    not read the job table whole: a page the log holds may be one freed since, with old rows on it."""
    removed: dict[str, int] = {}
    owners = set(found.owners)
    for values in leaf_pages.rows(committed.pages, committed.page_size):
        shape = tuple(type(value) for value in values)
        if shape == (str, int, str, str):
            _keep(newest, values[1], values[3], job_id=values[0])
        elif shape == (str, int):
            removed[str(values[0])] = max(int(values[1] or 0), removed.get(str(values[0]), 0))
        elif _is_owner(tuple(values)):
            owners.add(_owner(values))
    for job_id, rev in removed.items():
        if job_id in newest and newest[job_id][0] <= rev:
            del newest[job_id]
    found.owners = sorted(owners, key=str)


def _keep(newest: dict[str, tuple[int, dict[str, Any]]], rev: Any, data: Any, job_id: Any = None) -> None:
    """Keep ``data`` as its job's record if it is one and newer than the version kept so far."""
    try:
        record = json.loads(data) if isinstance(data, str | bytes) else None
    except ValueError:
        return
    if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not record["id"]:
        return
    if job_id is not None and record["id"] != job_id:
        return
    rev = rev if isinstance(rev, int) else 0
    if record["id"] not in newest or newest[record["id"]][0] < rev:
        newest[record["id"]] = (rev, record)


def _is_owner(row: tuple[Any, ...]) -> bool:
    return (
        len(row) == 4
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in row[:3])
        and isinstance(row[3], str)
    )


def _owner(row: Any) -> Owner:
    return row[0], row[1], row[2], row[3]


def _row_by_row(connection: sqlite3.Connection) -> Iterator[tuple[Any, Any]]:
    rowid, misses = 0, 0
    while misses < SALVAGE_GAP:
        rowid += 1
        try:
            row = connection.execute("SELECT rev, data FROM jobs WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            misses += 1
            continue
        misses = 0
        yield row


def _bytes(path: Path) -> bytes:
    """A kept file's bytes; none for one that is not there (a main file deleted, a log never made)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
