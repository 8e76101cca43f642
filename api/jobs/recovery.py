"""Reading what can be read from a damaged or old job list, and keeping the original as a backup.

Nothing here deletes: a damaged file is renamed to a timestamped backup beside it before anything
new is written in its place, and the records that could be read are handed back to be stored.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fs

log = logging.getLogger(__name__)

LEGACY_FILE = "jobs.json"
SALVAGE_GAP = 1000  # rowids in a row that could not be read before salvage stops looking


@dataclass
class Salvage:
    """What a damaged list gave back: readable records, and what was wrong (empty when nothing was)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    damage: str = ""
    unreadable: int = 0


def backup_name(path: Path, why: str) -> Path:
    """``jobs.json.damaged-20260101-120000`` beside ``path``, never an existing name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{why}-{stamp}")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.{why}-{stamp}-{number}")
    return candidate


def move_aside(path: Path, why: str) -> Path:
    """Rename ``path`` (and SQLite's ``-wal``/``-shm`` beside it) to a backup name; returns it."""
    backup = backup_name(path, why)
    fs.replace(path, backup)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            fs.replace(companion, backup.with_name(backup.name + suffix))
    return backup


def read_legacy(path: Path) -> Salvage:
    """The records of an old ``jobs.json``, as many as can be read; raises OSError if it cannot be read."""
    text = path.read_bytes().decode("utf-8", "replace")
    if not text.strip():
        return Salvage(damage="it was empty")
    try:
        data = json.loads(text)
    except ValueError:
        records = list(_objects_in(text))
        return Salvage(records=records, damage="it was cut short or garbled")
    if isinstance(data, dict) and isinstance(data.get("jobs"), list):
        return _records(data["jobs"], "")
    if isinstance(data, list):
        return _records(data, "it held a list where Kiln expects its job table")
    return Salvage(damage="it did not hold a job list")


def salvage_sqlite(path: Path) -> Salvage:
    """Rows of a damaged store file, as many as SQLite can still read (worked on in memory only)."""
    found = Salvage(damage="")
    try:
        connection = _in_memory(path.read_bytes())
    except (OSError, sqlite3.Error, ValueError):
        return found
    try:
        try:
            rows = connection.execute("SELECT data FROM jobs").fetchall()
        except sqlite3.Error:
            rows = list(_row_by_row(connection))
        for (data,) in rows:
            found.records.extend(_records([_json_or_none(data)], "").records)
    finally:
        connection.close()
    return found


def _in_memory(data: bytes) -> sqlite3.Connection:
    """A copy SQLite will read: padded back to the size its header names (a cut-short file is refused
    whole otherwise), marked as not in WAL mode (an in-memory copy has no WAL)."""
    if len(data) < 100 or not data.startswith(b"SQLite format 3\x00"):
        raise ValueError("not an SQLite file")
    page_size = int.from_bytes(data[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(data[28:32], "big")
    image = bytearray(data)
    image[18:20] = b"\x01\x01"
    if pages * page_size > len(image):
        image.extend(bytes(pages * page_size - len(image)))
    connection = sqlite3.connect(":memory:")
    connection.deserialize(bytes(image))
    return connection


def _row_by_row(connection: sqlite3.Connection) -> Iterator[tuple[Any]]:
    rowid, misses = 0, 0
    while misses < SALVAGE_GAP:
        rowid += 1
        try:
            row = connection.execute("SELECT data FROM jobs WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            misses += 1
            continue
        misses = 0
        yield row


def _records(items: list[Any], damage: str) -> Salvage:
    found = Salvage(damage=damage)
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
            found.records.append(item)
        else:
            found.unreadable += 1
    if found.unreadable and not found.damage:
        found.damage = f"{found.unreadable} record(s) in it could not be read"
    return found


def _json_or_none(data: object) -> Any:
    try:
        return json.loads(data) if isinstance(data, str | bytes) else None
    except ValueError:
        return None


def _objects_in(text: str) -> Iterator[dict[str, Any]]:
    """Every complete JSON object that looks like a job record, found by scanning broken text."""
    decoder = json.JSONDecoder()
    position = text.find("{", text.find('"jobs"') + 1 if '"jobs"' in text else 0)
    while 0 <= position < len(text):
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), str) and "request" in value:
            yield value
            position = text.find("{", end)
        else:
            position = text.find("{", position + 1)
