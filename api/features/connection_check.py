"""Test Connection off the UI thread: the work asks the service, the UI reads the answer when it arrives.

The Blender side runs the work its one way off the main thread (``main_thread.follow``).
"""

from __future__ import annotations

import enum
import functools
import logging
import threading
from collections.abc import Callable

from ..errors import KilnError

log = logging.getLogger(__name__)


class CheckState(enum.StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"


def _ask_service(base_url: str, api_key: str) -> str:
    from ..service.client import Client  # on the worker: keeps requests out of Blender's start-up

    with Client(base_url, api_key) as client:
        return client.check_connection()


class ConnectionCheck:
    """One check at a time; ``state``/``message`` are safe to read from the main thread at any moment."""

    def __init__(self, ask: Callable[[str, str], str] = _ask_service) -> None:
        self._ask = ask
        self._lock = threading.Lock()
        self._state = CheckState.IDLE
        self._message = ""
        self._generation = 0

    @property
    def state(self) -> CheckState:
        with self._lock:
            return self._state

    @property
    def message(self) -> str:
        with self._lock:
            return self._message

    def begin(self, base_url: str, api_key: str) -> Callable[[], None] | None:
        """Mark a check as running; returns its work, to run off the main thread (None: one runs)."""
        with self._lock:
            if self._state is CheckState.RUNNING:
                return None
            self._generation += 1
            self._state, self._message = CheckState.RUNNING, "Asking the service…"
            generation = self._generation
        return functools.partial(self._run, generation, base_url, api_key)

    def reset(self) -> None:
        """Forget the last answer (the URL or key changed); a check still running is ignored when it ends."""
        with self._lock:
            self._generation += 1
            self._state, self._message = CheckState.IDLE, ""

    def _run(self, generation: int, base_url: str, api_key: str) -> None:
        try:
            state, message = CheckState.OK, self._ask(base_url, api_key)
        except KilnError as exc:
            state, message = CheckState.FAILED, exc.user_message
        except Exception:
            log.exception("Connection check failed unexpectedly")
            state, message = CheckState.FAILED, "Kiln hit an unexpected error; see the system console."
        log.info("Connection check: %s", message)
        with self._lock:
            if generation == self._generation:
                self._state, self._message = state, message


#: The check the preferences show (one per Blender session).
current = ConnectionCheck()
