"""Faults a test puts on one task of the in-process sandbox while Kiln runs."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def failing(sandbox: Any, prompt: str) -> Iterator[None]:
    """Make the service fail the task of ``prompt`` as soon as it exists (long before Kiln polls it)."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            for task in list(sandbox.tasks.values()):
                if task.prompt == prompt and task.forced is None:
                    sandbox.fail_now(task.id, "The generator could not make this one.")
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
