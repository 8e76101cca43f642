"""fal.ai's client against its stand-in over real HTTP, alone and under the job engine.

The stand-in (``sandbox/standins/fal.py``) is written from the official ``fal-client`` 1.0.3 and
fal's model pages, not from Kiln's client: what it records (paths, headers, the bodies as received)
is what fal's queue would see.
"""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.checks.glb import check_glb
from api.errors import (
    AuthError,
    CreditsError,
    InputError,
    KilnError,
    NetworkError,
    OutcomeUnknownError,
    RateLimitError,
)
from api.http.models import Task, TaskStatus
from api.jobs import JobEngine, JobRequest, JobState, ServiceConfig
from api.jobs.model import Account
from api.services import Order, make_client
from api.services.fal import INFO, MODELS
from api.services.fal.client import Client, _task_from_status, _with_result
from api.words import catalogue as words
from api.words import english_message
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

KEY = "fal_live_faltest000000"
OTHER_KEY = "fal_live_falwrong00000"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="fal", keys=[KEY], speed=50.0, credits=100_000) as sb:
        yield sb


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[Client]:
    made = make_client("FAL", sandbox.base_url, KEY)
    assert isinstance(made, Client)
    with made:
        yield made


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_concept(tmp_path_factory.mktemp("concept"), "chair")


