"""A long history read at once: Python's full collection it brings on runs on the store thread, at
the start, not later in a beat or a draw on the UI thread (``api/jobs/writer.COLLECT_AFTER_JOBS``)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_store_damage import finished

from api.jobs import Job, JobEngine
from api.jobs.store import JobStore
from api.jobs.writer import COLLECT_AFTER_JOBS


@pytest.fixture
def full_collections() -> Iterator[list[str]]:
    """The name of the thread each full collection ran on, while the test runs."""
    threads: list[str] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            threads.append(threading.current_thread().name)

    gc.callbacks.append(note)
    yield threads
    gc.callbacks.remove(note)


def stored(state: Path, count: int) -> None:
    store = JobStore(state)
    store.open()
    try:
        store.insert_records(Job.from_json(finished(n)).to_json() for n in range(count))
    finally:
        store.close()


@pytest.mark.parametrize("count", [COLLECT_AFTER_JOBS, 20])
def test_a_long_history_is_collected_once_on_the_store_thread(
    tmp_path: Path, full_collections: list[str], count: int
) -> None:
    stored(tmp_path, count)
    gc.collect()  # what came before the engine is not its business
    full_collections.clear()
    engine = JobEngine(tmp_path)
    engine.start()
    try:
        assert engine.wait_for_history(30)
        assert len(engine.jobs()) == count
        on_the_store_thread = full_collections.count("kiln-store")
        assert on_the_store_thread == (1 if count >= COLLECT_AFTER_JOBS else 0), full_collections
    finally:
        engine.shutdown()
