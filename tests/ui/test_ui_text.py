"""The words and disk rules behind the panels, without Blender."""

from __future__ import annotations

import threading
from pathlib import Path

from api.cache import SizeCache, clear_cache, folder_size
from api.connection_check import CheckState, ConnectionCheck
from api.errors import AuthError
from api.jobs import Job, JobRequest, JobState
from api.ui_text import (
    format_eta,
    human_size,
    key_hint,
    progress_text,
    remaining_seconds,
    shown_by_filter,
    status_text,
)


def job(**kw: object) -> Job:
    kw.setdefault("id", "j1")
    return Job(request=JobRequest(kind="text", prompt="a chair"), **kw)  # type: ignore[arg-type]


def test_eta_words() -> None:
    assert format_eta(None) == ""
    assert format_eta(0) == "about 1 s left"
    assert format_eta(42) == "about 42 s left"
    assert format_eta(150) == "about 2 min left"


def test_remaining_uses_the_service_eta_then_the_pace() -> None:
    assert remaining_seconds(job(state=JobState.RUNNING, progress=50)) is None
    with_eta = job(state=JobState.RUNNING, submitted_at=100.0, eta_seconds=60, progress=10)
    assert remaining_seconds(with_eta, now=130.0) == 30
    assert remaining_seconds(with_eta, now=200.0) == 900
    paced = job(state=JobState.RUNNING, submitted_at=100.0, progress=25)
    assert remaining_seconds(paced, now=120.0) == 60


def test_progress_and_status_text() -> None:
    running = job(state=JobState.RUNNING, submitted_at=100.0, progress=25)
    assert progress_text(running, now=110.0) == "25% · about 30 s left"
    assert (
        progress_text(job(state=JobState.QUEUED, note="Waiting for a free slot")) == "Waiting for a free slot"
    )
    assert progress_text(job(state=JobState.SUBMITTING)) == "Sending"
    assert status_text(job(state=JobState.IMPORTED, triangles=12345)) == "12,345 triangles"
    assert status_text(job(state=JobState.READY)) == "Ready to import"
    assert status_text(job(state=JobState.OUTCOME_UNKNOWN)) == "Outcome unknown"


def test_filters() -> None:
    assert shown_by_filter(JobState.RUNNING, "ACTIVE")
    assert shown_by_filter(JobState.READY, "DONE") and shown_by_filter(JobState.IMPORTED, "DONE")
    assert all(
        shown_by_filter(s, "FAILED") for s in (JobState.FAILED, JobState.TIMED_OUT, JobState.CANCELLED)
    )
    assert not shown_by_filter(JobState.IMPORTED, "FAILED")
    assert all(shown_by_filter(s, "ALL") for s in JobState)


def test_key_hint() -> None:
    assert key_hint("") == ""
    assert key_hint("tsk_live_AbCdEf0123456789") == ""
    assert key_hint(" tsk_live_AbCdEf0123456789 ") == ""
    assert "does not look like" in key_hint("tsk_test_AbCdEf0123456789")
    assert "does not look like" in key_hint("Bearer tsk_live_AbCdEf0123456789")
    assert "does not look like" in key_hint("tsk_live_ab")


def test_sizes() -> None:
    assert human_size(0) == "0 B"
    assert human_size(999) == "999 B"
    assert human_size(2100) == "2.1 KB"
    assert human_size(12_300_000) == "12.3 MB"
    assert human_size(5 * 10**12) == "5000.0 GB"


def test_clear_cache_keeps_unfinished_jobs(tmp_path: Path) -> None:
    for name in ("done.glb", "done.png", "ready.glb", "run.glb.part", "gone.png"):
        (tmp_path / name).write_bytes(b"12345")
    jobs = [
        job(id="done", state=JobState.IMPORTED, task_id="t1"),
        job(id="ready", state=JobState.READY, task_id="t2"),
        job(id="run", state=JobState.DOWNLOADING, task_id="t3"),
    ]
    assert folder_size(tmp_path) == 25
    assert clear_cache(tmp_path, jobs) == (3, 15)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ready.glb", "run.glb.part"]
    assert clear_cache(tmp_path / "missing", jobs) == (0, 0)
    assert folder_size(tmp_path / "missing") == 0


def test_size_cache_remembers_until_forgotten(tmp_path: Path) -> None:
    sizes = SizeCache(ttl=3600)
    (tmp_path / "a").write_bytes(b"123")
    assert sizes.size(tmp_path) == 3
    (tmp_path / "b").write_bytes(b"123")
    assert sizes.size(tmp_path) == 3
    sizes.forget()
    assert sizes.size(tmp_path) == 6


def test_connection_check_answers_from_a_worker() -> None:
    release = threading.Event()
    threads: list[str] = []

    def ask(base_url: str, api_key: str) -> str:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return f"Connected to {base_url}"

    check = ConnectionCheck(ask)
    assert check.state is CheckState.IDLE
    assert check.start("https://svc", "k_live_12345678")
    assert check.state is CheckState.RUNNING
    assert not check.start("https://svc", "k_live_12345678"), "one check at a time"
    release.set()
    for _ in range(200):
        if check.state is not CheckState.RUNNING:
            break
        threading.Event().wait(0.01)
    assert (check.state, check.message) == (CheckState.OK, "Connected to https://svc")
    assert threads == ["kiln-connection-check"]


def test_connection_check_failure_and_stale_answers() -> None:
    release = threading.Event()

    def ask(base_url: str, api_key: str) -> str:
        release.wait(10)
        raise AuthError(401)

    check = ConnectionCheck(ask)
    check.start("https://svc", "bad")
    check.reset()
    release.set()
    threading.Event().wait(0.2)
    assert check.state is CheckState.IDLE, "an answer about an old URL or key is dropped"
    release.clear()
    check.start("https://svc", "bad")
    release.set()
    for _ in range(200):
        if check.state is not CheckState.RUNNING:
            break
        threading.Event().wait(0.01)
    assert check.state is CheckState.FAILED
    assert "rejected the API key" in check.message