def finished(client: Client, task: Task, *, timeout: float = 30.0) -> Task:
    """Poll until the request leaves the queue and its run (the engine's 2–3 s, shortened)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get_task(task.id, handle=task.handle)
        if task.is_final:
            return task
        time.sleep(0.05)
    raise AssertionError(f"request {task.id} still {task.raw_status}")


def said(error: KilnError) -> str:
    return english_message(error.message)


# ------------------------------------------------------------------ whole jobs


def test_an_image_job_lands_and_the_key_reaches_only_the_queue(
    sandbox: Sandbox, client: Client, image: Path, tmp_path: Path
) -> None:
    start = len(sandbox.requests)
    task = client.submit(Order(kind="image", image_path=str(image)), idempotency_key="image-1")
    assert (task.status, task.handle) == (TaskStatus.QUEUED, "trellis")
    done = finished(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result is not None and done.result.mesh_url
    check_glb(client.download(done.result.mesh_url, tmp_path / "mesh.glb", check=check_glb))

    seen = sandbox.requests[start:]
    queue = [r for r in seen if not r.path.startswith("/files/")]
    files = [r for r in seen if r.path.startswith("/files/")]
    assert queue[0].method == "POST" and queue[0].path == "/fal-ai/trellis"
    assert {r.path for r in queue[1:]} == {
        f"/fal-ai/trellis/requests/{task.id}/status",
        f"/fal-ai/trellis/requests/{task.id}",
    }
    assert all(r.headers.get("authorization") == f"Key {KEY}" for r in queue)
    assert len(files) == 1 and "authorization" not in files[0].headers
    assert sandbox.cdn_base_url and done.result.mesh_url.startswith(sandbox.cdn_base_url)
    # The image went inside the submit as a data URL: no upload host ever saw the key.
    sent = sandbox.tasks[task.id].submit_body["image_url"]
    assert sent.startswith("data:image/png;base64,")
    assert base64.b64decode(sent.split(",", 1)[1]) == image.read_bytes()


@pytest.mark.parametrize("tier", list(MODELS))
def test_each_tier_goes_to_its_models_path_under_its_fields(
    sandbox: Sandbox, client: Client, image: Path, tier: str
) -> None:
    model = MODELS[tier]
    start = len(sandbox.requests)
    task = client.submit(Order(kind="image", image_path=str(image), tier=tier), idempotency_key=tier)
    assert sandbox.requests[start].path == "/" + model.app_id
    body = sandbox.tasks[task.id].submit_body
    assert set(body) == {model.image_field, *dict(model.fixed)}
    assert all(body[name] == value for name, value in model.fixed)
    done = finished(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result is not None and done.result.format == "glb"


def test_an_image_by_its_address_goes_as_that_address(sandbox: Sandbox, client: Client, image: Path) -> None:
    first = finished(client, client.submit(Order(kind="image", image_path=str(image)), idempotency_key="a"))
    url = f"{sandbox.base_url}/files/{first.id}/model.glb"  # a loopback address the stand-in fetches
    start = len(sandbox.requests)
    with pytest.raises(KilnError) as refused:  # a GLB is not an image: fal refuses it (422), named
        client.submit(Order(kind="image", image_url=url), idempotency_key="url-1")
    assert [(r.method, r.path) for r in sandbox.requests[start:]] == [
        ("POST", "/fal-ai/trellis"),
        ("GET", f"/files/{first.id}/model.glb"),  # fal fetched the address it was given
    ]
    assert "fal.ai" in said(refused.value)


def test_a_text_job_is_refused_in_a_sentence_with_nothing_sent(sandbox: Sandbox, client: Client) -> None:
    start = len(sandbox.requests)
    with pytest.raises(InputError) as refused:
        client.submit(Order(kind="text", prompt="a red chair"), idempotency_key="text-1")
    assert refused.value.message.name == "SERVICE_TAKES_NO_TEXT" and "fal.ai" in said(refused.value)
    assert len(sandbox.requests) == start


# ------------------------------------------------------------------ errors, each a sentence naming fal


def test_a_wrong_key_is_a_sentence_naming_fal(sandbox: Sandbox, image: Path) -> None:
    with make_client("FAL", sandbox.base_url, OTHER_KEY) as wrong:
        with pytest.raises(AuthError) as refused:
            wrong.submit(Order(kind="image", image_path=str(image)), idempotency_key="k-1")
        with pytest.raises(AuthError):
            wrong.check_connection()
    assert refused.value.message.name == "FAL_KEY_REJECTED" and "fal.ai" in said(refused.value)


def test_the_connection_check_takes_a_good_key(client: Client) -> None:
    assert "fal.ai" in english_message(client.check_connection())


def test_a_rate_limit_is_a_sentence_naming_fal(sandbox: Sandbox, client: Client) -> None:
    with pytest.raises(RateLimitError) as limited:
        client.submit(
            Order(kind="image", image_url=f"{sandbox.base_url}/fal-ratelimit.png"), idempotency_key="r"
        )
    assert "fal.ai" in said(limited.value)


def test_a_locked_account_says_to_top_up_its_balance(sandbox: Sandbox, client: Client) -> None:
    with pytest.raises(CreditsError) as locked:
        client.submit(
            Order(kind="image", image_url=f"{sandbox.base_url}/fal-locked.png"), idempotency_key="l"
        )
    assert locked.value.message.name == "FAL_BALANCE_EXHAUSTED" and "HTTP 403" in locked.value.details


def test_a_failed_request_is_a_failure_with_fals_reason(
    sandbox: Sandbox, client: Client, image: Path
) -> None:
    task = client.submit(Order(kind="image", image_path=str(image)), idempotency_key="f-1")
    sandbox.fail_now(task.id, "The model could not find an object in this image.")
    done = finished(client, task)
    assert done.status is TaskStatus.FAILED and done.raw_status == "COMPLETED"
    assert done.said == "The model could not find an object in this image."
    assert done.error and "runner_error" in done.error


def test_a_server_that_is_down_is_a_sentence_naming_its_address(image: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with make_client("FAL", f"http://127.0.0.1:{port}", KEY) as down, pytest.raises(NetworkError) as cut:
        down.get_task("0b7e6a4c-1f1e-4a49-9a53-6a4a2c1f2d11", handle="trellis")
    assert f"127.0.0.1:{port}" in said(cut.value)


# ------------------------------------------------------------------ cancel


def test_cancel_reaches_the_cancel_url_and_the_request_ends_cancelled(sandbox: Sandbox, image: Path) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=0.2) as slow, make_client("FAL", slow.base_url, KEY) as c:
        task = c.submit(Order(kind="image", image_path=str(image), tier="trellis-2"), idempotency_key="c")
        c.cancel_task(task.id, handle=task.handle)
        put = slow.requests[-1]
        assert (put.method, put.path, put.status) == (
            "PUT",
            f"/fal-ai/trellis-2/requests/{task.id}/cancel",
            202,
        )
        assert put.headers.get("authorization") == f"Key {KEY}"
        ended = c.get_task(task.id, handle=task.handle)
        assert ended.status is TaskStatus.FAILED and "cancelled" in (ended.said or "")


# ------------------------------------------------------------------ the job engine


def config(sandbox: Sandbox, **overrides: Any) -> ServiceConfig:
    values = {"poll_interval": 0.2, "max_in_flight": 4, "timeout_seconds": 60.0, **overrides}
    return ServiceConfig(base_url="", api_key="", accounts=(Account("FAL", sandbox.base_url, KEY),), **values)


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[Any]:
    engines: list[JobEngine] = []

    def make(cfg: ServiceConfig) -> JobEngine:
        engine = JobEngine(tmp_path / "state")
        engine.start(cfg)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.shutdown()
    assert not [t for t in threading.enumerate() if t.name.startswith("kiln-worker")]


def image_job(image: Path, tier: str = "") -> JobRequest:
    return JobRequest(kind="image", image_path=str(image)).to_service("FAL", tier=tier)


def test_the_engine_lands_an_image_job_from_fal(sandbox: Sandbox, make_engine: Any, image: Path) -> None:
    engine = make_engine(config(sandbox))
    job = engine.submit(image_job(image))
    assert engine.wait([job.id], timeout=60)
    done = engine.get(job.id)
    assert done.state is JobState.READY, done.error
    assert Path(done.mesh_path).read_bytes()[:4] == b"glTF"
    assert done.task_handle == "trellis"


def test_a_job_resumed_after_a_restart_sends_nothing_twice(make_engine: Any, image: Path) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=2.0) as sandbox:
        first = make_engine(config(sandbox))
        job = first.submit(image_job(image, "hunyuan3d-v2"))
        while not first.get(job.id).task_id:
            first.wait([job.id], timeout=0.05)
        first.shutdown()
        second = make_engine(config(sandbox))
        assert second.wait([job.id], timeout=60)
        assert second.get(job.id).state is JobState.READY, second.get(job.id).error
        assert sandbox.submit_attempts == 1
        assert [r.path for r in sandbox.requests if r.method == "POST"] == ["/fal-ai/hunyuan3d/v2"]
        # The handle kept with the job found the model's queue after the restart.
        assert all(
            "/fal-ai/hunyuan3d/requests/" in r.path
            for r in sandbox.requests
            if r.method == "GET" and not r.path.startswith("/files/")
        )


def test_a_failed_request_fails_the_job_with_fals_reason(make_engine: Any, image: Path) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=0.5) as sandbox:
        engine = make_engine(config(sandbox))
        job = engine.submit(image_job(image))
        while not engine.get(job.id).task_id:
            engine.wait([job.id], timeout=0.05)
        sandbox.fail_now(engine.get(job.id).task_id, "The model could not find an object in this image.")
        assert engine.wait([job.id], timeout=60)
        failed = engine.get(job.id)
        assert failed.state is JobState.FAILED and failed.error_message is not None
        # Kiln's sentence for a job the service failed (the same for every service; the job's row names
        # the service) quotes fal's own reason; the details say it was fal's.
        assert failed.error_message.name == "TASK_REFUSED"
        assert "The model could not find an object in this image." in failed.error
        assert "fal.ai error runner_error" in failed.error_message.details


def test_the_engines_cancel_reaches_fals_cancel_url(make_engine: Any, image: Path) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=0.2) as sandbox:
        engine = make_engine(config(sandbox))
        job = engine.submit(image_job(image))
        while not engine.get(job.id).task_id:
            engine.wait([job.id], timeout=0.05)
        task_id = engine.get(job.id).task_id
        engine.cancel(job.id)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(r.method == "PUT" for r in sandbox.requests):
            time.sleep(0.05)
        puts = [r for r in sandbox.requests if r.method == "PUT"]
        assert [(r.path, r.status) for r in puts] == [(f"/fal-ai/trellis/requests/{task_id}/cancel", 202)]
        assert engine.get(job.id).state is JobState.CANCELLED


# ------------------------------------------------------------------ the wire, read alone


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("IN_QUEUE", TaskStatus.QUEUED),
        ("IN_PROGRESS", TaskStatus.RUNNING),
        ("COMPLETED", TaskStatus.COMPLETED),
        ("SOMETHING_NEW", TaskStatus.RUNNING),
    ],
)
def test_each_status_word_maps_onto_kilns(word: str, status: TaskStatus) -> None:
    assert _task_from_status("r-1", "trellis", {"status": word, "logs": None}).status is status


def test_a_result_without_the_models_mesh_field_is_a_failure_not_a_crash() -> None:
    done = Task(id="r-1", status=TaskStatus.COMPLETED, handle="trellis-2")
    assert _with_result(done, MODELS["trellis-2"], {"model_mesh": {"url": "https://x/m.glb"}}).status is (
        TaskStatus.FAILED
    )
    found = _with_result(done, MODELS["trellis-2"], {"model_glb": {"url": "https://v3.fal.media/f/m.glb"}})
    assert found.result is not None and found.result.mesh_url == "https://v3.fal.media/f/m.glb"


def test_a_handle_kiln_never_gave_is_refused_with_nothing_sent(sandbox: Sandbox, client: Client) -> None:
    start = len(sandbox.requests)
    with pytest.raises(InputError):
        client.get_task("0b7e6a4c-1f1e-4a49-9a53-6a4a2c1f2d11", handle="../../admin")
    with pytest.raises(InputError):
        client.get_task("bad\nid", handle="trellis")
    assert len(sandbox.requests) == start


def test_a_submit_answer_without_a_request_id_is_outcome_unknown(client: Client) -> None:
    with pytest.raises(OutcomeUnknownError):
        client._submitted_task("k", 200, b'{"status": "IN_QUEUE"}')


def test_fal_is_priced_in_dollars_never_shown_free() -> None:
    capabilities = INFO.capabilities
    assert all(capabilities.price("image", tier.id) is None for tier in capabilities.tiers("image"))
    assert "$0.02" in words.FAL_TIER_TRELLIS.tip and capabilities.cancel and not capabilities.takes("text")
