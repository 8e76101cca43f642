"""Rollback: this Kiln meeting the job list of a newer Kiln (a machine rolled back, or two versions
on one folder). It reads what it understands, changes nothing (not a byte), sends nothing new, and
says so once; a schema step it cannot read at all is left alone the same way."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from api.jobs import STORE_FILE, JobEngine, JobRequest, StoreError
from api.jobs.model import Job

#: A step a newer Kiln might take that keeps every column this one reads.
ADDITIVE_STEP = """
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
CREATE TABLE tags (job TEXT NOT NULL, tag TEXT NOT NULL);
INSERT INTO tags VALUES ('job0001', 'hero');
"""
#: A step that rebuilds the job table in a form this Kiln cannot read.
REBUILDING_STEP = """
ALTER TABLE jobs RENAME TO jobs_v1;
CREATE TABLE jobs (id TEXT PRIMARY KEY, body BLOB NOT NULL);
INSERT INTO jobs SELECT id, data FROM jobs_v1;
DROP TABLE jobs_v1;
"""


def record(n: int, state: str = "imported") -> dict[str, Any]:
    return {
        "id": f"job{n:04d}",
        "request": {"kind": "text", "prompt": f"a thing number {n}"},
        "state": state,
        "task_id": f"task-{n}",
        "created_at": 1_700_000_000.0 + n,
    }


def newer_store(state: Path, step: str) -> None:
    """This Kiln's store with three jobs, then the schema step a newer Kiln took (schema 2)."""
    engine = JobEngine(state)
    engine.start()
    for n in range(3):
        engine.book.put(Job.from_json(record(n)))
    engine.shutdown()
    db = sqlite3.connect(state / STORE_FILE, isolation_level=None)
    try:
        newer = json.dumps({**record(7), "state": "archived", "format": 2})  # a state this Kiln does not know
        db.executescript(f"BEGIN; {step} COMMIT;")
        if "priority" in step:
            insert = "INSERT INTO jobs (id, rev, state, data) VALUES ('job0007', 99, 'archived', ?)"
            db.execute(insert, (newer,))
        db.execute("PRAGMA user_version = 2")
    finally:
        db.close()


def fingerprint(state: Path) -> tuple[str, list[str]]:
    """The store file's bytes (hashed) and the folder's file names: what "changed nothing" means."""
    data = (state / STORE_FILE).read_bytes()
    names = sorted(p.name for p in state.iterdir() if not p.name.endswith("-shm"))
    return hashlib.sha256(data).hexdigest(), names


@pytest.mark.parametrize("step", ["additive", "rebuilding"])
def test_an_older_kiln_reads_a_newer_store_changes_nothing_and_says_so_once(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any, step: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    newer_store(state, ADDITIVE_STEP if step == "additive" else REBUILDING_STEP)
    before = fingerprint(state)

    engine = make_engine(state)
    wait_synced(engine)
    time.sleep(1.0)  # a few store-thread rounds and heartbeats: none may write or say it again
    listed = sorted(job.id for job in engine.jobs())
    assert listed == (["job0000", "job0001", "job0002"] if step == "additive" else [])
    (sentence,) = engine.store_problems()
    assert "written by a newer version of Kiln" in sentence
    assert ("shows what it can read" if step == "additive" else "cannot read its jobs") in sentence
    assert "schema 2" in engine.store_problem_messages()[0].details
    with pytest.raises(StoreError, match="newer version of Kiln"):
        engine.submit(JobRequest(kind="text", prompt="a chair"))
    assert engine.store_problems() == [sentence]
    engine.shutdown()

    assert fingerprint(state) == before
    assert sandbox.requests == []
