"""The store thread: the one place this process touches the job store after the engine started.

It saves what the other threads hand over (the UI thread never waits for it; a worker that must
not act before a change is on disk waits for the returned future), writes this process's
heartbeat, reads what other Kiln processes changed, and takes over jobs whose owner is gone.

A save the disk refused (full, a lock held by an antivirus or a backup tool on Windows) is not
dropped: the job keeps its state in memory, and the store thread saves its newest version again
at every heartbeat until the disk takes it (whoever waited on the first try was told at once).
"""

from __future__ import annotations

import gc
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

from ..words import Message
from .disk import StoreError, store_error
from .model import Job, Owner
from .owner import HEARTBEAT_SECONDS
from .store import Conflict, JobStore, Row

log = logging.getLogger(__name__)

#: Jobs in the first read from which the store thread runs Python's full collection once, itself. A
#: long history read at once (5,000 jobs: about 26,000 objects) brings Python's next full collection
#: soon, on whichever thread allocates next: a beat or a draw on the UI thread (``make bench`` row 8:
#: 48 ms of the UI thread's own CPU, 123 ms in all). Here it comes at the start, off the UI thread
#: (which may wait for the GIL meanwhile), and the next waits until as many objects again are kept.
COLLECT_AFTER_JOBS = 1_000


class StoreListener(Protocol):
    """What the engine does with the store's news (called on the store thread)."""

    def apply_rows(self, rows: list[Row], removed: list[str]) -> int:
        """Take changes made elsewhere; returns the last save sequence number handed over so far."""

    def takeovers(
        self, heartbeats: dict[tuple[int, float], float], labels: dict[tuple[int, float], str]
    ) -> list[Job]:
        """Claimed copies of jobs whose owner is gone, to be written if nobody changed them meanwhile."""

    def taken(self, job: Job) -> None:
        """A claim reached disk: the job is this process's now."""

    def store_problem(self, problem: Message) -> None:
        """Something the artist should read (disk trouble, damage recovered)."""

    def known(self) -> list[Job]:
        """Every job this process holds (its copy of the list, read from the store and kept since)."""


@dataclass
class _Save:
    seq: int
    job: Job | None  # None: remove
    job_id: str
    future: Future[int]


