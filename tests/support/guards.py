"""A guard for the threading rule: the main thread never opens a socket and never sleeps."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def main_thread_must_not_wait() -> Iterator[list[str]]:
    """Record any socket connect or sleep made on the main thread while the block runs."""
    offences: list[str] = []
    main = threading.main_thread()
    real_connect, real_sleep = socket.socket.connect, time.sleep

    def connect(self: socket.socket, address: Any) -> Any:
        if threading.current_thread() is main:
            offences.append(f"socket connect to {address}")
        return real_connect(self, address)

    def sleep(seconds: float) -> None:
        if threading.current_thread() is main:
            offences.append(f"sleep({seconds})")
        real_sleep(seconds)

    socket.socket.connect = connect  # type: ignore[method-assign]
    time.sleep = sleep
    try:
        yield offences
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        time.sleep = real_sleep
