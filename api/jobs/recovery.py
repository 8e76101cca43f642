"""Keeping a damaged or old job list as a backup, and reading what can be read from an old one.

Nothing here deletes: a damaged file is renamed to a timestamped backup beside it before anything
new is written in its place, and the records that could be read are handed back to be stored.
(A damaged SQLite store is read by :mod:`.store_salvage`.)
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fs

log = logging.getLogger(__name__)

LEGACY_FILE = "jobs.json"


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
    while any(candidate.with_name(candidate.name + suffix).exists() for suffix in ("", "-wal", "-shm")):
        number += 1
        candidate = path.with_name(f"{path.name}.{why}-{stamp}-{number}")
    return candidate


def move_aside(path: Path, why: str) -> Path:
    """Rename ``path`` and SQLite's ``-wal``/``-shm`` beside it, together, to one backup name (each
    that exists: the main file may be gone with its log left); returns the backup's name."""
    backup = backup_name(path, why)
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists():
            fs.replace(source, backup.with_name(backup.name + suffix))
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


def _records(items: list[Any], damage: str) -> Salvage:
    found = Salvage(damage=damage)
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
            found.records.append(item)
        else:
            found.unreadable += 1
    if found.unreadable and not found.damage:
        found.damage = f"{found.unreadable} of its records could not be read"
    return found


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
