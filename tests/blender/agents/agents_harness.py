"""Kiln's agent server as the bpy-module tests reach it, and the main thread they beat it from.

Timers never fire in the bpy module, so the test's main thread plays Blender's event loop: it calls
the watcher's own timer function (``session.watcher.beat``) and then idles for the interval that beat
asked for, exactly as Blender's timer would, while the official MCP SDK client runs on a thread of its
own (:meth:`Agents.beating`). Nothing of Kiln's is stood in for.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from agent_client import with_client
from mcp import Client

T = TypeVar("T")


@dataclass
class Agents:
    """Kiln's agent server as a test reaches it."""

    url: str
    token: str = field(repr=False)
    watcher: ModuleType
    serving: ModuleType
    #: Kiln's preferences (an RNA struct: never shown, it may be gone once Kiln is disabled).
    prefs: Any = field(repr=False)
    folder: Path
    #: The interval each beat asked for, in order.
    beats: list[float] = field(default_factory=list)

    def beating(
        self,
        scenario: Callable[[Client], Awaitable[T]],
        *,
        on_beat: Callable[[], None] | None = None,
        timeout: float = 120.0,
        **client_options: Any,
    ) -> T:
        """Run ``scenario`` with the SDK client on a thread while this (the main) thread beats."""
        work = lambda: with_client(self.url, self.token, scenario, **client_options)  # noqa: E731
        return self.beating_while(work, on_beat=on_beat, timeout=timeout)

    def beating_while(
        self, work: Callable[[], T], *, on_beat: Callable[[], None] | None = None, timeout: float = 120.0
    ) -> T:
        """Run ``work`` on a thread while this (the main) thread beats as Blender's timer would;
        ``on_beat`` runs on the main thread after each beat (what a redraw would see then)."""
        outcome: list[T] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                outcome.append(work())
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=run, name="agent")
        thread.start()
        deadline = threading.Event()
        timer = threading.Timer(timeout, deadline.set)
        timer.start()
        try:
            while thread.is_alive() and not deadline.is_set():
                interval = self.watcher.beat()
                self.beats.append(interval)
                if on_beat is not None:
                    on_beat()
                thread.join(interval)  # Blender idles (draws, takes input) until the timer is due
        finally:
            timer.cancel()
        assert not thread.is_alive(), f"the agent did not finish within {timeout} s"
        if failure:
            raise failure[0]
        return outcome[0]
