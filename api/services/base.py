"""The one interface every service implements (the job engine, the connection check and the balance
use nothing else).

The safety every service shares is written once, under it, in :mod:`api.http`: the transport
(the key only to the service's own API origin, on every hop), deadlines and size caps, the one
retry policy, tolerant parsing, redaction. A service's ``Client`` subclasses
:class:`api.http.client.ServiceClient`, which holds that plumbing, and adds its wire.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..http.models import Task
from ..words import Message
from .info import ServiceInfo
from .order import Order


class GenerationService(Protocol):
    """A client of one service, shared by the engine's worker threads. One attempt per call."""

    info: ServiceInfo

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """Send one paid request; a failure after it may have left raises OutcomeUnknownError."""
        ...

    def stages(self, order: Order) -> int:
        """How many submits make the job (Meshy's textured text job: a preview, then a refine)."""
        ...

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """The task's state; ``handle`` is what its submit answered besides the id (``Task.handle``)."""
        ...

    def download(
        self,
        url: str,
        dest: str | os.PathLike[str],
        *,
        progress: Callable[[int, int | None], object] | None = None,
        max_bytes: int = ...,
        check: Callable[[Path], object] | None = None,
        cancel: threading.Event | None = None,
    ) -> Path:
        """Stream a result to disk (the key never goes to a download host)."""
        ...

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """One cheap request: a sentence naming the service (and its balance where it has one)."""
        ...

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """Credits left on the account, where the service tells (None: it does not)."""
        ...

    def cancel_task(self, task_id: str, *, handle: str = "") -> None:
        """Ask the service to stop the task, where it documents a way (``Capabilities.cancel``); one
        attempt. A service without one raises InputError with a sentence saying so."""
        ...

    def close(self) -> None: ...
