"""Work that runs on a thread of its own while the artist goes on, its outcome handled on the main thread.

One way for every such job on the Blender side (an export after the fact, the library's copy of a
result): the work gets plain values only and never touches bpy; a timer looks for its outcome and
hands it to ``done`` on the main thread. Kiln's ``unregister`` forgets the timers still waiting, so
nothing of a disabled Kiln runs later (a thread still working ends on its own; its outcome is dropped).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import bpy

T = TypeVar("T")
#: Seconds between looks for an outcome.
POLL_SECONDS = 0.25

_waiting: set[Callable[[], float | None]] = set()


def follow(name: str, work: Callable[[], T], done: Callable[[T], None]) -> None:
    """Run ``work`` on a thread named ``kiln-<name>``; call ``done(outcome)`` on the main thread."""
    outcome: list[T] = []
    threading.Thread(target=lambda: outcome.append(work()), name=f"kiln-{name}", daemon=True).start()

    def check() -> float | None:
        if not outcome:
            return POLL_SECONDS
        _waiting.discard(check)
        done(outcome[0])
        return None

    _waiting.add(check)
    bpy.app.timers.register(check, first_interval=POLL_SECONDS)


def forget() -> None:
    """On unregister: no outcome is handled by a Kiln that is no longer enabled."""
    for check in list(_waiting):
        if bpy.app.timers.is_registered(check):
            bpy.app.timers.unregister(check)
    _waiting.clear()
