"""The job store: one SQLite file every Kiln process on the machine reads and writes.

Why SQLite: it is in every Blender's Python, and it already is what a hand-made format would need
to become — atomic changes under a lock every process honours (WAL mode, a busy timeout), a change
that writes one row rather than the whole history, and a file that says its own schema version
(``PRAGMA user_version``). Each row holds one job as JSON plus the columns the store itself needs:
``rev`` (from a counter shared by all processes) lets a process read only what changed since it
last looked and refuse to write over a row someone else changed; ``state`` finds unfinished jobs
without reading the history. Rows this Kiln cannot read (a state or record format it does not
know) are loaded by nobody and written by nobody, so they stay as they are.

Not thread-safe: the engine uses a store from one thread at a time (its start, then its store
thread). Raises :class:`StoreError` with a sentence for every disk problem.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import recovery, store_files
from .disk import StoreError, ensure_folder, store_error
from .model import Owner

log = logging.getLogger(__name__)

STORE_FILE = "jobs.sqlite3"
SCHEMA_VERSION = 1
BUSY_TIMEOUT = 10.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, state TEXT NOT NULL,
                                 data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_by_rev ON jobs (rev);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state);
CREATE TABLE IF NOT EXISTS owners (pid INTEGER NOT NULL, started REAL NOT NULL, heartbeat REAL NOT NULL,
                                   label TEXT NOT NULL, PRIMARY KEY (pid, started));
CREATE TABLE IF NOT EXISTS removed (id TEXT PRIMARY KEY, rev INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS removed_by_rev ON removed (rev);
INSERT OR IGNORE INTO meta (key, value) VALUES ('rev', 0);
"""
_NEEDED = {"meta": {"key", "value"}, "jobs": {"id", "rev", "state", "data"}, "owners": {"pid", "heartbeat"}}
#: Every column this Kiln reads: a newer Kiln's store is read only if it still has them all.
_READ = {**_NEEDED, "owners": {"pid", "started", "heartbeat", "label"}, "removed": {"id", "rev"}}


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


class Damaged(Exception):
    """The store file cannot be used as it is (not SQLite, cut short, another layout)."""


class JobStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / STORE_FILE
        self.read_only = False
        #: False for a newer Kiln's store whose tables this Kiln does not know: it is then read as empty.
        self._readable = True
        #: Sentences for the artist (damage found and recovered, a newer store); read by the engine.
        self.problems: list[str] = []
        self._db: sqlite3.Connection | None = None

    # ----------------------------------------------------------------- opening

    def open(self) -> None:
        """Open (create, recover, migrate) the store; raises StoreError when the folder cannot hold it."""
        ensure_folder(self.folder)
        try:
            try:
                self._db = self._connect_checked()
            except Damaged as exc:
                self._recover(str(exc))
            self._migrate_legacy()
        except sqlite3.Error as exc:
            self.close()
            raise store_error(self.folder, exc) from exc
        except OSError as exc:
            self.close()
            raise store_error(self.folder, exc) from exc

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def check(self) -> None:
        """SQLite's own consistency check of the whole file (off the UI thread); recovers on damage."""
        try:
            result = self.db.execute("PRAGMA quick_check").fetchone()
            healthy = result is not None and result[0] == "ok"
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                return
            healthy = False
        if not healthy and not self.read_only:
            self.close()
            self._recover("SQLite found it damaged")

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"Kiln's job list in {self.folder} is closed.", self.folder)
        return self._db

    def _connect_checked(self) -> sqlite3.Connection:
        """Open the file; its shape is checked before anything is written to it (WAL mode included)."""
        self._check_header()
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > SCHEMA_VERSION:
                self._open_newer(db, version)
                return db
            if version == 0 and tables:
                raise Damaged("it holds tables Kiln did not write")
            if version == SCHEMA_VERSION and not self._has_layout(db):
                raise Damaged("its tables are not the ones Kiln expects")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")  # a recorded task id survives a power cut too
            if version == 0:
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            store_files.mark_written(self.path)
        except Damaged:
            db.close()
            raise
        except sqlite3.DatabaseError as exc:
            db.close()
            if _busy(exc) or not _damage_words(exc):
                raise
            raise Damaged("SQLite could not read it") from exc
        return db

    def _open_newer(self, db: sqlite3.Connection, version: int) -> None:
        """A store of a newer Kiln (a machine rolled back, two versions on one folder): this Kiln reads
        what it understands and writes nothing, enforced by SQLite itself (``query_only``)."""
        self.read_only = True
        db.execute("PRAGMA query_only = ON")
        self._readable = self._has_layout(db, _READ)
        shown = "shows what it can read" if self._readable else "cannot read its jobs"
        self.problems.append(
            f"Kiln's job list {self.path} was written by a newer version of Kiln (schema {version}). "
            f"It is left as it is: this Kiln {shown} and sends nothing new. Update Kiln to work with it."
        )

    def _check_header(self) -> None:
        """Damage SQLite would not see, or would read as a new list (:mod:`.store_files`)."""
        if not self.path.exists():
            store_files.forget_written(self.path)
            return
        problem = store_files.damage(self.path)
        if problem is not None:
            raise Damaged(problem)

    @staticmethod
    def _has_layout(db: sqlite3.Connection, needed: dict[str, set[str]] = _NEEDED) -> bool:
        for table, columns in needed.items():
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if not columns <= have:
                return False
        return True

    def _recover(self, why: str) -> None:
        """Keep the damaged file as a backup, start a new one, and put back every row still readable."""
        backup = recovery.move_aside(self.path, "damaged")
        log_kept = backup.with_name(backup.name + "-wal")
        kept = f"{backup} (its write-ahead log as {log_kept.name})" if log_kept.exists() else str(backup)
        found = recovery.salvage_sqlite(backup)
        self._db = self._connect_checked()
        self.insert_records(found.records)
        log.error(
            "Job list %s was damaged (%s); kept as %s, %d job(s) recovered",
            self.path,
            why,
            kept,
            len(found.records),
        )
        self.problems.append(
            f"Kiln's job list was damaged ({why}). The damaged file is kept as {kept}; "
            f"{len(found.records)} job(s) could be read from it and are back in the list."
        )

    def _migrate_legacy(self) -> None:
        """Bring an old ``jobs.json`` in once, and keep it beside the store as a backup."""
        legacy = self.folder / recovery.LEGACY_FILE
        if self.read_only or not legacy.exists():
            return
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            done = db.execute("SELECT value FROM meta WHERE key = 'legacy'").fetchone()
            if done is None:
                found = recovery.read_legacy(legacy)
                self.insert_records(found.records, in_transaction=True)
                db.execute("INSERT INTO meta (key, value) VALUES ('legacy', ?)", (time.time(),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if done is not None:
            return
        with contextlib.suppress(FileNotFoundError):  # another Kiln may have moved it first
            backup = recovery.move_aside(legacy, "damaged" if found.damage else "migrated")
            if found.damage:
                self.problems.append(
                    f"Kiln's old job list (jobs.json) was damaged: {found.damage}. It is kept as {backup}; "
                    f"{len(found.records)} job(s) could be read from it and are back in the list."
                )
            log.info(
                "Moved %d job(s) from %s into %s; the old file is kept as %s",
                len(found.records),
                legacy,
                self.path,
                backup,
            )

    def insert_records(self, records: Iterable[dict[str, Any]], *, in_transaction: bool = False) -> None:
        db = self.db
        if not in_transaction:
            db.execute("BEGIN IMMEDIATE")
        try:
            for record in records:
                rev = self._next_rev()
                state = record.get("state") if isinstance(record.get("state"), str) else ""
                db.execute(
                    "INSERT OR IGNORE INTO jobs (id, rev, state, data) VALUES (?, ?, ?, ?)",
                    (record["id"], rev, state, json.dumps(record, separators=(",", ":"))),
                )
            if not in_transaction:
                db.execute("COMMIT")
        except BaseException:
            if not in_transaction:
                db.execute("ROLLBACK")
            raise

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
            if _busy(exc) or not _damage_words(exc) or self.read_only:
                raise
            self.close()
            self._recover("SQLite could not read it")
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
            _rollback(db)
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

    def _next_rev(self) -> int:
        self.db.execute("UPDATE meta SET value = value + 1 WHERE key = 'rev'")
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()[0])

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(
                self.problems[0] if self.problems else "Kiln's job list is read-only.", self.folder
            )


def _row(job_id: str, rev: int, data: str) -> Row:
    try:
        parsed = json.loads(data)
    except (TypeError, ValueError):
        parsed = None
    return Row(job_id, rev, parsed if isinstance(parsed, dict) else None)


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            log.debug("Rollback failed", exc_info=True)


def _busy(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")


def _damage_words(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    return (
        name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc) or "not a database" in str(exc)
    )
