"""Hunyuan3D's client against stand-ins of both ``api_server.py`` versions over real HTTP
(``sandbox/standins/hunyuan3d.py``, written from the servers' source), and through the job engine."""

from __future__ import annotations

import base64
import io
import json
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from concepts import CONCEPTS

from api.checks.glb import check_glb
from api.errors import InputError, InvalidMeshError, NetworkError
from api.http.download import Sink
from api.http.models import Task, TaskStatus
from api.jobs import JobEngine, JobRequest, JobState, ServiceConfig
from api.jobs.model import Account
from api.services import Order, make_client
from api.services.hunyuan3d.client import Client
from api.services.hunyuan3d.model_field import _decode
from sandbox.server import Sandbox

CHAIR = str(CONCEPTS / "chair.png")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="hunyuan3d", speed=20.0) as sb:
        yield sb


@pytest.fixture(scope="module")
def older() -> Iterator[Sandbox]:
    with Sandbox(service="hunyuan3d-2.0", speed=20.0) as sb:
        yield sb


def client_of(sandbox: Sandbox) -> Client:
    made = make_client("HUNYUAN3D", sandbox.base_url, "")
    assert isinstance(made, Client)
    return made


def finished(client: Client, task: Task, timeout: float = 30.0) -> Task:
    words = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get_task(task.id)
        words.append(task.raw_status)
        if task.is_final:
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task.id} still {task.raw_status} ({sorted(set(words))})")


def sent_body(sandbox: Sandbox) -> dict[str, object]:
    return list(sandbox.tasks.values())[-1].submit_body


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ whole jobs


def test_an_image_job_on_a_21_server_lands_textured(sandbox: Sandbox, tmp_path: Path) -> None:
    with client_of(sandbox) as client:
        task = client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
        done = finished(client, task)
        assert done.status is TaskStatus.COMPLETED and done.result and done.result.mesh_url
        mesh = client.download(done.result.mesh_url, tmp_path / "out.glb", check=check_glb)
    assert mesh.read_bytes()[:4] == b"glTF"
    body = sent_body(sandbox)
    assert body["texture"] is True and body["remove_background"] is True
    assert base64.b64decode(str(body["image"])) == Path(CHAIR).read_bytes()
    assert [r.path for r in sandbox.requests][:2] == ["/health", "/send"]
    assert not [r for r in sandbox.requests if "authorization" in r.headers], "Hunyuan3D is sent no key"


