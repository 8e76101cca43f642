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
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StorageError
from ..words import Message, message
from ..words import catalogue as words
from . import recovery, store_files, store_salvage, store_sharing, store_words
from .disk import StoreError, ensure_folder, store_error
from .model import Owner
from .owner import HEARTBEAT_SECONDS
from .store_files import Damage

log = logging.getLogger(__name__)

STORE_FILE = "jobs.sqlite3"
SCHEMA_VERSION = 1
BUSY_TIMEOUT = 10.0
#: How long a Kiln that finds the store damaged and open elsewhere waits for the Kiln that has it open
#: to set it aside (it looks at every heartbeat), looking again every ``IN_USE_POLL`` seconds.
IN_USE_WAIT = 2 * HEARTBEAT_SECONDS + 1.0
IN_USE_POLL = 0.2

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


class InUse(Exception):
    """Damage found before opening while another process has the store open: nothing was touched."""

    def __init__(self, damage: Damage) -> None:
        super().__init__(damage.detail)
        self.damage = damage


class Damaged(Exception):
    """The store cannot be used as it is; ``damage`` says how, ``connection`` is SQLite's connection
    to it when SQLite found it (kept open until the files are moved: see ``JobStore._set_aside``)."""

    def __init__(self, damage: Damage, connection: sqlite3.Connection | None = None) -> None:
        super().__init__(damage.detail)
        self.damage = damage
        self.connection = connection


class JobStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / STORE_FILE
        self.read_only = False
        #: False for a newer Kiln's store whose tables this Kiln does not know: it is then read as empty.
        self._readable = True
        #: Sentences for the artist (damage found and recovered, a newer store); read by the engine.
        self.problems: list[Message] = []
        self._db: sqlite3.Connection | None = None
        #: Which file the open connection reads (device, inode): moved by another Kiln when it differs.
        self._opened: tuple[int, int] | None = None

    # ----------------------------------------------------------------- opening

    def open(self) -> None:
        """Open (create, recover, migrate) the store; raises StoreError when the folder cannot hold it,
        or when it stays damaged while another process has it open (nothing is moved or opened then).

        A Kiln that has the store open sets such damage aside itself within a heartbeat
        (:meth:`set_aside_changed_files`), so a store found damaged and open elsewhere is looked at
        again for up to ``IN_USE_WAIT`` seconds (this start waits; it happens only on such damage).
        """
        ensure_folder(self.folder)
        deadline = time.monotonic() + IN_USE_WAIT
        try:
            while True:
                try:
                    self._open_or_recover()
                    break
                except InUse as exc:
                    if time.monotonic() > deadline:
                        raise StoreError(store_words.in_use(exc.damage.kind), self.folder) from None
                    time.sleep(IN_USE_POLL)
            self._migrate_legacy()
        except StorageError as exc:  # the old jobs.json could not be kept as a backup (a locked file)
            self.close()
            raise StoreError(exc.message, self.folder) from exc
        except (sqlite3.Error, OSError, Damaged) as exc:
            self.close()
            raise store_error(self.folder, exc) from exc
        except StoreError:
            self.close()
            raise

    def _open_or_recover(self) -> None:
        try:
            self._db = self._connect_checked()
        except Damaged as exc:
            self._recover(exc.damage, exc.connection)

    def files_changed(self) -> bool:
        """Whether the files under this open store were emptied, deleted or overwritten since it was
        opened, or moved by another Kiln that found them so first (a stat and a 100-byte read)."""
        if self.read_only or self._db is None:
            return False
        now = _identity(self.path)
        return store_files.replaced(self.path) is not None or now not in (None, self._opened)

    def set_aside_changed_files(self) -> bool:
        """Act on :meth:`files_changed` (store thread, between two heartbeats): damaged files are kept
        and recovered here, before this process's SQLite could write its log into them when it
        closes; a list another Kiln set aside is left to it, and its new list is opened. True when
        this store is a new file now."""
        if not self.files_changed():
            return False
        found = store_files.replaced(self.path)
        db, self._db = self._db, None
        self._recover(found or Damage("unreadable", "set aside by another Kiln"), db)
        return True

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
            db, self._db = self._db, None
            self._recover(Damage("unreadable", "SQLite's quick_check found it damaged"), db)

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(words.JOB_LIST_CLOSED, self.folder, details=f"{self.path} is closed")
        return self._db

    def _connect_checked(self) -> sqlite3.Connection:
        """Open the file; its shape is checked before anything is written to it (WAL mode included)."""
        self._check_header()
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        self._opened = _identity(self.path)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > SCHEMA_VERSION:
                self._open_newer(db, version)
                return db
            if version == 0 and tables:
                raise Damaged(Damage("foreign", "it holds tables Kiln did not write"), db)
            if version == SCHEMA_VERSION and not self._has_layout(db):
                raise Damaged(Damage("foreign", "its tables are not the ones Kiln expects"), db)
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
            raise
        except sqlite3.DatabaseError as exc:
            if _busy(exc) or not _damage_words(exc):
                db.close()
                raise
            raise Damaged(Damage("unreadable", f"SQLite could not read it ({exc})"), db) from exc
        except BaseException:
            db.close()
            raise
        return db

    def _open_newer(self, db: sqlite3.Connection, version: int) -> None:
        """A store of a newer Kiln (a machine rolled back, two versions on one folder): this Kiln reads
        what it understands and writes nothing, enforced by SQLite itself (``query_only``)."""
        self.read_only = True
        db.execute("PRAGMA query_only = ON")
        self._readable = self._has_layout(db, _READ)
        entry = words.JOB_LIST_NEWER if self._readable else words.JOB_LIST_NEWER_UNREADABLE
        self.problems.append(message(entry, details=f"{self.path}: schema {version}"))

    def _check_header(self) -> None:
        """Damage SQLite would not see, or would read as a new list (:mod:`.store_files`)."""
        found = store_files.damage(self.path)
        if found is not None:
            raise Damaged(found)
        if not self.path.exists():
            store_files.forget_written(self.path)

    @staticmethod
    def _has_layout(db: sqlite3.Connection, needed: dict[str, set[str]] = _NEEDED) -> bool:
        for table, columns in needed.items():
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if not columns <= have:
                return False
        return True

    def _recover(self, damage: Damage, db: sqlite3.Connection | None = None) -> None:
        """Keep the damaged files as one backup, start a new list, and put back every job still readable.

        One Kiln at a time (:mod:`.store_sharing`). Damage found before SQLite opened the files is
        judged again under the lock: another Kiln may have recovered them meanwhile, and a store
        another process has open is neither moved nor opened (InUse). Damage SQLite found
        (``db`` open) is recovered unless another Kiln moved the file since this one opened it and a
        new list stands in its place.
        """
        with store_sharing.one_recovery(self.folder):
            if db is None:
                try:
                    self._db = self._connect_checked()  # judged again first
                    return
                except Damaged as exc:
                    damage, db = exc.damage, exc.connection
                if db is None and store_sharing.open_elsewhere(self.path):
                    log.warning(
                        "Job list %s is damaged (%s) and open in another process", self.path, damage.detail
                    )
                    raise InUse(damage)
            elif _identity(self.path) not in (None, self._opened):
                log.info("Job list %s was set aside by another Kiln; opening the new one", self.path)
                db.close()
                self._db = self._connect_checked()
                return
            backup = self._set_aside(db)
            found = store_salvage.salvage(backup)
            self._db = self._connect_checked()
            self.insert_records(found.records, owners=found.owners)
        kept = [p.name for p in _backup_files(backup)]
        log.error(
            "Job list %s was damaged (%s); kept as %s in %s; %d job(s) read from it, %d of them only from "
            "the table pages of its write-ahead log (%d committed page(s) in it)",
            self.path,
            damage.detail,
            ", ".join(kept) or "nothing (no file was left)",
            self.folder,
            len(found.records),
            found.from_log_pages,
            found.log_pages,
        )
        self.problems.append(store_words.recovered(damage.kind, self.folder, len(found.records)))

    def _set_aside(self, db: sqlite3.Connection | None) -> Path:
        """Move the damaged files aside as one backup, then close ``db``.

        SQLite checkpoints the log into the main file and deletes it when the last connection to a
        file that has not moved closes; a moved one it leaves alone. So the files move first where
        the system lets an open file be renamed. Windows does not: there the connection is closed
        first, and SQLite may write the log into the main file before both are kept (damage SQLite
        found while reading; damage found before opening never had a connection).
        """
        if db is not None and os.name == "nt":
            db.close()
            db = None
        try:
            return recovery.move_aside(self.path, "damaged")
        except StorageError as exc:  # a file is locked (Windows): the store stays closed until a restart
            raise StoreError(exc.message, self.folder) from exc
        finally:
            if db is not None:
                db.close()

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
                self.problems.append(store_words.old_list_recovered(self.folder, len(found.records)))
            log.log(
                logging.ERROR if found.damage else logging.INFO,
                "Moved %d job(s) from %s into %s; the old file is kept as %s%s",
                len(found.records),
                legacy,
                self.path,
                backup,
                f" (it was damaged: {found.damage})" if found.damage else "",
            )

    def insert_records(
        self,
        records: Iterable[dict[str, Any]],
        *,
        in_transaction: bool = False,
        owners: Iterable[tuple[Any, ...]] = (),
    ) -> None:
        """Put ``records`` in (each under a new revision; a job already here stays as it is), and the
        ``owners`` of a recovered list, so a Kiln still running keeps its jobs."""
        db = self.db
        if not in_transaction:
            db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT OR IGNORE INTO owners (pid, started, heartbeat, label) VALUES (?, ?, ?, ?)", owners
            )
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
                self.problems[0] if self.problems else message(words.JOB_LIST_READ_ONLY_VERSION), self.folder
            )


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` names now (device, inode); None when there is none."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _backup_files(backup: Path) -> list[Path]:
    """The files a backup is made of (its main file, log and index, each where there was one)."""
    return [f for f in (backup.with_name(backup.name + s) for s in ("", "-wal", "-shm")) if f.exists()]


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
