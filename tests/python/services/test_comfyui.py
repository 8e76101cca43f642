"""ComfyUI's client against its stand-in over real HTTP (``sandbox/standins/comfyui.py``, written from
ComfyUI's ``server.py`` and ``execution.py``), and through the job engine."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from concepts import CONCEPTS

from api.checks.glb import check_glb
from api.errors import InputError, NetworkError
from api.features.credits import estimate
from api.http.models import Task, TaskStatus
from api.jobs import JobEngine, JobRequest, JobState, ServiceConfig
from api.jobs.model import Account
from api.services import Order, info, make_client
from api.services.comfyui import TIER_HUNYUAN3D_21, TIER_TRELLIS_2
from api.services.comfyui.client import Client
from api.services.comfyui.workflows import missing, parse, shipped
from api.words import english_message
from sandbox.server import Sandbox

CHAIR = str(CONCEPTS / "chair.png")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="comfyui", speed=20.0) as sb:
        yield sb


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[Client]:
    made = make_client("COMFYUI", sandbox.base_url, "")
    assert isinstance(made, Client)
    with made:
        yield made


def finished(client: Client, task: Task, timeout: float = 30.0) -> Task:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get_task(task.id, handle=task.handle)
        if task.is_final:
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task.id} still {task.raw_status}")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def paths(sandbox: Sandbox, start: int = 0) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in sandbox.requests[start:]]


# ------------------------------------------------------------------ whole jobs


@pytest.mark.parametrize("tier", [TIER_HUNYUAN3D_21, TIER_TRELLIS_2])
def test_an_image_job_is_checked_uploaded_queued_followed_and_its_glb_fetched(
    sandbox: Sandbox, client: Client, tmp_path: Path, tier: str
) -> None:
    start = len(sandbox.requests)
    key = uuid.uuid4().hex
    task = client.submit(Order(kind="image", image_path=CHAIR, tier=tier), idempotency_key=key)
    assert task.id == str(uuid.UUID(key)), "Kiln's own prompt id: known before the answer"
    done = finished(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result and done.result.mesh_url
    assert "/view?filename=" in done.result.mesh_url
    mesh = client.download(done.result.mesh_url, tmp_path / "out.glb", check=check_glb)
    assert mesh.read_bytes()[:4] == b"glTF"
    sent = paths(sandbox, start)
    assert sent[:3] == [("GET", "/object_info"), ("POST", "/upload/image"), ("POST", "/prompt")]
    assert ("GET", f"/history/{task.id}") in sent and sent[-1][1] == "/view"
    assert not [r for r in sandbox.requests if "authorization" in r.headers], "ComfyUI is sent no key"
    body = next(t for t in sandbox.tasks.values() if t.submit_body.get("prompt_id") == task.id).submit_body
    graph = body["prompt"]
    loads = [node for node in graph.values() if node["class_type"] == "LoadImage"]
    assert loads[0]["inputs"]["image"] == f"kiln_{task.id}.png"


def test_a_text_job_is_refused_in_a_sentence_with_nothing_sent(sandbox: Sandbox, client: Client) -> None:
    start = len(sandbox.requests)
    with pytest.raises(InputError) as refused:
        client.submit(Order(kind="text", prompt="a red chair"), idempotency_key=uuid.uuid4().hex)
    assert refused.value.message.name == "SERVICE_TAKES_NO_TEXT"
    assert "ComfyUI" in refused.value.user_message
    assert sandbox.requests[start:] == []


def test_a_server_that_is_off_is_named_by_its_address() -> None:
    port = closed_port()
    address = f"http://127.0.0.1:{port}"
    with make_client("COMFYUI", address, "") as client, pytest.raises(NetworkError) as down:
        client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
    assert f"127.0.0.1:{port}" in down.value.user_message
    assert not down.value.sent, "the node list is asked first: nothing was queued"


def test_missing_nodes_and_models_are_named_and_nothing_is_queued(tmp_path: Path) -> None:
    with Sandbox(service="comfyui", speed=20.0) as bare:
        taken = {"nodes": ["Hunyuan3Dv2Conditioning"], "models": ["hunyuan_3d_v2.1.safetensors"]}
        requests.post(bare.base_url + "/sandbox/remove", json=taken, timeout=5).raise_for_status()
        start = len(bare.requests)
        with make_client("COMFYUI", bare.base_url, "") as client, pytest.raises(InputError) as refused:
            client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
        said = refused.value.user_message
        assert "node Hunyuan3Dv2Conditioning" in said and "model hunyuan_3d_v2.1.safetensors" in said
        assert bare.base_url.split("//")[1] in said, "the server is named by its address"
        assert paths(bare, start) == [("GET", "/object_info")]
        assert bare.submit_attempts == 0


def test_cancel_deletes_the_queued_prompt_and_interrupts_the_running_one(sandbox: Sandbox) -> None:
    with Sandbox(service="comfyui", speed=0.2) as slow, make_client("COMFYUI", slow.base_url, "") as client:
        task = client.submit(Order(kind="image", image_path=CHAIR), idempotency_key=uuid.uuid4().hex)
        while client.get_task(task.id).status is not TaskStatus.RUNNING:
            time.sleep(0.05)
        start = len(slow.requests)
        client.cancel_task(task.id)
        assert paths(slow, start) == [("POST", "/queue"), ("POST", "/interrupt")]
        stopped = client.get_task(task.id)
        assert stopped.status is TaskStatus.FAILED and "interrupted" in (stopped.error or "")


def test_plain_http_to_the_studios_machine_is_allowed_only_without_a_key() -> None:
    with make_client("COMFYUI", "http://192.168.1.20:8188", "") as client:
        assert client.base_url == "http://192.168.1.20:8188"
    with pytest.raises(InputError) as refused:
        make_client("COMFYUI", "http://192.168.1.20:8188", "token-for-a-proxy")
    assert refused.value.message.name == "ADDRESS_NOT_HTTPS", "a token goes only over HTTPS or loopback"


def test_a_job_costs_no_credits() -> None:
    request = JobRequest(kind="image", image_path=CHAIR).to_service("COMFYUI")
    assert estimate([request]).known == 0 and estimate([request]).unpriced == 0
    assert english_message(estimate([request]).message) == "no credits (your own server)"
    assert info("COMFYUI").local and not info("COMFYUI").needs_key


# ------------------------------------------------------------------ the workflows


def test_the_shipped_workflows_name_their_image_and_save_nodes() -> None:
    for tier in (TIER_HUNYUAN3D_21, TIER_TRELLIS_2):
        workflow = shipped(tier)
        assert workflow.graph[workflow.image_node]["class_type"] == "LoadImage"
        assert workflow.graph[workflow.save_node]["class_type"] == "SaveGLB"


def test_a_studio_workflow_without_one_image_node_is_refused_in_a_sentence() -> None:
    two = '{"1": {"class_type": "LoadImage", "inputs": {}}, "2": {"class_type": "LoadImage", "inputs": {}},'
    two += ' "3": {"class_type": "SaveGLB", "inputs": {}}}'
    for text in ("not json", "[]", two, '{"1": {"inputs": {}}}'):
        with pytest.raises(InputError) as refused:
            parse("studio.json", text)
        assert refused.value.message.name == "COMFYUI_WORKFLOW_UNUSABLE"


def test_model_files_are_read_from_both_shapes_of_a_combo() -> None:
    workflow = shipped(TIER_HUNYUAN3D_21)
    old = {"ImageOnlyCheckpointLoader": {"input": {"required": {"ckpt_name": [["other.safetensors"], {}]}}}}
    new = {"ImageOnlyCheckpointLoader": {"input": {"required": {"ckpt_name": ["COMBO", {"options": []}]}}}}
    for info_ in (old, new):
        lacking = missing(workflow, info_)
        assert "model hunyuan_3d_v2.1.safetensors" in lacking and "node KSampler" in lacking


# ------------------------------------------------------------------ through the job engine


def engine_config(base_url: str, **overrides: object) -> ServiceConfig:
    values: dict[str, object] = {"poll_interval": 0.1, "timeout_seconds": 60.0, **overrides}
    return ServiceConfig("", "", accounts=(Account("COMFYUI", base_url, ""),), **values)  # type: ignore[arg-type]


def test_a_job_resumed_after_a_restart_sends_nothing_twice(tmp_path: Path) -> None:
    with Sandbox(service="comfyui", speed=2.0) as sandbox:
        first = JobEngine(tmp_path / "state")
        first.start(engine_config(sandbox.base_url))
        job = first.submit(JobRequest(kind="image", image_path=CHAIR).to_service("COMFYUI"))
        while not first.get(job.id).task_id:
            first.wait([job.id], timeout=0.05)
        first.shutdown()
        second = JobEngine(tmp_path / "state")
        second.start(engine_config(sandbox.base_url))
        try:
            assert second.wait([job.id], timeout=60)
            done = second.get(job.id)
            assert done.state is JobState.READY, done.error
            assert Path(done.mesh_path).read_bytes()[:4] == b"glTF"
        finally:
            second.shutdown()
        assert sandbox.submit_attempts == 1
        assert [r.path for r in sandbox.requests].count("/prompt") == 1
        assert not [r for r in sandbox.requests if "authorization" in r.headers]
        assert not [t for t in threading.enumerate() if t.name.startswith("kiln-worker")]
