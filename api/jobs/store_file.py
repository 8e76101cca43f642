"""The job store's file: open it, judge it, and back up and recover a damaged, newer or moved one.

The one SQLite file every Kiln process on the machine shares (see :mod:`.store` for why SQLite and
how rows are read and written). Opening judges the file before trusting it; damage is set aside
with its backup named and said, never overwritten blind; a newer Kiln's store is read if its tables
still hold what this Kiln reads, else opened read-only.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import StorageError
from ..words import Message, message
from ..words import catalogue as words
from . import recovery, store_files, store_salvage, store_sharing, store_words
from .disk import StoreError, ensure_folder, store_error
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


class StoreFile:
    """The store's file: opening it, judging it, recovering it when damaged, filling it (a recovered or
    old job list); :class:`~.store.JobStore` reads and writes its rows."""

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
            if busy(exc):
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
            # One snapshot: another Kiln may create a new list between two reads (tables, then its
            # version), which would read as tables Kiln did not write.
            db.execute("BEGIN")
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")
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
            if busy(exc) or not damage_words(exc):
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

    def _next_rev(self) -> int:
        """The next revision, from the counter every process shares (inside the caller's transaction)."""
        self.db.execute("UPDATE meta SET value = value + 1 WHERE key = 'rev'")
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()[0])

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


def rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            log.debug("Rollback failed", exc_info=True)


def busy(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")


def damage_words(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    return (
        name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc) or "not a database" in str(exc)
    )
