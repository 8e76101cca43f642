"""The serving loop of ``bpy.ops.kiln.serve_agents``: agents served in background mode, until stopped.

``blender -b`` has no event loop, so no timer beats the watcher and nothing would run the agents'
calls. This loop does both on the main thread: it asks for a server (``agents.serving.ask``), beats
the watcher (jobs advance and land in the scene) and, between beats, waits for the agents' calls
and runs them at once (``agents.serving.drain``), until Ctrl+C or a termination signal, the time
limit, or the stop file. Waiting is fine here: there is no UI (``session.blocking``).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import bpy

from .. import language
from ..api.agents import status as agent_status
from ..api.errors import KilnError
from ..api.words import catalogue as words
from ..session import messenger, watcher
from . import serving
from .settings import Asked

#: Main-thread time one round gives agents' calls (no UI to keep smooth), and the longest it waits
#: for one before it beats the watcher again.
SERVE_BUDGET = 0.05
SERVE_WAIT = 0.25


def serve(
    context: bpy.types.Context, asked: Asked, seconds: float = 0.0, stop_file: Path | None = None
) -> str:
    """Serve agents until Ctrl+C or a termination signal, ``seconds`` (0: no limit), or ``stop_file``
    appearing; returns where it served. Raises KilnError when no server could start.

    While it serves, Ctrl+C and SIGTERM stop it; afterwards a signal Blender handled itself is left
    to the system's default (Python cannot give a handler of Blender's back).
    """
    stopped = threading.Event()
    restore = _catch_signals(stopped.set)
    serving.ask(asked)
    try:
        serving.reconcile(context)
        where = serving.url()
        if not where:
            problem = agent_status.current.problem
            assert problem is not None, "no server runs and none was refused"
            raise KilnError(language.said(problem))
        messenger.announce("INFO", words.SERVING, url=where)
        deadline = time.monotonic() + seconds if seconds > 0 else None
        while not (
            stopped.is_set()
            or (deadline is not None and time.monotonic() >= deadline)
            or (stop_file is not None and stop_file.exists())
        ):
            soon = watcher.beat()
            if not serving.drain(SERVE_BUDGET, wait=min(soon, SERVE_WAIT)):
                break  # Kiln was disabled meanwhile
        return where
    finally:
        serving.ask(None)
        restore()
        serving.reconcile(bpy.context)


def _catch_signals(stop: Callable[[], None]) -> Callable[[], None]:
    """Ctrl+C and SIGTERM call ``stop`` until the returned function puts the old handlers back."""
    caught: dict[int, object] = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        try:
            caught[number] = signal.signal(number, lambda _number, _frame: stop())
        except (ValueError, OSError):  # not Python's main thread: nobody can send one here
            continue

    def restore() -> None:
        for number, previous in caught.items():
            signal.signal(number, previous if previous is not None else signal.SIG_DFL)  # type: ignore[arg-type]

    return restore
