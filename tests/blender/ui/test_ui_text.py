"""The words behind the panels and the preferences, and the disk rules behind the cache."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from api.errors import AuthError
from api.features.cache import SizeCache, clear_cache, folder_size
from api.features.connection_check import CheckState, ConnectionCheck
from api.jobs import Job, JobRequest, JobState
from api.words import Message, catalogue, message


def job(**kw: object) -> Job:
    kw.setdefault("id", "j1")
    return Job(request=JobRequest(kind="text", prompt="a chair"), **kw)  # type: ignore[arg-type]


@pytest.fixture
def words(kiln_module: Any) -> SimpleNamespace:
    """The add-on's ``ui_text`` (it lives with the UI, beside the rooms that show its words)."""
    jobs = kiln_module("api.jobs")

    def job(**kw: object) -> Any:
        return jobs.Job(id="j1", request=jobs.JobRequest(kind="text", prompt="a chair"), **kw)

    return SimpleNamespace(text=kiln_module("ui_text"), State=jobs.JobState, job=job, jobs=jobs)


def said(what: Any) -> str:
    """A message from ``ui_text`` in English, as the Sidebar shows it with translation off."""
    return "" if what is None else str(what)


def test_eta_words(words: Any) -> None:
    format_eta = words.text.format_eta
    assert format_eta(None) is None
    assert said(format_eta(0)) == "about 1 s left"
    assert said(format_eta(42)) == "about 42 s left"
    assert said(format_eta(150)) == "about 2 min left"


def test_remaining_uses_the_service_eta_then_the_pace(words: Any) -> None:
    remaining_seconds, job, State = words.text.remaining_seconds, words.job, words.State
    assert remaining_seconds(job(state=State.RUNNING, progress=50)) is None
    with_eta = job(state=State.RUNNING, submitted_at=100.0, eta_seconds=60, progress=10)
    assert remaining_seconds(with_eta, now=130.0) == 30
    assert remaining_seconds(with_eta, now=200.0) == 900
    paced = job(state=State.RUNNING, submitted_at=100.0, progress=25)
    assert remaining_seconds(paced, now=120.0) == 60


def test_progress_text(words: Any, kiln_module: Any) -> None:
    progress_text = words.text.progress_text
    job, State = words.job, words.State
    note = kiln_module("api.words").message
    catalogue = kiln_module("api.words.catalogue")
    running = job(state=State.RUNNING, submitted_at=100.0, progress=25)
    assert said(progress_text(running, now=110.0)) == "25% · about 30 s left"
    assert said(progress_text(job(state=State.SUBMITTING))) == "Sending"
    downloading = job(state=State.DOWNLOADING, note_message=note(catalogue.NOTE_DOWNLOADING, percent=40))
    assert said(progress_text(downloading)) == "Downloading 40%"


def test_a_progress_bar_carries_a_few_words_and_the_sentence_goes_below(words: Any, kiln_module: Any) -> None:
    progress_text, sentence = words.text.progress_text, words.text.progress_sentence
    job, State = words.job, words.State
    note = kiln_module("api.words").message
    catalogue = kiln_module("api.words.catalogue")
    waiting = note(catalogue.NOTE_WAITING_FOR_TURN)
    slot = job(state=State.QUEUED, note_message=waiting)
    assert (said(progress_text(slot)), sentence(slot)) == ("Waiting", waiting)
    busy = note(catalogue.NOTE_TRYING_AGAIN, problem=note(catalogue.SERVICE_BUSY), seconds=2)
    for state in (State.SUBMITTING, State.RUNNING):
        retrying = job(state=state, note_message=busy, progress=30)
        assert (said(progress_text(retrying)), sentence(retrying)) == ("Waiting 2 s", busy)
        assert "Trying again in 2 s." in said(sentence(retrying))
    download = job(state=State.DOWNLOADING, note_message=note(catalogue.NOTE_DOWNLOADING, percent=40))
    assert sentence(download) is None
    assert sentence(job(state=State.FAILED, note_message=note(catalogue.NOTE_STOPPED_WAITING))) is None


def test_status_text(words: Any) -> None:
    status_text, job, State = words.text.status_text, words.job, words.State
    assert said(words.text.triangles_text(job(state=State.IMPORTED, triangles=12345))) == "12,345 triangles"
    assert said(words.text.triangles_text(job(state=State.IMPORTED, triangles=1))) == "1 triangle"
    assert said(status_text(job(state=State.READY))) == "Ready to import"
    assert said(status_text(job(state=State.OUTCOME_UNKNOWN))) == "Unclear: check your dashboard"


