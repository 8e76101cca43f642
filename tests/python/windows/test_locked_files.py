"""Windows' locked files, stood in for on Linux: every rename and delete Kiln makes meets a PermissionError.

Antivirus scanners, indexers, backup and sync tools, and other Blenders hold files open for a
moment; Windows then refuses to rename or delete them. Each test injects that refusal at one of
Kiln's renames or deletes (the store, the download, the helper's .blend, the cache; the key has its
own tests) and checks: a brief lock is waited out, a lasting one is a sentence naming the file,
nothing is lost, and the workers live on (the next job runs).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from locked_files import lock, retry_quickly, run

from api.features.cache import clear_cache
from api.jobs import STORE_FILE, JobEngine, JobState, ServiceConfig
from api.jobs.store import JobStore


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    retry_quickly(monkeypatch)


@pytest.fixture
def engine(sandbox: Any, sandbox_key: str, tmp_path: Path) -> Iterator[JobEngine]:
    engine = JobEngine(tmp_path / "state", workers=2)
    engine.start(ServiceConfig(base_url=sandbox.base_url, api_key=sandbox_key, poll_interval=0.2))
    yield engine
    engine.shutdown()
    assert not [t for t in threading.enumerate() if t.name.startswith("kiln-worker")]


def test_a_download_briefly_locked_is_renamed_after_a_retry(engine: JobEngine, monkeypatch: Any) -> None:
    refused = lock(monkeypatch, "replace", lambda p: p.suffix == ".glb", times=3)
    done = run(engine)
    assert done.state is JobState.READY, done.error
    assert len(refused) == 3 and Path(done.mesh_path).is_file()


def test_a_download_locked_for_good_is_a_sentence_and_the_next_job_runs(
    engine: JobEngine, monkeypatch: Any
) -> None:
    lock(monkeypatch, "replace", lambda p: p.suffix == ".glb", times=10_000)
    failed = run(engine)
    assert failed.state is JobState.FAILED and failed.task_id
    assert "another program" in failed.error and failed.error_message is not None
    assert f"{failed.id}.glb" in failed.error_message.details and f"{failed.id}.glb" not in failed.error
    assert not list(engine.cache_dir.glob("*.part"))
    monkeypatch.undo()
    assert run(engine).state is JobState.READY  # the workers are alive


def test_a_save_the_disk_refuses_is_kept_in_memory_and_saved_again(
    engine: JobEngine, monkeypatch: Any
) -> None:
    real_put = JobStore.put
    refusals = {"left": 4}

    def put(self: JobStore, *args: Any, **kwargs: Any) -> int:
        if args[1] == JobState.READY.value and refusals["left"] > 0:
            refusals["left"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return real_put(self, *args, **kwargs)

    monkeypatch.setattr(JobStore, "put", put)
    done = run(engine)
    assert done.state is JobState.READY  # the job goes on in memory
    wait_until(engine.store_problems, "the refused save is said")
    assert "could not" in engine.store_problems()[0].lower()
    wait_until(lambda: saved_state(engine, done.id) == "ready", "the job saved again")
    assert saved_state(engine, done.id) == "ready"  # on disk once the disk took it
    assert run(engine).state is JobState.READY


def wait_until(condition: Callable[[], object], what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def saved_state(engine: JobEngine, job_id: str) -> str | None:
    with sqlite3.connect(engine.state_dir / STORE_FILE) as db:
        row = db.execute("SELECT data FROM jobs WHERE id = ?", (job_id,)).fetchone()
    return json.loads(row[0])["state"] if row else None


def test_a_damaged_store_is_backed_up_even_while_briefly_locked(
    tmp_path: Path, sandbox: Any, sandbox_key: str, monkeypatch: Any
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / STORE_FILE).write_bytes(b"this is not a database" * 100)
    refused = lock(monkeypatch, "replace", lambda p: ".damaged-" in p.name, times=2)
    engine = JobEngine(state, workers=1)
    engine.start(ServiceConfig(base_url=sandbox.base_url, api_key=sandbox_key, poll_interval=0.2))
    try:
        backups = list(state.glob(f"{STORE_FILE}.damaged-*"))
        assert refused and len(backups) == 1
        assert backups[0].read_bytes() == b"this is not a database" * 100
        assert run(engine).state is JobState.READY
    finally:
        engine.shutdown()


def test_the_cache_clean_up_leaves_a_locked_file_and_removes_the_rest(
    tmp_path: Path, monkeypatch: Any
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in ("a.glb", "b.glb", "c.png"):
        (cache / name).write_bytes(b"x" * 10)
    lock(monkeypatch, "unlink", lambda p: p.name == "b.glb", times=10_000)
    removed, _freed = clear_cache(cache, [])
    assert removed == 2 and [p.name for p in cache.iterdir()] == ["b.glb"]
