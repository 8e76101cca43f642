"""The job store: one SQLite file every Kiln process on the machine reads and writes.

Why SQLite: it is in every Blender's Python, and it already is what a hand-made format would need
to become — atomic changes under a lock every process honours (WAL mode, a busy timeout), a change
that writes one row rather than the whole history, and a file that says its own schema version
(``PRAGMA user_version``). Each row holds one job as JSON plus the columns the store itself needs:
``rev`` (from a counter shared by all processes) lets a process read only what changed since it
last looked and refuse to write over a row someone else changed; ``state`` finds unfinished jobs
without reading the history. Rows this Kiln cannot read (a state or record format it does not
know) are loaded by nobody and written by nobody, so they stay as they are.

Opening, judging and recovering the file is :mod:`.store_file`. Not thread-safe: the engine uses
a store from one thread at a time (its start, then its store thread). Raises :class:`StoreError`
with a sentence for every disk problem.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..words import catalogue as words
from ..words import message
from .disk import StoreError
from .model import Owner
from .store_file import STORE_FILE, StoreFile, busy, damage_words, rollback
from .store_files import Damage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Row:
    """One stored job: its id, the revision it was written at, its record (None when unreadable)."""

    id: str
    rev: int
    data: dict[str, Any] | None


class Conflict(Exception):
    """The row changed since this process last saw it; ``row`` is what is there now (None: removed)."""

    def __init__(self, row: Row | None) -> None:
        super().__init__("the job was changed by another Kiln process")
        self.row = row


class JobStore(StoreFile):
    """The rows: every job as JSON under a revision, read whole or as changes, written one
    transaction each, refused when another Kiln changed the row first (:class:`Conflict`)."""

    # ----------------------------------------------------------------- reading

    def load(self, states: Iterable[str] | None = None) -> list[Row]:
        """Every row, or those in ``states`` (found through an index: cost does not grow with history).

        A file found damaged here is recovered first (backup, salvage), then read again.
        """
        if not self._readable:
            return []
        query, wanted = "SELECT id, rev, data FROM jobs", sorted(states) if states is not None else []
        if states is not None:
            query += f" WHERE state IN ({','.join('?' * len(wanted))})"
        try:
            return [_row(*values) for values in self.db.execute(query, wanted)]
        except sqlite3.DatabaseError as exc:
            if busy(exc) or not damage_words(exc) or self.read_only:
                raise
            db, self._db = self._db, None
            self._recover(Damage("unreadable", f"SQLite could not read it ({exc})"), db)
            return [_row(*values) for values in self.db.execute(query, wanted)]

    def changes(self, since: int) -> tuple[list[Row], list[tuple[str, int]], int]:
        """Rows written and ids removed after revision ``since``, and the newest revision."""
        if not self._readable:
            return [], [], since
        db = self.db
        rows = [_row(*v) for v in db.execute("SELECT id, rev, data FROM jobs WHERE rev > ?", (since,))]
        removed = list(db.execute("SELECT id, rev FROM removed WHERE rev > ?", (since,)))
        newest = max([since, *(r.rev for r in rows), *(rev for _, rev in removed)])
        return rows, removed, newest

    def heartbeats(self) -> dict[tuple[int, float], float]:
        if not self._readable:
            return {}
        return {
            (pid, started): beat
            for pid, started, beat in self.db.execute("SELECT pid, started, heartbeat FROM owners")
        }

    def owner_labels(self) -> dict[tuple[int, float], str]:
        if not self._readable:
            return {}
        return {
            (pid, started): label
            for pid, started, label in self.db.execute("SELECT pid, started, label FROM owners")
        }

    # ----------------------------------------------------------------- writing (one transaction each)

    def put(self, job_id: str, state: str, data: dict[str, Any], expect: int) -> int:
        """Write one job if its row is still at revision ``expect`` (0: must be new); returns the new one."""
        text = json.dumps(data, separators=(",", ":"))

        def write(rev: int) -> sqlite3.Cursor:
            if expect == 0:
                return self.db.execute(
                    "INSERT OR IGNORE INTO jobs (id, rev, state, data) VALUES (?, ?, ?, ?)",
                    (job_id, rev, state, text),
                )
            return self.db.execute(
                "UPDATE jobs SET rev = ?, state = ?, data = ? WHERE id = ? AND rev = ?",
                (rev, state, text, job_id, expect),
            )

        return self._change(job_id, write)

    def delete(self, job_id: str, expect: int) -> int:
        """Remove one job if it is still at revision ``expect``; leaves a note so other processes drop it."""

        def remove(rev: int) -> sqlite3.Cursor:
            return self.db.execute("DELETE FROM jobs WHERE id = ? AND rev = ?", (job_id, expect))

        def note(rev: int) -> None:
            self.db.execute("INSERT OR REPLACE INTO removed (id, rev) VALUES (?, ?)", (job_id, rev))

        return self._change(job_id, remove, after=note)

    def _change(
        self,
        job_id: str,
        change: Callable[[int], sqlite3.Cursor],
        after: Callable[[int], None] | None = None,
    ) -> int:
        """One transaction: ``change`` must touch exactly the row at the expected revision, else the
        row as it is now comes back in a Conflict (another Kiln changed it first)."""
        self._writable()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            rev = self._next_rev()
            if change(rev).rowcount != 1:
                current = db.execute("SELECT id, rev, data FROM jobs WHERE id = ?", (job_id,)).fetchone()
                db.execute("ROLLBACK")
                raise Conflict(_row(*current) if current else None)
            if after is not None:
                after(rev)
            db.execute("COMMIT")
        except Conflict:
            raise
        except BaseException:
            rollback(db)
            raise
        return rev

    def beat(self, owner: Owner) -> None:
        """This process is alive (its row is created on the first beat)."""
        self._writable()
        self.db.execute(
            "INSERT INTO owners (pid, started, heartbeat, label) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (pid, started) DO UPDATE SET heartbeat = excluded.heartbeat",
            (owner.pid, owner.started, time.time(), owner.label),
        )

    def goodbye(self, owner: Owner) -> None:
        """This process stops: its jobs may be taken over at once by the next Kiln."""
        if not self.read_only:
            self.db.execute("DELETE FROM owners WHERE pid = ? AND started = ?", (owner.pid, owner.started))

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(
                self.problems[0] if self.problems else message(words.JOB_LIST_READ_ONLY_VERSION), self.folder
            )


def _row(job_id: str, rev: int, data: str) -> Row:
    try:
        parsed = json.loads(data)
    except (TypeError, ValueError):
        parsed = None
    return Row(job_id, rev, parsed if isinstance(parsed, dict) else None)


__all__ = ["STORE_FILE", "Conflict", "JobStore", "Row"]
