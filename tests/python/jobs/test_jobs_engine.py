"""The job engine over real HTTP against the sandbox, without Blender."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS

from api.jobs import STORE_FILE, JobEngine, JobRequest, JobState, RetryPolicy, ServiceConfig, job_details

TEXT = JobRequest(kind="text", prompt="a red chair")


def config(sandbox: Any, key: str, **overrides: Any) -> ServiceConfig:
    values = {"poll_interval": 0.2, "max_in_flight": 4, "timeout_seconds": 60.0, **overrides}
    return ServiceConfig(base_url=sandbox.base_url, api_key=key, **values)


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[Any]:
    engines: list[JobEngine] = []

    def make(cfg: ServiceConfig, state_dir: Path = tmp_path / "state") -> JobEngine:
        engine = JobEngine(state_dir)
        engine.start(cfg)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.shutdown()
    assert not [t for t in threading.enumerate() if t.name.startswith("kiln-worker")]


def on_disk(state_dir: Path) -> list[dict[str, Any]]:
    """The records in the store file, read by SQLite directly, oldest first."""
    with sqlite3.connect(state_dir / STORE_FILE) as db:
        records = [json.loads(data) for (data,) in db.execute("SELECT data FROM jobs")]
    return sorted(records, key=lambda r: r["created_at"])


def test_text_job_runs_to_a_checked_glb_in_the_cache(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT, origin="test")
    assert engine.wait([job.id], timeout=60)
    done = engine.get(job.id)
    assert done.state is JobState.READY, done.error
    assert Path(done.mesh_path) == engine.cache_dir / f"{job.id}.glb"
    assert Path(done.mesh_path).read_bytes()[:4] == b"glTF"
    assert Path(done.preview_path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert done.triangles and done.progress == 100.0
    assert on_disk(engine.state_dir)[0]["task_id"] == done.task_id
    states = [event.state for event in engine.drain_events() if event.job_id == job.id]
    assert states[0] is JobState.SUBMITTING and states[-1] is JobState.READY
    assert engine.drain_events() == []


def test_image_job_uploads_the_file(sandbox: Any, sandbox_key: str, make_engine: Any) -> None:
    engine = make_engine(config(sandbox, sandbox_key))
    request = JobRequest(kind="image", image_path=str(CONCEPTS / "chair.png"), resolution=1024)
    job = engine.submit(request)
    assert engine.wait([job.id], timeout=60)
    done = engine.get(job.id)
    assert done.state is JobState.READY, done.error
    assert done.resolution == 1024


def test_a_restarted_engine_resumes_polling_without_submitting_again(
    sandbox_factory: Any, sandbox_key: str, make_engine: Any, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(speed=5.0)
    first = make_engine(config(sandbox, sandbox_key))
    job = first.submit(TEXT)
    while not (first.get(job.id).task_id):
        first.wait([job.id], timeout=0.05)
    first.shutdown()
    assert on_disk(first.state_dir)[0]["task_id"]

    second = make_engine(config(sandbox, sandbox_key))
    assert second.wait([job.id], timeout=60)
    assert second.get(job.id).state is JobState.READY
    assert sandbox.submit_count == 1


def test_a_submit_cut_off_by_a_crash_is_surfaced_not_resent(
    sandbox: Any, sandbox_key: str, make_engine: Any, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    crashed = {
        "id": "abc",
        "request": {"kind": "text", "prompt": "a lamp"},
        "state": "submitting",
        "submit_sent": True,
    }
    waiting = {
        "id": "def",
        "request": {"kind": "text", "prompt": "a rock"},
        "state": "submitting",
        "submit_sent": False,
    }
    (state / "jobs.json").write_text(json.dumps({"format": 1, "jobs": [crashed, waiting]}))
    engine = make_engine(config(sandbox, sandbox_key), state)
    assert engine.wait(["abc", "def"], timeout=60)
    assert engine.get("abc").state is JobState.OUTCOME_UNKNOWN
    assert "cannot tell whether the service received it" in engine.get("abc").error
    assert engine.get("def").state is JobState.READY
    assert sandbox.submit_attempts == 1


def test_a_failed_send_is_outcome_unknown_and_sent_once(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    sandbox.set_faults("500=1,scope=submit")
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    assert engine.get(job.id).state is JobState.OUTCOME_UNKNOWN
    assert sandbox.submit_attempts == 1


def test_a_submit_whose_answer_is_lost_is_never_resent(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    sandbox.set_faults("lost=1,scope=submit")
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    unknown = engine.get(job.id)
    assert unknown.state is JobState.OUTCOME_UNKNOWN and unknown.error
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 1


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ({"faults": "fail=1"}, "could not make a mesh from this prompt"),
        ({"faults": "corrupt=1"}, "mesh"),
        ({"credits": 0}, "credit"),
    ],
)
def test_failures_keep_the_job_with_a_sentence(
    sandbox_factory: Any, sandbox_key: str, make_engine: Any, setup: dict[str, Any], expected: str
) -> None:
    sandbox = sandbox_factory(**setup)
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    failed = engine.get(job.id)
    assert failed.state is JobState.FAILED
    assert expected in failed.error.lower()
    assert "Traceback" not in failed.error


def test_a_rejected_key_fails_the_job(sandbox: Any, make_engine: Any) -> None:
    engine = make_engine(config(sandbox, "sbx_live_nottherightkey0000"))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    assert engine.get(job.id).state is JobState.FAILED
    assert "key" in engine.get(job.id).error.lower()


def test_a_dead_service_fails_the_job(make_engine: Any, sandbox_key: str) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    engine = make_engine(
        ServiceConfig(base_url=f"http://127.0.0.1:{port}", api_key=sandbox_key, poll_interval=0.2)
    )
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=120)
    assert engine.get(job.id).state is JobState.FAILED
    assert engine.get(job.id).error


def test_a_forgotten_task_fails_with_a_sentence(
    sandbox_factory: Any, sandbox_key: str, make_engine: Any
) -> None:
    sandbox = sandbox_factory(speed=0.5)
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    while not engine.get(job.id).task_id:
        engine.wait([job.id], timeout=0.05)
    sandbox.forget_tasks()
    assert engine.wait([job.id], timeout=60)
    assert "no longer knows" in engine.get(job.id).error


def test_cancel_stops_tracking(sandbox_factory: Any, sandbox_key: str, make_engine: Any) -> None:
    sandbox = sandbox_factory(speed=0.5)
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    engine.cancel(job.id)
    assert engine.wait([job.id], timeout=5)
    assert engine.get(job.id).state is JobState.CANCELLED
    assert not engine.has_active()


def test_time_limit_keeps_the_task_and_resume_finishes_it(
    sandbox_factory: Any, sandbox_key: str, make_engine: Any
) -> None:
    sandbox = sandbox_factory(speed=2.0)
    engine = make_engine(config(sandbox, sandbox_key, timeout_seconds=0.01))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    timed_out = engine.get(job.id)
    assert timed_out.state is JobState.TIMED_OUT and timed_out.task_id
    engine.configure(config(sandbox, sandbox_key, timeout_seconds=60.0))
    engine.resume(job.id)
    assert engine.wait([job.id], timeout=60)
    assert engine.get(job.id).state is JobState.READY
    assert sandbox.submit_count == 1


def test_jobs_in_flight_are_bounded(sandbox_factory: Any, sandbox_key: str, make_engine: Any) -> None:
    sandbox = sandbox_factory(speed=10.0)
    engine = make_engine(config(sandbox, sandbox_key, max_in_flight=2))
    jobs = [engine.submit(JobRequest(kind="text", prompt=f"a rock {i}")) for i in range(5)]
    peak = 0
    while engine.has_active():
        running = [j for j in engine.jobs() if j.state in (JobState.QUEUED, JobState.RUNNING)]
        peak = max(peak, len(running))
        engine.wait([j.id for j in jobs], timeout=0.02)
    assert peak <= 2
    assert all(j.state is JobState.READY for j in engine.jobs())
    assert sandbox.submit_count == 5


def test_nothing_is_sent_while_online_access_is_off(sandbox: Any, sandbox_key: str, make_engine: Any) -> None:
    offline = replace(config(sandbox, sandbox_key), online=False)
    engine = make_engine(offline)
    job = engine.submit(TEXT)
    assert not engine.wait([job.id], timeout=1.5)
    assert engine.get(job.id).note == "Waiting: Blender's online access is off"
    assert sandbox.requests == []
    engine.configure(replace(offline, online=True))
    assert engine.wait([job.id], timeout=60)
    assert engine.get(job.id).state is JobState.READY


def test_shutdown_mid_download_keeps_the_job_for_the_next_start(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    sandbox.set_faults("slow=20000,scope=files")
    first = make_engine(config(sandbox, sandbox_key))
    job = first.submit(TEXT)
    while first.get(job.id).state is not JobState.DOWNLOADING:
        first.wait([job.id], timeout=0.05)
    first.wait([job.id], timeout=0.3)
    first.shutdown()
    saved = on_disk(first.state_dir)[0]
    assert saved["state"] == "downloading" and not saved["error"]

    sandbox.set_faults("")
    second = make_engine(config(sandbox, sandbox_key))
    assert second.wait([job.id], timeout=60)
    assert second.get(job.id).state is JobState.READY
    assert sandbox.submit_count == 1


def test_a_download_is_tried_five_times_in_all_not_five_times_five(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    """The client makes one attempt per call; the engine's policy is the only one that retries."""
    engine = make_engine(config(sandbox, sandbox_key, poll_interval=0.01))
    sandbox.set_faults("503=1,scope=files")
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=120)
    failed = engine.get(job.id)
    assert failed.state is JobState.FAILED and "could not download the finished mesh" in failed.error
    assert failed.error_message is not None and "503" in failed.error_message.details
    meshes = [r for r in sandbox.requests if r.method == "GET" and r.path.endswith(".glb")]
    assert len(meshes) == 5


