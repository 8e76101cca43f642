"""A job's time limit holds while one of its requests is in flight.

Each poll or download a worker makes for a job carries a cancel event; one small thread sets it
when the job's time limit passes (or the job is cancelled), and the client gives up at its next
check (between chunks of a download, before each request); the client's own per-request deadline
bounds a request stuck before its first byte. The worker then times the job out, keeping its task
id. A send carries none: cutting it short would leave its outcome unknown.
"""

from __future__ import annotations

import threading
import time


class Deadlines:
    def __init__(self, stop: threading.Event) -> None:
        self._stop = stop
        self._lock = threading.Condition()
        self._watched: dict[str, tuple[float, threading.Event]] = {}
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kiln-deadlines", daemon=True)
        self._thread.start()

    def join(self, timeout: float) -> None:
        with self._lock:
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def watch(self, job_id: str, deadline: float | None) -> threading.Event:
        """The cancel event for one request of ``job_id`` (``deadline`` is wall-clock time, or None)."""
        event = threading.Event()
        with self._lock:
            self._watched[job_id] = (deadline if deadline is not None else float("inf"), event)
            self._lock.notify_all()
        return event

    def done(self, job_id: str) -> None:
        with self._lock:
            self._watched.pop(job_id, None)

    def cancel(self, job_id: str) -> None:
        """The job was cancelled: its request in flight ends now."""
        with self._lock:
            entry = self._watched.pop(job_id, None)
        if entry is not None:
            entry[1].set()

    def _run(self) -> None:
        with self._lock:
            while not self._stop.is_set():
                now = time.time()
                for job_id, (deadline, event) in list(self._watched.items()):
                    if deadline <= now:
                        event.set()
                        del self._watched[job_id]
                soonest = min((d for d, _ in self._watched.values()), default=now + 1.0)
                self._lock.wait(max(0.01, min(soonest - now, 1.0)))
            for _, event in self._watched.values():
                event.set()
