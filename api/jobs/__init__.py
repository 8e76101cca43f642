"""The job engine: every job's life from submit to a checked GLB on disk, off the UI thread.

Blender-free on purpose (``api/`` never imports bpy). One module per idea, bottom first:

* ``defaults`` — how jobs run unless told otherwise (the poll interval, jobs at once, the time limit).
* ``model`` — what a job is: its request, its state, its files; ``details`` — what Copy Details
  says of one.
* ``disk`` — disk trouble as sentences; ``owner`` — which process works on a job.
* ``store`` — the SQLite file every Kiln process shares, its rows; ``store_file`` (opening it, judging
  it, recovering it), with ``store_files`` (damage judged before
  SQLite opens it), ``store_sharing`` (one recovery at a time, never under a process that has it
  open), ``recovery`` (backups, old lists), ``store_salvage`` (what a kept store gives back) over
  ``wal`` (SQLite's write-ahead log, read by Kiln) and ``leaf_pages`` (rows off table pages), and
  ``store_words`` (what the artist reads about it); ``writer`` — the store thread.
* ``book`` — the job table in memory; ``deadlines`` — time limits during a request.
* ``import_prep`` — whether a mesh goes through the helper Blender, and its preparation there.
* ``service_side`` — a job as its service sees it: the order it sends (``api.services.order``), whether
  that service takes it, whether a cancel reaches it there, whether its task can be asked about again
  (light: the Sidebar asks it while drawing).
* ``step_context`` — what a worker step may use, and the ways a step ends; ``sending`` (the send
  step), ``fetching`` (the poll and download steps), ``cancelling`` (asking a service to cancel,
  where it can); ``steps`` — the one that runs each.
* ``scheduler`` — when each step runs, on which worker thread, with which client.
* ``engine`` — the public face: it has a scheduler and the store thread.

Threading contract
------------------
* **UI (main) thread**: calls the quick methods (``record``, ``cancel``, ``retry``, ``jobs``,
  ``get``, ``drain_events``, …). They take the engine lock only for in-memory work and never wait
  on the disk, the network or a lock held across either. ``jobs()``/``get()`` return snapshots
  that are never changed in place, so reading needs no copies. ``start()`` opens the store once
  (a few milliseconds; its history is read later by the store thread). ``wait()`` blocks and is
  for background mode only.
* **Worker threads** (``kiln-worker-N``): all network and cache-file work. They never touch bpy.
  A worker waits for the store thread where the order matters: a job marked "being sent" is on
  disk before the request leaves, and a task id is on disk before the first poll.
* **Store thread** (``kiln-store``): the only thread that touches the SQLite file after start:
  saves in the order changes were handed over, writes the heartbeat, reads other processes'
  changes, and takes over jobs whose owner is gone.
* **Deadline thread** (``kiln-deadlines``): ends a request in flight when its job's time limit
  passes, or the job is cancelled.

The store, and who owns a job
-----------------------------
Several Blenders share Kiln's user folder. The job list is one SQLite file (``jobs.sqlite3``, WAL
mode, a busy timeout, one short transaction per change, each change writing that job's row only,
guarded by a revision so no process writes back a stale copy); see ``store``. Each job has an
owner: a process (pid + the time its engine started + a heartbeat every 2 s). Only the owner
sends, polls, downloads and (automatically) imports a job; every process lists every job, others'
marked with where they run. Another process takes a job over only when its owner is gone (said
goodbye on shutdown, pid no longer running, or heartbeat older than 30 s). A job taken over while
"being sent" without a recorded answer becomes **outcome unknown**: it may have cost credits, so
it is never sent again on Kiln's own; the artist decides. A damaged store or old ``jobs.json`` is
kept as a timestamped backup beside it (the store with its write-ahead log and index, judged before
SQLite may reset or delete the log, never moved while another process has it open: a process that
has it open sets it aside itself at its next heartbeat), what can be read is recovered, jobs only
the log held included, and the sentence is offered through ``JobEngine.store_problems()``;
records this version cannot read (unknown state, newer format) are left in the file untouched, and
a store of a newer schema is only read.

Who retries what
----------------
Written once, in :mod:`api.http.retrying`: the engine builds its ``RetryPolicy``, hands it to the
client it makes, and its scheduler is the one place a request is made again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from ..http.retrying import RetryPolicy
    from .details import job_details
    from .disk import CACHE_DIR, UPLOADS_DIR, StoreError
    from .engine import EngineNotRunning, JobElsewhere, JobEngine
    from .model import (
        ACTIVE_STATES,
        FINISHED_STATES,
        Account,
        Job,
        JobEvent,
        JobKind,
        JobRequest,
        JobState,
        Owner,
        ServiceConfig,
    )
    from .scheduler import OFFLINE_NOTE
    from .store_file import STORE_FILE

#: Every name loads on first use: registering the add-on loads none of the room (``defaults`` gives
#: the preferences their figures), the model loads with the first job, and the engine (threads,
#: SQLite, the HTTP steps) when it starts, so a `blender -b` script that never generates never pays for it.
_LAZY = {
    "CACHE_DIR": ".disk",
    "UPLOADS_DIR": ".disk",
    "StoreError": ".disk",
    "ACTIVE_STATES": ".model",
    "FINISHED_STATES": ".model",
    "Account": ".model",
    "Job": ".model",
    "JobEvent": ".model",
    "JobKind": ".model",
    "JobRequest": ".model",
    "JobState": ".model",
    "Owner": ".model",
    "ServiceConfig": ".model",
    "job_details": ".details",
    "EngineNotRunning": ".engine",
    "JobElsewhere": ".engine",
    "JobEngine": ".engine",
    "RetryPolicy": "..http.retrying",
    "OFFLINE_NOTE": ".scheduler",
    "STORE_FILE": ".store_file",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "ACTIVE_STATES",
    "CACHE_DIR",
    "FINISHED_STATES",
    "OFFLINE_NOTE",
    "STORE_FILE",
    "UPLOADS_DIR",
    "Account",
    "EngineNotRunning",
    "Job",
    "JobElsewhere",
    "JobEngine",
    "JobEvent",
    "JobKind",
    "JobRequest",
    "JobState",
    "Owner",
    "RetryPolicy",
    "ServiceConfig",
    "StoreError",
    "job_details",
]
