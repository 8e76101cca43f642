"""The one way Kiln's Blender side runs work later: on the main thread soon, or off it and back.

Blender's timers are the only way back to the main thread, and only two places register one: the
watcher's pump (``session.watcher``: the heartbeat of every job) and this module. Everything else
asks here:

* :func:`later` — call a function on the main thread soon (a sentence for the status bar, the job
  list's rows made again outside a draw); one that returns a number is called again after that many
  seconds, until it returns None.
* :func:`follow` — run work on a thread of its own while the artist goes on (an export, the
  library's copy of a result, a connection test) and hand its outcome to a function on the main
  thread. The work gets plain values only and never touches bpy.

Both timers are persistent: Blender drops any other timer when a file is loaded, and Kiln registers
before the file an artist opens from the command line, a file manager or the splash is loaded (the
translations handed over, the engine started on the first tick would be lost with it). Kiln's
``unregister`` calls :func:`forget`: nothing of a disabled Kiln runs later (a thread still working
ends on its own; its outcome is dropped).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

import bpy

log = logging.getLogger(__name__)

T = TypeVar("T")
#: Seconds between looks for a followed work's outcome.
POLL_SECONDS = 0.25

#: Each function waiting to be called soon, with the timer that calls it.
_soon: dict[Callable[[], float | None], Callable[[], float | None]] = {}
#: The timers looking for a followed work's outcome.
_followed: set[Callable[[], float | None]] = set()


def later(fn: Callable[[], float | None], seconds: float = 0.0) -> None:
    """Call ``fn`` on the main thread in ``seconds``; nothing more if it is already waiting."""
    if fn in _soon:
        return

    def call() -> float | None:
        again = None
        try:
            again = fn()
        except Exception:  # Blender drops a timer that raises; it must not stay "waiting" forever
            log.exception("Kiln's deferred call %s failed", getattr(fn, "__qualname__", fn))
        if again is None:
            _soon.pop(fn, None)
        return again

    _soon[fn] = call
    bpy.app.timers.register(call, first_interval=seconds, persistent=True)


def cancel(fn: Callable[[], float | None]) -> None:
    """``fn`` is not called after all (its owner is going away)."""
    call = _soon.pop(fn, None)
    if call is not None and bpy.app.timers.is_registered(call):
        bpy.app.timers.unregister(call)


def is_waiting(fn: Callable[[], float | None]) -> bool:
    """Whether ``fn`` waits to be called (for the checks that nothing is left after unregister)."""
    return fn in _soon


def follow(name: str, work: Callable[[], T], done: Callable[[T], None]) -> None:
    """Run ``work`` on a thread named ``kiln-<name>``; call ``done(outcome)`` on the main thread."""
    outcome: list[T] = []
    threading.Thread(target=lambda: outcome.append(work()), name=f"kiln-{name}", daemon=True).start()

    def check() -> float | None:
        if not outcome:
            return POLL_SECONDS
        _followed.discard(check)
        done(outcome[0])
        return None

    _followed.add(check)
    bpy.app.timers.register(check, first_interval=POLL_SECONDS, persistent=True)


def forget() -> None:
    """On unregister: nothing waiting is called by a Kiln that is no longer enabled."""
    for timer in [*_soon.values(), *_followed]:
        if bpy.app.timers.is_registered(timer):
            bpy.app.timers.unregister(timer)
    _soon.clear()
    _followed.clear()
