"""A damaged, old or newer job list: kept as a backup, what can be read recovered, the artist told."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from plain_words import internals_in

from api.jobs import STORE_FILE, JobEngine, JobRequest, JobState, StoreError
from api.jobs.model import Job, new_job_id

LEGACY = "jobs.json"


def finished(n: int, state: str = "imported") -> dict[str, Any]:
    """A record as an older Kiln wrote it: a finished job with its task id."""
    return {
        "id": f"job{n:04d}",
        "request": {"kind": "text", "prompt": f"a thing number {n} " + "with words " * 8},
        "state": state,
        "task_id": f"task-{n}",
        "created_at": 1_700_000_000.0 + n,
    }


def legacy_text(count: int = 3) -> str:
    return json.dumps({"format": 1, "jobs": [finished(n) for n in range(count)]}, indent=1)


def backups(folder: Path, name: str) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.name.startswith(name + ".") and not p.name.endswith(("-wal", "-shm"))
    )


def plainly_said(problem: str, folder: Path, brought_back: str) -> bool:
    """``problem`` says, in plain words, that a copy is kept in Kiln's user folder (whose path is
    Kiln's own: the details and the console name it) and how many jobs came back."""
    assert not internals_in(problem), problem
    return str(folder) not in problem and "in its user folder" in problem and brought_back in problem


def details_name_the_folder(engine: JobEngine, folder: Path) -> bool:
    """The messages behind ``store_problems`` name the backup's folder in their details."""
    return all(str(folder) in problem.details for problem in engine.store_problem_messages())


def raw_rows(folder: Path) -> dict[str, str]:
    with sqlite3.connect(folder / STORE_FILE) as db:
        return dict(db.execute("SELECT id, data FROM jobs"))