def test_the_model_in_the_status_answer_keeps_every_guarantee_of_a_download(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """The cap, the check before the rename and the part file's removal hold for the decoded model
    as for any file: one envelope (``api.http.download.stream_to_file``) serves both."""
    with client_of(sandbox) as client:
        task = client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
        url = finished(client, task).result.mesh_url  # type: ignore[union-attr]
        assert url and "/status/" in url
        seen: list[tuple[int, int | None]] = []
        with pytest.raises(InvalidMeshError) as too_large:
            client.download(url, tmp_path / "big.glb", max_bytes=1000, progress=lambda *a: seen.append(a))
        assert too_large.value.user_message and seen[0] == (0, None) and all(d <= 1000 for d, _ in seen)

        def refuse(part: Path) -> None:
            assert part.name == "refused.glb.part" and part.read_bytes()[:4] == b"glTF"
            raise InvalidMeshError(problem="refused by the check")

        with pytest.raises(InvalidMeshError):
            client.download(url, tmp_path / "refused.glb", check=refuse)
        whole = client.download(url, tmp_path / "whole.glb", check=check_glb)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["whole.glb"], "nothing half-written is left"
    assert whole.read_bytes()[:4] == b"glTF"


def test_an_image_job_on_a_20_server_lands_and_a_mesh_is_retextured(older: Sandbox, tmp_path: Path) -> None:
    glb = tmp_path / "object.glb"
    with client_of(older) as client:
        task = client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
        first = client.download(finished(client, task).result.mesh_url, glb, check=check_glb)  # type: ignore[union-attr]
        order = Order(kind="retexture", model_path=str(first), image_path=CHAIR)
        again = finished(client, client.submit(order, idempotency_key=uuid.uuid4().hex))
        textured = client.download(again.result.mesh_url, tmp_path / "textured.glb", check=check_glb)  # type: ignore[union-attr]
    body = sent_body(older)
    assert body["texture"] is True and base64.b64decode(str(body["mesh"])) == first.read_bytes()
    assert textured.read_bytes() == first.read_bytes(), "the 2.0 stand-in hands the sent mesh back"
    assert not [r for r in older.requests if "authorization" in r.headers]


def test_what_a_21_server_cannot_finish_is_refused_before_anything_is_sent(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    glb = tmp_path / "object.glb"
    glb.write_bytes(b"glTF" + b"\0" * 60)
    start = len(sandbox.requests)
    with client_of(sandbox) as client:
        with pytest.raises(InputError) as untextured:
            client.submit(
                Order(kind="image", image_path=CHAIR, options={"texture": False}), idempotency_key="a"
            )
        with pytest.raises(InputError) as retexture:
            client.submit(Order(kind="retexture", model_path=str(glb), image_path=CHAIR), idempotency_key="b")
    assert untextured.value.message.name == "HUNYUAN3D_TEXTURE_NEEDED"
    assert retexture.value.message.name == "HUNYUAN3D_NO_RETEXTURE"
    assert "/send" not in [r.path for r in sandbox.requests[start:]]


def test_text_and_an_odd_face_count_are_refused_with_nothing_sent(sandbox: Sandbox) -> None:
    start = len(sandbox.requests)
    with client_of(sandbox) as client:
        with pytest.raises(InputError) as text:
            client.submit(Order(kind="text", prompt="a chair"), idempotency_key="c")
        with pytest.raises(InputError) as faces:
            client.submit(Order(kind="image", image_path=CHAIR, options={"polygons": 5}), idempotency_key="d")
    assert text.value.message.name == "SERVICE_TAKES_NO_TEXT"
    assert faces.value.message.name == "HUNYUAN3D_POLYGONS_RANGE"
    assert "/send" not in [r.path for r in sandbox.requests[start:]]


def test_a_server_that_is_off_is_named_by_its_address() -> None:
    port = closed_port()
    with make_client("HUNYUAN3D", f"http://127.0.0.1:{port}", "") as client:
        with pytest.raises(NetworkError) as down:
            client.check_connection()
        with pytest.raises(NetworkError) as submit:
            client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
    assert f"127.0.0.1:{port}" in down.value.user_message and f"127.0.0.1:{port}" in submit.value.user_message


def test_the_model_is_decoded_from_the_status_answer_across_any_chunking() -> None:
    model = bytes(range(256)) * 40
    answer = json.dumps({"status": "completed", "model_base64": base64.b64encode(model).decode()}).encode()
    for size in (1, 7, 100, len(answer)):
        out = io.BytesIO()
        chunks = [answer[i : i + size] for i in range(0, len(answer), size)]
        _decode(chunks, "model_base64", Sink(out, "http://127.0.0.1:8081/status/x", 1 << 20, None))
        assert out.getvalue() == model
    with pytest.raises(NetworkError):
        _decode([answer[:-40]], "model_base64", Sink(io.BytesIO(), "http://h/s", 1 << 20, None))
    other_first = {"status": "completed", "initial_model_base64": base64.b64encode(b"x" * 200_000).decode()}
    other_first["model_base64"] = base64.b64encode(model).decode()
    out = io.BytesIO()
    text = json.dumps(other_first).encode()
    chunks = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    _decode(chunks, "model_base64", Sink(out, "http://h/s", 1 << 20, None))
    assert out.getvalue() == model, "the field is found in any order"


# ------------------------------------------------------------------ through the job engine


def engine_config(base_url: str, **overrides: object) -> ServiceConfig:
    values: dict[str, object] = {"poll_interval": 0.1, "timeout_seconds": 60.0, **overrides}
    return ServiceConfig("", "", accounts=(Account("HUNYUAN3D", base_url, ""),), **values)  # type: ignore[arg-type]


def test_a_job_stuck_in_processing_ends_at_kilns_deadline_with_a_sentence(tmp_path: Path) -> None:
    with Sandbox(service="hunyuan3d", speed=20.0) as sandbox:
        engine = JobEngine(tmp_path / "state")
        engine.start(engine_config(sandbox.base_url, timeout_seconds=2.0))
        try:
            job = engine.submit(JobRequest(kind="image", image_path=CHAIR).to_service("HUNYUAN3D"))
            while not engine.get(job.id).task_id:
                engine.wait([job.id], timeout=0.05)
            sandbox.fail_now(next(iter(sandbox.tasks)))  # its worker thread dies: "processing" for ever
            started = time.monotonic()
            assert engine.wait([job.id], timeout=30)
            ended = engine.get(job.id)
        finally:
            engine.shutdown()
        assert ended.state is JobState.TIMED_OUT and ended.error
        assert time.monotonic() - started < 10
        assert sandbox.submit_attempts == 1


def test_a_job_resumed_after_a_restart_sends_nothing_twice(tmp_path: Path) -> None:
    with Sandbox(service="hunyuan3d", speed=2.0) as sandbox:
        first = JobEngine(tmp_path / "state")
        first.start(engine_config(sandbox.base_url))
        job = first.submit(JobRequest(kind="image", image_path=CHAIR).to_service("HUNYUAN3D"))
        while not first.get(job.id).task_id:
            first.wait([job.id], timeout=0.05)
        first.shutdown()
        second = JobEngine(tmp_path / "state")
        second.start(engine_config(sandbox.base_url))
        try:
            assert second.wait([job.id], timeout=60)
            done = second.get(job.id)
        finally:
            second.shutdown()
        assert done.state is JobState.READY, done.error
        assert Path(done.mesh_path).read_bytes()[:4] == b"glTF"
        assert sandbox.submit_attempts == 1
        assert not [r for r in sandbox.requests if "authorization" in r.headers]
