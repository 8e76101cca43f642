"""An agent's job says so on disk (``JobRequest.agent``), and job lists from before agents read as the
artist's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from api.jobs import JobRequest
from api.jobs.model import Job


def test_an_agents_job_keeps_its_mark_across_a_restart(make_engine: Any, tmp_path: Path) -> None:
    engine = make_engine(tmp_path)
    asked = engine.record(JobRequest(kind="text", prompt="a stool", agent="Claude Desktop 0.9.2"))
    own = engine.record(JobRequest(kind="text", prompt="a bench"))
    assert engine.wait([asked.id, own.id], timeout=60)
    engine.shutdown()
    again = make_engine(tmp_path)
    assert again.wait_for_history()
    assert again.get(asked.id).request.agent == "Claude Desktop 0.9.2"
    assert again.get(own.id).request.agent == ""


def test_a_record_from_before_agents_is_the_artists_own() -> None:
    old = {"id": "job0001", "request": {"kind": "text", "prompt": "a lamp"}, "state": "imported"}
    assert Job.from_json(old).request.agent == ""
    mark = Job.from_json({**old, "request": {**old["request"], "agent": "Cursor 1.2"}})
    assert mark.to_json()["request"]["agent"] == "Cursor 1.2"