def test_an_old_job_list_moves_in_once_and_stays_as_a_backup(
    sandbox: Any, make_engine: Any, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    newer = {**finished(9), "state": "archived"}  # a state a newer Kiln may write
    text = json.dumps({"format": 1, "jobs": [finished(0), finished(1), newer]})
    (state / LEGACY).write_text(text)
    engine = make_engine(state)
    engine.wait([], timeout=1)
    (backup,) = backups(state, LEGACY)
    assert backup.name.startswith("jobs.json.migrated-") and backup.read_text() == text
    assert not (state / LEGACY).exists()
    assert json.loads(raw_rows(state)["job0009"]) == newer, "an unknown record is kept as it is"
    assert engine.store_problems() == []
    engine.shutdown()

    (state / LEGACY).write_text(text)  # an old Kiln wrote it again: not read a second time
    again = make_engine(state)
    assert len(raw_rows(state)) == 3 and (state / LEGACY).exists()
    assert again.store_problems() == []
    assert sandbox.requests == []


def _truncated() -> str:
    text = legacy_text(3)
    return text[: text.index('"job0002"') + 30]


@pytest.mark.parametrize(
    ("kind", "content", "recovered"),
    [
        ("truncated", _truncated(), 2),
        ("garbage", "\x00\x17garbage{{{ not json", 0),
        ("empty", "", 0),
        ("a list", json.dumps([finished(0), finished(1), 7]), 2),
        ("wrong shape", json.dumps({"jobs": 5}), 0),
    ],
)
def test_a_damaged_old_job_list_is_kept_recovered_and_reported(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any, kind: str, content: str, recovered: int
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / LEGACY).write_text(content)
    engine = make_engine(state)
    wait_synced(engine)
    (backup,) = backups(state, LEGACY)
    assert backup.name.startswith("jobs.json.damaged-") and backup.read_text() == content
    (problem,) = engine.store_problems()
    brought_back = f"brought back {recovered} job" if recovered else "could bring back no job"
    assert "from an older version was damaged" in problem and plainly_said(problem, state, brought_back)
    assert details_name_the_folder(engine, state)
    assert sorted(job.task_id for job in engine.jobs()) == [f"task-{n}" for n in range(recovered)]
    assert sandbox.requests == []


def _stored(state: Path, count: int) -> bytes:
    """A store holding ``count`` finished jobs, written by a real engine, closed; returns its bytes."""
    engine = JobEngine(state)
    engine.start()
    for n in range(count):
        job = Job.from_json(finished(n))
        engine.book.put(job)
    engine.shutdown()
    return (state / STORE_FILE).read_bytes()


@pytest.mark.parametrize("kind", ["truncated", "garbage", "wrong shape"])
def test_a_damaged_store_is_kept_recovered_and_reported(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any, kind: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    original = _stored(state, 200)
    path = state / STORE_FILE
    if kind == "truncated":
        damaged = original[: len(original) * 2 // 3]
    elif kind == "garbage":
        damaged = os.urandom(len(original))
    else:
        path.unlink()
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
        damaged = path.read_bytes()
    path.write_bytes(damaged)

    engine = make_engine(state)
    wait_synced(engine)
    (backup,) = backups(state, STORE_FILE)
    assert backup.read_bytes() == damaged, "the damaged file is kept as it was"
    problem = " ".join(engine.store_problems())
    happened = {"truncated": "cut short", "garbage": "overwritten", "wrong shape": "something other"}[kind]
    assert happened in problem and details_name_the_folder(engine, state)
    jobs = engine.jobs()
    if kind == "truncated":
        assert 0 < len(jobs) < 200 and plainly_said(problem, state, f"brought back {len(jobs)} jobs")
    else:
        assert jobs == [] and plainly_said(problem, state, "could bring back no job")
    job = engine.submit(JobRequest(kind="text", prompt="a chair after the repair"))
    assert engine.wait([job.id], timeout=60) and engine.get(job.id).state is JobState.READY
    assert sandbox.submit_count == 1


def test_a_store_of_a_newer_kiln_is_read_not_written(sandbox: Any, make_engine: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    _stored(state, 3)
    with sqlite3.connect(state / STORE_FILE) as db:
        db.execute("PRAGMA user_version = 99")
    before = raw_rows(state)
    engine = make_engine(state)
    (problem,) = engine.store_problems()
    assert "newer version of Kiln" in problem
    with pytest.raises(StoreError, match="newer version"):
        engine.submit(JobRequest(kind="text", prompt="a chair"))
    engine.shutdown()
    assert raw_rows(state) == before
    assert sandbox.requests == []


def test_records_this_kiln_cannot_read_are_left_as_they_are(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    _stored(state, 1)
    odd = json.dumps({**finished(5), "state": "archived", "format": 7, "extra": [1, 2]})
    with sqlite3.connect(state / STORE_FILE) as db:
        db.execute("INSERT INTO jobs (id, rev, state, data) VALUES ('job0005', 1000, 'archived', ?)", (odd,))
    engine = make_engine(state)
    wait_synced(engine)
    job = engine.submit(JobRequest(kind="text", prompt="a chair"))
    assert engine.wait([job.id], timeout=60)
    engine.book.remove("job0000")
    engine.shutdown()
    rows = raw_rows(state)
    assert rows["job0005"] == odd and "job0000" not in rows and job.id in rows


def test_a_job_taken_over_while_it_was_being_sent_is_outcome_unknown(
    sandbox: Any, make_engine: Any, tmp_path: Path
) -> None:
    """Its owner died between "being sent" and the answer: it may have cost credits, so no resend."""
    import subprocess
    import sys

    state = tmp_path / "state"
    state.mkdir()
    _stored(state, 0)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    owner = {"pid": int(dead.stdout), "started": time.time() - 5, "label": "a background Blender"}
    sending = {
        **finished(1),
        "id": new_job_id(),
        "state": "submitting",
        "submit_sent": True,
        "task_id": "",
        "owner": owner,
    }
    waiting = {
        **finished(2),
        "id": new_job_id(),
        "state": "submitting",
        "submit_sent": False,
        "task_id": "",
        "owner": owner,
    }
    with sqlite3.connect(state / STORE_FILE) as db:
        db.execute(
            "INSERT INTO owners VALUES (?, ?, ?, ?)", (owner["pid"], owner["started"], time.time(), "x")
        )
        for n, record in enumerate((sending, waiting)):
            db.execute(
                "INSERT INTO jobs VALUES (?, ?, 'submitting', ?)", (record["id"], 500 + n, json.dumps(record))
            )
    engine = make_engine(state)
    assert engine.wait([sending["id"], waiting["id"]], timeout=60)
    unknown, sent = engine.get(sending["id"]), engine.get(waiting["id"])
    assert unknown.state is JobState.OUTCOME_UNKNOWN
    assert "cannot tell whether the service received" in unknown.error
    assert sent.state is JobState.READY and engine.is_own(sent)
    assert sandbox.submit_attempts == 1


def test_an_empty_store_file_is_a_new_list_not_damage(sandbox: Any, make_engine: Any, tmp_path: Path) -> None:
    """SQLite creates the file empty: another Kiln starting at the same moment must not call it damaged."""
    state = tmp_path / "state"
    state.mkdir()
    (state / STORE_FILE).write_bytes(b"")
    engine = make_engine(state)
    assert engine.store_problems() == [] and backups(state, STORE_FILE) == []
    job = engine.submit(JobRequest(kind="text", prompt="a chair"))
    assert engine.wait([job.id], timeout=60) and engine.get(job.id).state is JobState.READY


def test_an_emptied_store_is_kept_and_said(sandbox: Any, make_engine: Any, tmp_path: Path) -> None:
    """Zero bytes where Kiln had written its list: SQLite would start a new list over it without a word."""
    state = tmp_path / "state"
    state.mkdir()
    _stored(state, 5)
    (state / STORE_FILE).write_bytes(b"")
    engine = make_engine(state)
    (backup,) = backups(state, STORE_FILE)
    assert backup.read_bytes() == b""
    (problem,) = engine.store_problems()
    assert "emptied" in problem and plainly_said(problem, state, "could bring back no job")
    job = engine.submit(JobRequest(kind="text", prompt="a chair after the repair"))
    assert engine.wait([job.id], timeout=60) and engine.get(job.id).state is JobState.READY
    engine.shutdown()
    assert make_engine(state).store_problems() == [], "the new list is Kiln's own again"


@pytest.mark.parametrize("kind", ["garbage", "bad checksum"])
def test_a_write_ahead_log_sqlite_would_reject_is_kept_and_said(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any, kind: str
) -> None:
    """SQLite would ignore such a log and reset it at the next write, losing what it held."""
    state = tmp_path / "state"
    state.mkdir()
    original = _stored(state, 50)
    live = _live_log(tmp_path / "live")
    garbage = os.urandom(8192) if kind == "garbage" else live[:20] + bytes([live[20] ^ 1]) + live[21:]
    (state / f"{STORE_FILE}-wal").write_bytes(garbage)
    engine = make_engine(state)
    wait_synced(engine)
    (backup,) = backups(state, STORE_FILE)
    assert backup.read_bytes() == original
    assert backup.with_name(backup.name + "-wal").read_bytes() == garbage, "the log's bytes are kept"
    (problem,) = engine.store_problems()
    assert "latest changes" in problem
    assert len(engine.jobs()) == 50 and plainly_said(problem, state, "brought back 50 jobs")


def test_a_write_ahead_log_left_by_a_stopped_kiln_is_read_not_called_damage(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    _live_log(state, jobs=7)  # the store and its log as a Kiln that was killed left them
    engine = make_engine(state)
    wait_synced(engine)
    assert engine.store_problems() == [] and backups(state, STORE_FILE) == []
    assert len(engine.jobs()) == 7


def _live_log(state: Path, jobs: int = 1) -> bytes:
    """A store whose last changes are only in its write-ahead log (copied while a Kiln had it open)."""
    running = state.with_name(state.name + "-running")
    running.mkdir(parents=True)
    engine = JobEngine(running)
    engine.start()
    for n in range(jobs):
        saved = engine.book.put(Job.from_json(finished(n)))
        assert saved is not None and saved.result(10)
    state.mkdir(exist_ok=True)
    for name in (STORE_FILE, f"{STORE_FILE}-wal"):
        (state / name).write_bytes((running / name).read_bytes())
    engine.shutdown()
    return (state / f"{STORE_FILE}-wal").read_bytes()