class StoreThread:
    def __init__(self, store: JobStore, owner: Owner, listener: StoreListener, revs: dict[str, int]) -> None:
        self.store = store
        self.owner = owner
        self._listener = listener
        self._revs = dict(revs)
        self._fence: dict[str, int] = {}
        self._since = 0
        self._queue: queue.SimpleQueue[_Save | Callable[[], object] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._checked = False
        self.synced = threading.Event()  # set after the first read of the whole list
        #: The newest save handed over per job, and the failed saves to try again (by job id).
        self._newest: dict[str, int] = {}
        self._unsaved: dict[str, _Save] = {}

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kiln-store", daemon=True)
        self._thread.start()

    def stop(self, timeout: float) -> None:
        """Save what is queued, say goodbye (so the next Kiln may take over at once), close."""
        if self._thread is None:
            return
        self._queue.put(None)
        self._thread.join(timeout)
        self._thread = None

    def save(self, job: Job, seq: int) -> Future[int]:
        """Queue a job's record; the future holds its new revision, or StoreError / Conflict."""
        future: Future[int] = Future()
        self._newest[job.id] = max(seq, self._newest.get(job.id, seq))
        self._queue.put(_Save(seq, job, job.id, future))
        return future

    def remove(self, job_id: str, seq: int) -> Future[int]:
        future: Future[int] = Future()
        self._newest[job_id] = max(seq, self._newest.get(job_id, seq))
        self._queue.put(_Save(seq, None, job_id, future))
        return future

    def later(self, action: Callable[[], object]) -> None:
        """Run a small file chore (deleting a helper .blend) here, off the UI thread."""
        self._queue.put(action)

    # ----------------------------------------------------------------- the thread

    def _run(self) -> None:
        next_sync = 0.0
        while True:
            if time.monotonic() >= next_sync:  # due even while saves keep coming: the heartbeat must go on
                self._guarded(self._watch, "look at the job list's files")
                self._save_again()
                self._guarded(self._sync, "read the job list")
                if not self._checked:  # once, after the first read: SQLite's check of the whole file
                    self._checked = True
                    self._guarded(self._check, "check the job list")
                    if len(self._revs) >= COLLECT_AFTER_JOBS:
                        gc.collect()
                self.synced.set()
                next_sync = time.monotonic() + HEARTBEAT_SECONDS
            try:
                item = self._queue.get(timeout=max(0.0, next_sync - time.monotonic()))
            except queue.Empty:
                continue
            if item is None:
                self._drain()
                self._guarded(self._watch, "look at the job list's files")  # before SQLite's close
                self._guarded(lambda: self.store.goodbye(self.owner), "say goodbye")
                self.store.close()
                return
            if callable(item):
                self._guarded(item, "tidy the cache")
            else:
                self._write(item)

    def _drain(self) -> bool:
        """Handle everything queued; whether a stop was among it."""
        stop = False
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return stop
            if callable(item):
                self._guarded(item, "tidy the cache")
            elif item is not None:
                self._write(item)
            else:
                stop = True

    def _write(self, item: _Save) -> None:
        if not item.future.done() and not item.future.set_running_or_notify_cancel():
            return
        if item.seq <= self._fence.get(item.job_id, -1):
            self._unsaved.pop(item.job_id, None)
            if not item.future.done():
                item.future.set_exception(Conflict(None))
            return
        expect = self._revs.get(item.job_id, 0)
        try:
            if item.job is None:
                rev = self.store.delete(item.job_id, expect) if expect else 0
                self._revs.pop(item.job_id, None)
            else:
                rev = self.store.put(item.job.id, item.job.state.value, item.job.to_json(), expect)
                self._revs[item.job_id] = rev
        except Conflict as conflict:
            if conflict.row is not None:
                self._deliver([conflict.row], [])
            self._unsaved.pop(item.job_id, None)  # changed elsewhere meanwhile: that version stands
            if not item.future.done():
                item.future.set_exception(conflict)
        except (StoreError, sqlite3.Error, OSError) as exc:
            error = exc if isinstance(exc, StoreError) else store_error(self.store.folder, exc)
            if item.job_id not in self._unsaved:
                log.error("Could not save job %s: %s (%s)", item.job_id, error.user_message, error.details)
                self._listener.store_problem(error.message)
            self._unsaved[item.job_id] = item
            if not item.future.done():
                item.future.set_exception(error)
        else:
            if self._unsaved.pop(item.job_id, None) is not None:
                log.info("Job %s is saved again", item.job_id)
            if not item.future.done():
                item.future.set_result(rev)

    def _save_again(self) -> None:
        """Try the refused saves once more, each only while it is still its job's newest version."""
        for job_id, item in list(self._unsaved.items()):
            if item.seq < self._newest.get(job_id, item.seq):
                del self._unsaved[job_id]  # a newer save was handed over: that one counts
                continue
            self._write(item)

    def _sync(self) -> None:
        if not self.store.read_only:
            self.store.beat(self.owner)
        rows, removed, self._since = self.store.changes(self._since)
        news = [row for row in rows if self._revs.get(row.id) != row.rev]
        gone = [job_id for job_id, _ in removed if job_id in self._revs]
        if news or gone:
            self._deliver(news, gone)
        if self.store.read_only:
            return
        claims = self._listener.takeovers(self.store.heartbeats(), self.store.owner_labels())
        for job in claims:
            try:
                self._revs[job.id] = self.store.put(
                    job.id, job.state.value, job.to_json(), self._revs.get(job.id, 0)
                )
            except Conflict as conflict:
                if conflict.row is not None:
                    self._deliver([conflict.row], [])
                continue
            self._listener.taken(job)

    def _deliver(self, rows: list[Row], removed: list[str]) -> None:
        for row in rows:
            self._revs[row.id] = row.rev
        for job_id in removed:
            self._revs.pop(job_id, None)
        fence = self._listener.apply_rows(rows, removed)
        for job_id in [*(row.id for row in rows), *removed]:
            self._fence[job_id] = fence

    def _check(self) -> None:
        before = len(self.store.problems)
        self.store.check()
        if len(self.store.problems) != before:
            self._reopened(before)

    def _watch(self) -> None:
        """The files under the open store were damaged, or set aside by another Kiln: what was handed
        over is written first (into the files about to be kept), then the store is a new file."""
        if not self.store.files_changed():
            return
        if self._drain():
            self._queue.put(None)  # the stop is handled where the loop takes it
        before = len(self.store.problems)
        if self.store.set_aside_changed_files():
            self._reopened(before)

    def _reopened(self, before: int) -> None:
        """The store is a new file now: say what happened, read everything again, at once, and write
        back every job this process holds that the recovered list lacks (its pages were lost with
        the damaged file, while this process still knew it)."""
        for problem in self.store.problems[before:]:
            self._listener.store_problem(problem)
        self._revs.clear()
        self._since = 0
        self._sync()
        missing = [job for job in self._listener.known() if job.id not in self._revs]
        for job in missing:
            try:
                self._revs[job.id] = self.store.put(job.id, job.state.value, job.to_json(), 0)
            except Conflict:
                continue
        if missing:
            log.warning("Wrote back %d job(s) this Kiln held that the recovered list lacked", len(missing))

    def _guarded(self, action: Callable[[], object], what: str) -> None:
        try:
            action()
        except (StoreError, sqlite3.Error, OSError) as exc:
            error = exc if isinstance(exc, StoreError) else store_error(self.store.folder, exc)
            log.warning("Could not %s: %s (%s)", what, error.user_message, error.details)
            self._listener.store_problem(error.message)
        except Exception:
            log.exception("Kiln's store thread could not %s", what)
