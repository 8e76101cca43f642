"""Test Connection off the UI thread: the work asks the service, the UI reads the answer when it arrives.

The Blender side runs the work its one way off the main thread (``main_thread.follow``). Light: the
preferences hold the check from the moment Kiln registers; what a check uses loads with the first one.
"""

from __future__ import annotations

import enum
import functools
import logging
import threading
from collections.abc import Callable

from ..errors import KilnError
from ..services import info, make_client
from ..services.advice import fitted
from ..words import Message, english_message, message
from ..words import catalogue as words

log = logging.getLogger(__name__)


class CheckState(enum.StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"


def _ask_service(base_url: str, api_key: str, service: str) -> Message:
    """One cheap call to the service, made on the worker (loading its client loads ``requests``,
    which Blender's start-up should not pay for); known services say their balance."""
    client = make_client(service, base_url, api_key)
    try:
        return client.check_connection()
    finally:
        client.close()


class ConnectionCheck:
    """One check at a time; ``state``/``answer`` are safe to read from the main thread at any moment."""

    def __init__(self, ask: Callable[[str, str, str], Message] = _ask_service) -> None:
        self._ask = ask
        self._lock = threading.Lock()
        self._state = CheckState.IDLE
        self._answer: Message | None = None
        self._generation = 0

    @property
    def state(self) -> CheckState:
        with self._lock:
            return self._state

    @property
    def answer(self) -> Message | None:
        """What the check says (asking, connected, or what went wrong); None before any check."""
        with self._lock:
            return self._answer

    @property
    def message(self) -> str:
        """The answer in English ("" before any check)."""
        answer = self.answer
        return english_message(answer) if answer is not None else ""

    def begin(self, base_url: str, api_key: str, service: str = "") -> Callable[[], None] | None:
        """Mark a check of ``service`` as running; returns its work, to run off the main thread (None:
        one runs)."""
        with self._lock:
            if self._state is CheckState.RUNNING:
                return None
            self._generation += 1
            self._state, self._answer = CheckState.RUNNING, message(words.CONNECTION_ASKING)
            generation = self._generation
        return functools.partial(self._run, generation, base_url, api_key, service)

    def reset(self) -> None:
        """Forget the last answer (the URL or key changed); a check still running is ignored when it ends."""
        with self._lock:
            self._generation += 1
            self._state, self._answer = CheckState.IDLE, None

    def _run(self, generation: int, base_url: str, api_key: str, service: str) -> None:
        from .credits import note_balance

        try:
            state, answer = CheckState.OK, self._ask(base_url, api_key, service)
        except KilnError as exc:  # its advice names only controls the service has
            state, answer = CheckState.FAILED, fitted(exc.message, info(service).capabilities)
        except Exception:
            log.exception("Connection check failed unexpectedly")
            state, answer = CheckState.FAILED, message(words.CONNECTION_UNEXPECTED)
        log.info("Connection check: %s (%s)", answer, answer.details)
        note_balance(service, answer)
        with self._lock:
            if generation == self._generation:
                self._state, self._answer = state, answer


#: The check the preferences show (one per Blender session).
current = ConnectionCheck()
