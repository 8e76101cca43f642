"""End to end through the real engine (public API only) against the hostile service.

Each test checks, via ``EngineRun.check``: nothing touched outside the state folder, the key
absent from every request to another origin and from every stored or shown text, a sentence
for the artist, the job kept (with its task id where one was usable), and the next job unaffected
(``max_in_flight=1``, so a leaked in-flight slot would stall it).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hostile_glb import good_glb, triangle, with_accessor
from hostile_kit import KEY, TEXT, completed, raw_glb, task
from hostile_server import HostileServer, dripping, json_answer

from api.jobs import JobRequest, JobState

SUBMIT = "/v1/3d/text-to-3d"
OUTCOME_UNKNOWN = JobState("outcome unknown")


def finished_task(service: HostileServer, task_id: str = "task_1", **extra: Any) -> None:
    """Submit answers ``task_id``; its poll says completed with ``extra`` (by default a good GLB)."""
    mesh_url = extra.pop("mesh_url", f"{service.url}/files/m.glb")
    service.routes[SUBMIT] = json_answer(200, task(task_id))
    service.routes[f"/v1/3d/tasks/{task_id}"] = json_answer(200, completed(task_id, mesh_url, **extra))
    service.routes.setdefault("/files/m.glb", raw_glb(good_glb()))


def test_a_mesh_url_read_two_ways_never_carries_the_key(
    engine_run: Any, service: HostileServer, other: HostileServer
) -> None:
    run = engine_run()
    other.routes["/m.glb"] = raw_glb(good_glb())
    finished_task(service, mesh_url=f"http://127.0.0.1:{other.port}\\@127.0.0.1:{service.port}/files/m.glb")
    run.start()
    job = run.run()
    assert job.state is JobState.FAILED and job.task_id == "task_1"
    assert "will not open" in run.check(job, other=other)
    assert other.seen == []
    run.next_job_works()


def test_a_download_redirected_to_another_origin_is_fetched_without_the_key(
    engine_run: Any, service: HostileServer, other: HostileServer
) -> None:
    run = engine_run()
    other.routes["/m.glb"] = raw_glb(good_glb())
    service.routes["/files/m.glb"] = json_answer(302, b"", Location=f"{other.url}/m.glb")
    finished_task(service, result={"preview_image_url": f"http://127.0.0.1:{other.port}\\@x/p.png"})
    run.start()
    job = run.run()
    assert job.state is JobState.READY, job.error
    run.check(job, other=other)
    assert [r.target for r in other.seen] == ["/m.glb"]  # the odd preview URL was never opened
    assert not job.preview_path


def test_a_failed_task_echoing_the_key_leaves_no_key_anywhere(
    engine_run: Any, service: HostileServer
) -> None:
    run = engine_run()
    service.routes[SUBMIT] = json_answer(200, task("task_1"))
    service.routes["/v1/3d/tasks/task_1"] = json_answer(
        200, task("task_1", "failed", error={"message": f"bad header Authorization: Bearer {KEY}"})
    )
    run.start()
    job = run.run()
    assert job.state is JobState.FAILED and job.task_id == "task_1"
    assert "***" in run.check(job)
    run.next_job_works()


def test_a_poll_dripping_forever_ends_at_the_time_limit_with_the_task_kept(
    engine_run: Any, service: HostileServer
) -> None:
    run = engine_run(deadline=1.0)
    service.routes[SUBMIT] = json_answer(200, task("task_1"))
    service.routes["/v1/3d/tasks/task_1"] = dripping(200, json.dumps(task("task_1", "running")).encode(), 0.1)
    run.start(timeout_seconds=3.0)
    job = run.run()
    assert job.state is JobState.TIMED_OUT and job.task_id == "task_1"
    assert "task_1" in run.check(job)
    run.next_job_works()


def test_the_time_limit_holds_while_a_request_is_in_flight(engine_run: Any, service: HostileServer) -> None:
    run = engine_run(deadline=60.0)
    service.routes[SUBMIT] = json_answer(200, task("task_1"))
    service.routes["/v1/3d/tasks/task_1"] = dripping(200, b" " * 600 + b"{}", 0.1)
    run.start(timeout_seconds=2.0)
    try:
        job = run.engine.submit(TEXT)
        settled = run.engine.wait([job.id], timeout=10.0)
        job = run.engine.get(job.id)
    finally:
        service.close()  # ends the drip, so the worker is free for shutdown either way
    assert settled and job.state is JobState.TIMED_OUT and job.task_id == "task_1"


@pytest.mark.parametrize(
    "answer",
    ["[" * 100_000 + "]" * 100_000, '{"id": "task_1", "progress": NaN}', "x" * 10],
    ids=["deep", "nan", "not json"],
)
def test_an_unreadable_poll_answer_keeps_the_job_and_its_task(
    engine_run: Any, service: HostileServer, answer: str
) -> None:
    run = engine_run()
    service.routes[SUBMIT] = json_answer(200, task("task_1"))
    service.routes["/v1/3d/tasks/task_1"] = json_answer(200, answer, Content_Type="application/json")
    run.start(timeout_seconds=2.0)
    job = run.run()
    assert job.state is JobState.TIMED_OUT and job.task_id == "task_1"
    run.check(job)
    run.next_job_works()


@pytest.mark.parametrize(
    "answer",
    ["[" * 100_000 + "]" * 100_000, '{"id": "task_1", "eta_seconds": 1' + "0" * 5000 + "}", ""],
    ids=["deep", "5000 digits", "empty"],
)
def test_an_unreadable_submit_answer_is_outcome_unknown_and_frees_the_slot(
    engine_run: Any, service: HostileServer, answer: str
) -> None:
    run = engine_run()
    service.routes[SUBMIT] = json_answer(200, answer, Content_Type="application/json")
    run.start()
    job = run.run()
    assert job.state is OUTCOME_UNKNOWN
    run.check(job)
    run.next_job_works()


def test_an_unreadable_submit_answer_keeps_the_task_id_it_named(
    engine_run: Any, service: HostileServer
) -> None:
    run = engine_run()
    service.routes[SUBMIT] = json_answer(200, '{"id": "task_777", "status": "queued", "x": [[[')
    run.start()
    job = run.run()
    assert job.state is OUTCOME_UNKNOWN and job.task_id == "task_777"


def test_cache_files_are_named_by_kiln_not_by_the_service(engine_run: Any, service: HostileServer) -> None:
    run = engine_run()
    finished_task(service, "task_svc_named")
    run.start()
    job = run.run()
    assert job.state is JobState.READY, job.error
    names = [p.name for p in run.state_dir.rglob("*")]
    assert not [n for n in names if "task_svc_named" in n], names


def test_a_submit_answer_dripping_is_outcome_unknown_and_frees_the_slot(
    engine_run: Any, service: HostileServer
) -> None:
    run = engine_run(deadline=1.0)
    service.routes[SUBMIT] = dripping(200, json.dumps(task("task_1")).encode() + b" " * 100, 0.1)
    run.start()
    job = run.run()
    assert job.state is OUTCOME_UNKNOWN
    assert "within 1 s" in run.check(job)
    run.next_job_works()


@pytest.mark.parametrize(
    ("mesh", "words"),
    [
        (with_accessor(bufferView=None, count=2_000_000_000), "2,000,000,000"),
        (triangle(buffers=[{"byteLength": 36, "uri": "/dev/zero"}]), "outside file"),
        (triangle(extensionsUsed=["KHR_texture_basisu"], extensionsRequired=["KHR_texture_basisu"]), "KTX2"),
    ],
    ids=["count bomb", "device file", "ktx2"],
)
def test_a_hostile_mesh_fails_its_job_with_a_sentence(
    engine_run: Any, service: HostileServer, mesh: bytes, words: str
) -> None:
    run = engine_run()
    service.routes["/files/m.glb"] = raw_glb(mesh)
    finished_task(service)
    run.start()
    job = run.run()
    assert job.state is JobState.FAILED and job.task_id == "task_1"
    assert words in run.check(job)
    assert not [p for p in run.state_dir.rglob("*.glb")]  # the refused file is not kept
    service.routes["/files/m.glb"] = raw_glb(good_glb())
    run.next_job_works()


def test_a_prompt_with_control_characters_fails_before_anything_is_sent(
    engine_run: Any, service: HostileServer
) -> None:
    run = engine_run()
    run.start()
    job = run.run(JobRequest(kind="text", prompt="a chair\x00\x1b[2J"))
    assert job.state is JobState.FAILED
    assert "control character" in run.check(job)
    assert service.seen == []
    run.next_job_works()


def test_an_image_url_read_two_ways_fails_before_anything_is_sent(
    engine_run: Any, service: HostileServer, other: HostileServer
) -> None:
    run = engine_run()
    run.start()
    url = f"https://127.0.0.1:{other.port}\\@images.example.com/a.png"
    job = run.run(JobRequest(kind="image", image_url=url, resolution=1024))
    assert job.state is JobState.FAILED
    run.check(job, other=other)
    assert service.seen == [] and other.seen == []
    run.next_job_works()