def test_an_imported_job_says_where_its_result_is(words: Any) -> None:
    status_text, job, State = words.text.status_text, words.job, words.State
    here = "/work/shots/chair.blend"
    imported = job(state=State.IMPORTED, imported_into=here)
    assert said(status_text(imported, here=True, origin=here)) == "In the scene"
    assert said(status_text(imported, origin=here)) == "Imported into this file, since removed"
    assert said(status_text(imported, origin="/work/shots/table.blend")) == "Imported into chair.blend"
    windows = job(state=State.IMPORTED, imported_into="c:\\art\\shots\\chair.blend")
    assert said(status_text(windows, origin="")) == "Imported into chair.blend"
    unsaved = job(state=State.IMPORTED, imported_into="unsaved:0123abcd")
    assert said(status_text(unsaved, origin="unsaved:4567ef")) == "Imported into a file that was not saved"
    assert said(status_text(job(state=State.IMPORTED), origin=here)) == "Imported in another session"


def test_an_imported_result_is_named_after_the_request(words: Any, kiln_module: Any) -> None:
    object_name, jobs = kiln_module("session.scene_import").object_name, words.jobs
    prompt = "a weathered oak armchair with carved lion-paw legs and a red velvet seat"

    def named(**request: Any) -> str:
        return object_name(jobs.Job(id="j1", request=jobs.JobRequest(**request), task_id="task_77"))

    assert named(kind="text", prompt="  a red\n chair ") == "a red chair"
    assert named(kind="text", prompt=prompt) == "a weathered oak armchair with carved…"
    assert len(named(kind="text", prompt="x" * 300)) <= 40
    assert named(kind="image", image_path="/art/concepts/old chair.png") == "old chair"
    assert named(kind="image", image_path="C:\\art\\concepts\\stool.webp") == "stool"
    assert named(kind="image", image_url="https://example.com/c/lamp.jpg?size=2") == "lamp"
    assert (
        named(kind="image", image_path="/tmp/kiln-render.png", blender_image="Render Result")
        == "Render Result"
    )
    assert named(kind="task") == "Kiln job task_77"


def test_filters(words: Any) -> None:
    shown_by_filter, State = words.text.shown_by_filter, words.State
    assert shown_by_filter(State.RUNNING, "ACTIVE")
    assert shown_by_filter(State.READY, "DONE") and shown_by_filter(State.IMPORTED, "DONE")
    assert all(shown_by_filter(s, "FAILED") for s in (State.FAILED, State.TIMED_OUT, State.CANCELLED))
    assert not shown_by_filter(State.IMPORTED, "FAILED")
    assert all(shown_by_filter(s, "ALL") for s in State)


def test_key_hint(words: Any) -> None:
    key_hint = words.text.key_hint
    assert key_hint("") == ""
    assert key_hint("tsk_live_AbCdEf0123456789") == ""
    assert key_hint(" tsk_live_AbCdEf0123456789 ") == ""
    assert "does not look like" in key_hint("tsk_test_AbCdEf0123456789")
    assert "does not look like" in key_hint("Bearer tsk_live_AbCdEf0123456789")
    assert "does not look like" in key_hint("tsk_live_ab")


def test_sizes(words: Any) -> None:
    human_size = words.text.human_size
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

    def ask(base_url: str, api_key: str, service: str) -> Message:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return message(catalogue.CONNECTION_OK, host=base_url)

    check = ConnectionCheck(ask)
    assert check.state is CheckState.IDLE
    work = check.begin("https://svc", "k_live_12345678")
    assert work is not None and check.state is CheckState.RUNNING
    assert check.begin("https://svc", "k_live_12345678") is None, "one check at a time"
    threading.Thread(target=work, name="kiln-connection-check").start()
    release.set()
    for _ in range(200):
        if check.state is not CheckState.RUNNING:
            break
        threading.Event().wait(0.01)
    said = "Connected to https://svc: the service answered and accepted your API key."
    assert (check.state, check.message) == (CheckState.OK, said)
    assert check.answer is not None and check.answer.name == "CONNECTION_OK"
    assert threads == ["kiln-connection-check"]


def test_connection_check_failure_and_stale_answers() -> None:
    release = threading.Event()

    def ask(base_url: str, api_key: str, service: str) -> Message:
        release.wait(10)
        raise AuthError(401)

    check = ConnectionCheck(ask)
    stale = check.begin("https://svc", "bad")
    assert stale is not None
    worker = threading.Thread(target=stale)
    worker.start()
    check.reset()
    release.set()
    worker.join(5)
    assert check.state is CheckState.IDLE, "an answer about an old URL or key is dropped"
    release.clear()
    fresh = check.begin("https://svc", "bad")
    assert fresh is not None
    threading.Thread(target=fresh).start()
    release.set()
    for _ in range(200):
        if check.state is not CheckState.RUNNING:
            break
        threading.Event().wait(0.01)
    assert check.state is CheckState.FAILED
    assert "did not accept your API key" in check.message and "401" not in check.message
