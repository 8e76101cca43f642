"""A folder that cannot hold the job list: a sentence naming folder and cause, nothing lost, nothing sent."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from api.errors import KilnError
from api.jobs import STORE_FILE, JobEngine, JobRequest, JobState, ServiceConfig, StoreError

CHAIR = JobRequest(kind="text", prompt="a chair")


def stored_ids(folder: Path) -> list[str]:
    with sqlite3.connect(f"{(folder / STORE_FILE).as_uri()}?immutable=1", uri=True) as db:
        return sorted(job_id for (job_id,) in db.execute("SELECT id FROM jobs"))


def test_a_state_folder_that_is_a_file_refuses_to_start(
    sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    state = tmp_path / "kiln"
    state.write_text("someone's notes")
    engine = JobEngine(state)
    with pytest.raises(StoreError) as caught:
        engine.start(ServiceConfig(sandbox.base_url, sandbox_key))
    # The file in the way is named, with the button that shows it; its full path is in the details.
    assert "a file named “kiln” is where its folder should be" in caught.value.user_message
    assert "Press Show “kiln”" in caught.value.user_message
    assert caught.value.message.values["folder"] == str(tmp_path)  # what Show “kiln” opens
    assert str(state) not in caught.value.user_message
    assert str(state) in caught.value.details and "is a file, not a folder" in caught.value.details
    assert engine.threads == [] and state.read_text() == "someone's notes"
    with pytest.raises(KilnError, match="not running"):
        engine.submit(CHAIR)
    with pytest.raises(KilnError, match="not running"):
        engine.wait(["anything"])
    assert sandbox.requests == []


def test_a_cache_folder_that_is_a_file_fails_the_job_with_a_sentence(
    sandbox: Any, make_engine: Any, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "cache").write_text("not a folder")
    engine = make_engine(state)
    job = engine.submit(CHAIR)
    assert engine.wait([job.id], timeout=60)
    failed = engine.get(job.id)
    assert failed.state is JobState.FAILED and failed.task_id, "the task id is kept for Resume"
    assert (
        "a file named “cache” is where a folder should be" in failed.error and str(state) not in failed.error
    )
    assert failed.error_message is not None
    assert failed.error_message.values == {"name": "cache", "folder": str(state)}  # Show “cache” opens it
    details = failed.error_message.details
    assert str(state / "cache") in details and "not a folder" in details
    assert (state / "cache").read_text() == "not a folder"


def test_a_read_only_disk_refuses_to_start_and_keeps_the_list(
    sandbox: Any, sandbox_key: str, make_engine: Any, small_disk: Any
) -> None:
    disk = small_disk.mount("4m")
    engine = make_engine(disk / "kiln")
    first = engine.submit(CHAIR)
    assert engine.wait([first.id], timeout=60) and engine.get(first.id).state is JobState.READY
    engine.shutdown()
    sent = sandbox.submit_attempts
    before = (disk / "kiln" / STORE_FILE).read_bytes()
    small_disk.read_only(disk)

    again = JobEngine(disk / "kiln")
    with pytest.raises(StoreError) as caught:
        again.start(ServiceConfig(sandbox.base_url, sandbox_key))
    assert str(disk / "kiln") in caught.value.details and "read-only" in caught.value.user_message
    assert "Nothing was sent" in caught.value.user_message and again.threads == []
    assert (disk / "kiln" / STORE_FILE).read_bytes() == before
    assert first.id in stored_ids(disk / "kiln")
    assert sandbox.submit_attempts == sent


def test_a_full_disk_refuses_to_send(sandbox: Any, make_engine: Any, small_disk: Any) -> None:
    disk = small_disk.mount("1m")
    engine = make_engine(disk / "kiln")
    first = engine.submit(CHAIR)
    assert engine.wait([first.id], timeout=60)
    sent = sandbox.submit_attempts
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC

    job = engine.submit(JobRequest(kind="text", prompt="a table"))
    assert engine.wait([job.id], timeout=60)
    refused = engine.get(job.id)
    assert refused.state is JobState.FAILED
    assert "the disk is full" in refused.error and refused.error_message is not None
    assert str(disk / "kiln") in refused.error_message.details and str(disk) not in refused.error
    assert sandbox.submit_attempts == sent
    filler.unlink()
    engine.shutdown()
    assert first.id in stored_ids(disk / "kiln")