def test_a_refused_send_goes_again_with_the_same_key_as_often_as_the_engines_policy_says(
    sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    """429 made no task: the engine sends again with the same Idempotency-Key, then gives up."""
    sandbox.set_faults("429=1,retry_after=0,scope=submit")
    engine = JobEngine(tmp_path / "state", policy=RetryPolicy(submit_attempts=3, base_delay=0.01))
    engine.start(config(sandbox, sandbox_key))
    try:
        job = engine.submit(TEXT)
        assert engine.wait([job.id], timeout=60)
        failed = engine.get(job.id)
    finally:
        engine.shutdown()
    assert failed.state is JobState.FAILED and failed.error
    sends = [r for r in sandbox.requests if r.method == "POST"]
    assert len(sends) == 3 and sandbox.submit_count == 0
    assert {r.headers["idempotency-key"] for r in sends} == {failed.idempotency_key}


def test_a_task_followed_by_its_id_is_its_own_kind_and_retry_polls_it_again(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    first = make_engine(config(sandbox, sandbox_key))
    sent = first.submit(TEXT)
    assert first.wait([sent.id], timeout=60)
    followed = first.resume_task(first.get(sent.id).task_id)
    assert followed.request.kind == "task" and followed.request.prompt == ""
    assert first.wait([followed.id], timeout=60)
    assert first.get(followed.id).state is JobState.READY
    first.retry(followed.id)
    assert first.wait([followed.id], timeout=60)
    again = first.get(followed.id)
    assert again.state is JobState.READY and not again.error
    assert sandbox.submit_count == 1, "a followed task is never sent: its Retry polls it again"


def test_a_jobs_time_limit_holds_while_its_download_is_in_flight(
    sandbox: Any, sandbox_key: str, make_engine: Any
) -> None:
    """The mesh trickles in far slower than the time limit allows: the request is cut, the task id kept."""
    sandbox.set_faults("slow=20000,scope=files")
    engine = make_engine(config(sandbox, sandbox_key, timeout_seconds=2.0))
    job = engine.submit(TEXT)
    assert engine.wait([job.id], timeout=60)
    timed_out = engine.get(job.id)
    assert timed_out.state is JobState.TIMED_OUT and timed_out.task_id
    assert "Resume" in timed_out.error
    assert not list(engine.cache_dir.glob("*.part")), "the cut download leaves nothing behind"


def test_an_answer_nobody_foresaw_is_a_sentence_and_frees_the_slot(
    sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    """The client trips over the first submit's answer (deeply nested JSON makes a RecursionError):
    that job is "outcome unknown" with a sentence, and the next job still gets the one slot."""
    from api.services.interface.client import Client

    class TrippingClient(Client):
        tripped = False

        def submit_text(self, *args: Any, **kwargs: Any) -> Any:
            task = super().submit_text(*args, **kwargs)  # really sent: the service made a task
            if not TrippingClient.tripped:
                TrippingClient.tripped = True
                raise RecursionError("maximum recursion depth exceeded while decoding a JSON object")
            return task

    def factory(cfg: ServiceConfig, stop: threading.Event) -> Client:
        return TrippingClient(cfg.base_url, cfg.api_key, cancel_event=stop)

    engine = JobEngine(tmp_path / "state", client_factory=factory)
    engine.start(config(sandbox, sandbox_key, max_in_flight=1))
    try:
        first = engine.submit(TEXT)
        assert engine.wait([first.id], timeout=60)
        second = engine.submit(JobRequest(kind="text", prompt="a blue mug"))
        assert engine.wait([second.id], timeout=60)
        unknown = engine.get(first.id)
        assert unknown.state is JobState.OUTCOME_UNKNOWN and "RecursionError" in job_details(unknown)
        assert "Traceback" not in unknown.error and "dashboard" in unknown.error
        assert engine.get(second.id).state is JobState.READY
        assert sandbox.submit_count == 2
    finally:
        engine.shutdown()


def test_a_stopped_job_whose_task_runs_on_comes_back_with_resume_and_no_new_task(
    sandbox_factory: Any, sandbox_key: str, make_engine: Any
) -> None:
    """Stop Waiting leaves the task on the service: Resume asks about it again and brings its mesh,
    with no second submit (the interface service has no cancel, so the stop is only Kiln's)."""
    sandbox = sandbox_factory(speed=2.0)
    engine = make_engine(config(sandbox, sandbox_key))
    job = engine.submit(TEXT)
    start = time.monotonic()
    while not engine.get(job.id).task_id and time.monotonic() - start < 30:
        time.sleep(0.02)
    assert engine.cancel(job.id) is False  # no cancel documented: Kiln only stops waiting
    stopped = engine.get(job.id)
    assert stopped.state is JobState.CANCELLED and stopped.task_id
    engine.resume(job.id)
    assert engine.wait([job.id], timeout=60)
    assert engine.get(job.id).state is JobState.READY
    assert sandbox.submit_count == 1
