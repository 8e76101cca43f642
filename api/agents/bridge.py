"""The hand-off to Blender's main thread: agents' calls wait in a queue that Kiln's timer drains.

An HTTP worker thread puts a call in the queue and waits on its future for at most ``timeout``
seconds; the Blender side's existing timer calls :meth:`MainThreadBridge.drain` each beat, which runs
queued calls until the queue is empty or its time budget is used, so an agent never stalls a redraw
for long and the UI never waits on an agent. In ``blender -b`` (no timers) a serving loop calls
``drain(wait=…)`` instead.

A call still queued when its worker gives up is cancelled and never runs (:data:`words.BLENDER_BUSY`:
nothing was done); one already running when the worker gives up finishes, and the worker says it may
have been done (:data:`words.BLENDER_BUSY_MAYBE_DONE`), so a paid send is never repeated blind.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from ..errors import KilnError
from . import words
from .logs import log

T = TypeVar("T")

#: How long a worker waits for the main thread by default (Blender is busy longer only in a render
#: or a modal dialog).
CALL_TIMEOUT = 10.0
#: Main-thread time one beat may spend on agents' calls (a beat of a 10 ms timer stays smooth).
DRAIN_BUDGET = 0.004


class HostBusy(KilnError):
    """The main thread did not answer in time; ``maybe_done`` when the call had already started."""

    def __init__(self, seconds: float, maybe_done: bool) -> None:
        template = words.BLENDER_BUSY_MAYBE_DONE if maybe_done else words.BLENDER_BUSY
        super().__init__(template.format(seconds=seconds))
        self.maybe_done = maybe_done


class BridgeClosed(KilnError):
    def __init__(self) -> None:
        super().__init__(words.KILN_STOPPING)


_Call = tuple[Callable[..., Any], tuple[Any, ...], "Future[Any]"]


class MainThreadBridge:
    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._closed = threading.Event()

    def call(self, fn: Callable[..., T], *args: Any, timeout: float = CALL_TIMEOUT) -> T:
        """Run ``fn(*args)`` on the main thread and return its result (from a worker thread only)."""
        if self._closed.is_set():
            raise BridgeClosed()
        future: Future[T] = Future()
        self._calls.put((fn, args, future))
        if self._closed.is_set() and future.cancel():  # closed while it was being queued
            raise BridgeClosed()
        try:
            return future.result(timeout)
        except FutureTimeout:
            if future.cancel():
                raise HostBusy(timeout, maybe_done=False) from None
            raise HostBusy(timeout, maybe_done=True) from None

    def drain(self, budget: float = DRAIN_BUDGET, wait: float = 0.0) -> int:
        """Run queued calls on this (the main) thread for about ``budget`` seconds; how many ran.

        ``wait`` > 0 waits that long for a first call (a serving loop without timers).
        """
        deadline = time.monotonic() + budget
        ran = 0
        block = wait > 0
        while True:
            try:
                fn, args, future = self._calls.get(block, wait) if block else self._calls.get_nowait()
            except queue.Empty:
                return ran
            block = False
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except Exception as exc:  # the worker re-raises it; say it here too when it is Kiln's fault
                    if not isinstance(exc, KilnError):
                        log.debug("An agent's call on the main thread failed", exc_info=True)
                    future.set_exception(exc)
                ran += 1
            if time.monotonic() >= deadline:
                return ran

    def close(self) -> None:
        """Refuse new calls and fail those still queued (Kiln is being disabled)."""
        self._closed.set()
        while True:
            try:
                _fn, _args, future = self._calls.get_nowait()
            except queue.Empty:
                return
            if future.set_running_or_notify_cancel():
                future.set_exception(BridgeClosed())
