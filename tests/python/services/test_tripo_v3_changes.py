"""What changed with Tripo's API v3, against its stand-in: jobs an older Kiln sent on v2, a
documented path that is gone, and re-texturing (an import, then a texture of it).

Tripo shut its v2 API down on 2026-10-31 (``tripo3d`` 1.0.0 METADATA); the SDK asks v3 for every
task id, v2's included (client.py ``get_task``), so Kiln follows a v2-era job by its id on v3.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from api.checks.glb import check_glb
from api.errors import BadRequestError, InputError, NotFoundError, ServiceMovedError
from api.http.models import Task, TaskStatus
from api.jobs import Account, JobEngine, JobState, ServiceConfig
from api.services import Order, make_client
from api.services.tripo import HANDLE_V3
from api.services.tripo.client import Client
from sandbox.server import Sandbox

KEY = "tsk_live_tripochange000"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="tripo", keys=[KEY], speed=50.0, credits=100_000) as sb:
        yield sb


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[Client]:
    made = make_client("TRIPO", sandbox.base_url, KEY)
    assert isinstance(made, Client)
    with made:
        yield made


def finished(client: Client, task: Task, *, timeout: float = 30.0) -> Task:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get_task(task.id, handle=task.handle)
        if task.raw_status not in ("queued", "running"):
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task.id} still {task.raw_status}")


def test_a_job_sent_on_v2_is_followed_on_v3_by_its_id_and_said_when_v3_does_not_know_it(
    sandbox: Sandbox, client: Client
) -> None:
    # A job stored by a Kiln that spoke v2 has no handle: v3 answers for v2 task ids (SDK get_task).
    task = client.submit(Order(kind="text", prompt="an old kettle"), idempotency_key="v2-era")
    assert task.handle == HANDLE_V3
    made, start = sandbox.submit_count, len(sandbox.requests)
    assert finished(client, replace(task, handle="")).status is TaskStatus.COMPLETED
    with pytest.raises(BadRequestError) as caught:
        client.get_task("5f0c1f5e-0000-4000-8000-00000000dead", handle="")
    assert not isinstance(caught.value, NotFoundError)  # the engine would say "the service forgot it"
    assert caught.value.message.name == "TRIPO_OLD_API_JOB_GONE"
    assert "5f0c1f5e-0000-4000-8000-00000000dead" in caught.value.details
    assert "shut down" in caught.value.user_message
    assert sandbox.submit_count == made  # nothing sent again
    assert {r.method for r in sandbox.requests[start:]} == {"GET"}


def test_a_documented_path_that_answers_404_asks_for_a_newer_kiln(sandbox: Sandbox) -> None:
    # Everything under /gone is a plain 404 on the stand-in, as a path Tripo retired would be.
    with make_client("TRIPO", sandbox.base_url + "/gone", KEY) as moved:
        for call in (
            moved.check_connection,
            lambda: moved.submit(Order(kind="text", prompt="a cup"), idempotency_key="g"),
        ):
            with pytest.raises(ServiceMovedError) as caught:
                call()
            assert "Update Kiln" in caught.value.user_message and "Tripo" in caught.value.user_message
            assert "address" not in caught.value.user_message


def test_a_retexture_is_an_upload_and_import_then_a_texture_of_the_import(
    sandbox: Sandbox, client: Client, tmp_path: Path
) -> None:
    made = finished(client, client.submit(Order(kind="text", prompt="a crate"), idempotency_key="rt-0"))
    assert made.result is not None and made.result.mesh_url
    mesh = client.download(made.result.mesh_url, tmp_path / "crate.glb")
    order = Order(kind="retexture", prompt="mossy stone", model_path=str(mesh), options={"pbr": True})
    assert client.stages(order) == 2 and client.stages(Order(kind="text", prompt="x")) == 1
    start = len(sandbox.requests)
    imported = finished(client, client.submit(order, idempotency_key="rt-1"))
    assert [r.path for r in sandbox.requests[start:] if r.method == "POST"] == [
        "/v3/files",
        "/v3/models/import",
    ]
    assert imported.status is TaskStatus.COMPLETED
    second = replace(order, stage=1, previous_task_id=imported.id)
    textured = finished(client, client.submit(second, idempotency_key="rt-2"))
    body = sandbox.tasks[textured.id].submit_body
    assert body == {
        "input": imported.id,
        "model": "v2.5-20250123",
        "texture_prompt": {"text": "mossy stone"},
        "pbr": True,
    }
    assert textured.status is TaskStatus.COMPLETED and textured.result and textured.result.mesh_url
    check_glb(client.download(textured.result.mesh_url, tmp_path / "textured.glb"))


def test_a_mesh_too_large_for_tripos_upload_is_refused_before_anything_is_sent(
    sandbox: Sandbox, client: Client, tmp_path: Path
) -> None:
    big = tmp_path / "big.glb"
    with big.open("wb") as out:
        out.write(b"glTF")
        out.truncate(50 * 1024 * 1024 + 1)
    start = len(sandbox.requests)
    with pytest.raises(InputError) as caught:
        client.submit(Order(kind="retexture", prompt="rust", model_path=str(big)), idempotency_key="big")
    assert caught.value.message.name == "RETEXTURE_TOO_LARGE" and "Tripo" in caught.value.user_message
    assert len(sandbox.requests) == start


# ------------------------------------------------------------------ jobs stored by a Kiln that spoke v2


def test_jobs_an_older_kiln_left_running_on_v2_are_followed_on_v3_and_never_sent_again(
    tmp_path: Path,
) -> None:
    """Two records as a v2 Kiln wrote them (task id, no handle): one v3 knows lands, one it does not
    ends in Tripo's own sentence with its id; nothing is submitted by the engine."""
    with Sandbox(service="tripo", keys=[KEY], speed=50.0, credits=1000) as server:
        with make_client("TRIPO", server.base_url, KEY) as maker:
            known = maker.submit(Order(kind="text", prompt="a teapot"), idempotency_key="old").id
        made = server.submit_count
        state = tmp_path / "state"
        state.mkdir()
        gone = "0b7c2f7e-3c41-4d5a-9b0e-2f1d3c4b5a69"
        records = [
            {
                "id": name,
                "request": {"kind": "text", "prompt": "a teapot", "service": "TRIPO"},
                "state": "running",
                "submit_sent": True,
                "task_id": task_id,
            }
            for name, task_id in (("known", known), ("gone", gone))
        ]
        (state / "jobs.json").write_text(json.dumps({"format": 1, "jobs": records}))
        accounts = (Account("TRIPO", server.base_url, KEY),)
        engine = JobEngine(state)
        engine.start(
            ServiceConfig(
                base_url="http://127.0.0.1:9", api_key="unused", poll_interval=0.1, accounts=accounts
            )
        )
        try:
            assert engine.wait(["known", "gone"], timeout=60)
            assert engine.get("known").state is JobState.READY, engine.get("known").error
            ended = engine.get("gone")
            assert ended.state is JobState.FAILED and ended.task_id == gone
            assert ended.error_message is not None and ended.error_message.name == "TRIPO_OLD_API_JOB_GONE"
            assert gone in ended.error_message.details
        finally:
            engine.shutdown()
        assert server.submit_count == made and server.submit_attempts == made
        assert not [r for r in server.requests if r.path.startswith("/v2/")]
