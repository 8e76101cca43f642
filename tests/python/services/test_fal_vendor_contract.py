"""Kiln's fal.ai wire held to the official ``fal-client`` 1.0.3, both against Kiln's fal stand-in.

The vendor's client runs the same jobs as Kiln (submit, status, result, cancel) on loopback; every
call must succeed, and what each side sent — method, path, JSON field names and value types, the
form of the ``Authorization`` header — is compared. Kiln may send nothing the vendor's client does
not, unless listed once in ``KILN_ONLY`` with its reason.

The only change made to the vendor's client: its queue address. ``QUEUE_URL_FORMAT`` is
``https://{FAL_QUEUE_RUN_HOST}/`` (client.py), so the environment variable alone cannot name a plain
HTTP loopback stand-in; the test sets that module constant to the stand-in's address instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fal_client
import fal_client.client as vendor
import pytest

from api.services import Order, make_client
from api.services.fal import MODELS
from api.services.fal.client import Client
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox
from sandbox.state import RecordedRequest

KEY = "fal_live_falcontract000"

#: JSON fields Kiln sends that the vendor's client does not, each with why it is kept (none today).
KILN_ONLY_FIELDS: dict[str, str] = {}
#: Header names Kiln sends that the vendor's client does not, each with why it is kept.
KILN_ONLY = {
    "idempotency-key": "every Kiln submit carries one (api/http/client.py); fal ignores it, and "
    "Capabilities.idempotency is False, so Kiln never relies on it",
}
#: Headers any HTTP client sends by itself (not the wire of fal's queue).
TRANSPORT_HEADERS = frozenset(
    {"host", "accept", "accept-encoding", "connection", "content-length", "content-type", "user-agent"}
)
#: What the vendor sends for each of Kiln's tiers: the model page's input for the same job.
VENDOR_INPUT = {
    "trellis": lambda image: {"image_url": image},
    "trellis-2": lambda image: {"image_url": image},
    "hunyuan3d-v2": lambda image: {"input_image_url": image, "textured_mesh": True},
    "hunyuan3d-v2-shape": lambda image: {"input_image_url": image, "textured_mesh": False},
}


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_concept(tmp_path_factory.mktemp("concept"), "chair")


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    with Sandbox(service="fal", keys=[KEY], speed=20.0, credits=100_000) as sandbox:
        monkeypatch.setattr(vendor, "QUEUE_URL_FORMAT", sandbox.base_url + "/")
        yield sandbox


def since(sandbox: Sandbox, start: int) -> list[RecordedRequest]:
    """The queue's requests since ``start`` (the CDN's file requests left out)."""
    return [r for r in sandbox.requests[start:] if not r.path.startswith("/files/")]


def shape(body: dict[str, Any]) -> dict[str, str]:
    """Field name → JSON type of a request body (a data URL's kind too, not its bytes)."""
    kinds = {}
    for name, value in body.items():
        kind = type(value).__name__
        if isinstance(value, str) and value.startswith("data:"):
            kind = "data-url:" + value.split(";", 1)[0].removeprefix("data:")
        kinds[name] = kind
    return kinds


def calls(requests: list[RecordedRequest], request_id: str) -> list[tuple[str, str]]:
    """(method, path) of each request with its id as ``{id}``, a run of status polls as one."""
    seen: list[tuple[str, str]] = []
    for r in requests:
        call = (r.method, r.path.replace(request_id, "{id}"))
        if not seen or seen[-1] != call:
            seen.append(call)
    return seen


def kiln_only_headers(kiln: list[RecordedRequest], fal: list[RecordedRequest]) -> set[str]:
    theirs = {name for r in fal for name in r.headers}
    return {name for r in kiln for name in r.headers} - theirs - TRANSPORT_HEADERS


def auth_form(requests: list[RecordedRequest]) -> set[str]:
    return {r.headers.get("authorization", "").replace(KEY, "<key>") for r in requests}


@pytest.mark.parametrize("tier", list(MODELS))
def test_kiln_submits_polls_and_fetches_as_the_vendors_client_does(
    stand_in: Sandbox, image: Path, tier: str
) -> None:
    model = MODELS[tier]
    fal = fal_client.SyncClient(key=KEY)

    start = len(stand_in.requests)
    handle = fal.submit(model.app_id, VENDOR_INPUT[tier](fal_client.encode_file(image)))
    output = handle.get(interval=0.05)  # status until COMPLETED, then the result
    assert isinstance(output[model.mesh_field]["url"], str)
    theirs = since(stand_in, start)
    assert isinstance(fal.status(model.app_id, handle.request_id), fal_client.Completed)  # by id alone

    start = len(stand_in.requests)
    with make_client("FAL", stand_in.base_url, KEY) as kiln:
        assert isinstance(kiln, Client)
        task = kiln.submit(Order(kind="image", image_path=str(image), tier=tier), idempotency_key=tier)
        deadline = time.monotonic() + 30
        while not (task := kiln.get_task(task.id, handle=task.handle)).is_final:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    ours = since(stand_in, start)
    assert task.result is not None and task.result.mesh_url == _cdn_url(stand_in, task.id)

    kiln_body = stand_in.tasks[task.id].submit_body
    fal_body = stand_in.tasks[handle.request_id].submit_body
    ours_shape, theirs_shape = shape(kiln_body), shape(fal_body)
    assert set(ours_shape) - set(theirs_shape) <= set(KILN_ONLY_FIELDS), "a field the vendor never sends"
    assert set(theirs_shape) <= set(ours_shape), "a field the vendor sends for this job is missing"
    assert {name: ours_shape[name] for name in theirs_shape} == theirs_shape, "a value of another type"
    assert kiln_body[model.image_field] == fal_body[model.image_field]  # the same data URL, byte for byte
    # submit, status (repeated until COMPLETED), result: the same paths in the same order.
    assert calls(ours, task.id) == calls(theirs, handle.request_id)
    assert [method for method, _ in calls(ours, task.id)] == ["POST", "GET", "GET"]
    assert all(r.status < 300 for r in theirs + ours)
    assert auth_form(ours) == auth_form(theirs) == {"Key <key>"}
    assert kiln_only_headers(ours, theirs) <= set(KILN_ONLY)


def test_kiln_cancels_as_the_vendors_client_does(image: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=0.2) as slow:
        monkeypatch.setattr(vendor, "QUEUE_URL_FORMAT", slow.base_url + "/")
        model = MODELS["hunyuan3d-v2"]
        fal = fal_client.SyncClient(key=KEY)
        handle = fal.submit(model.app_id, VENDOR_INPUT["hunyuan3d-v2"](fal_client.encode_file(image)))
        start = len(slow.requests)
        fal.cancel(model.app_id, handle.request_id)  # raises unless the stand-in answers 2xx
        theirs = since(slow, start)

        with make_client("FAL", slow.base_url, KEY) as kiln:
            task = kiln.submit(
                Order(kind="image", image_path=str(image), tier="hunyuan3d-v2"), idempotency_key="c"
            )
            start = len(slow.requests)
            kiln.cancel_task(task.id, handle=task.handle)
        ours = since(slow, start)
    assert (
        [(r.method, r.path.replace(handle.request_id, "{id}"), r.status) for r in theirs]
        == [(r.method, r.path.replace(task.id, "{id}"), r.status) for r in ours]
        == [("PUT", "/fal-ai/hunyuan3d/requests/{id}/cancel", 202)]
    )
    assert auth_form(ours) == auth_form(theirs) == {"Key <key>"}


def test_the_vendors_client_reads_the_stand_ins_status_words(stand_in: Sandbox, image: Path) -> None:
    """IN_QUEUE, IN_PROGRESS and COMPLETED each parse in the vendor's client, logs asked or not."""
    fal = fal_client.SyncClient(key=KEY)
    handle = fal.submit("fal-ai/trellis", {"image_url": fal_client.encode_file(image)})
    seen = {type(status).__name__ for status in handle.iter_events(with_logs=True, interval=0.01)}
    assert "Completed" in seen and seen <= {"Queued", "InProgress", "Completed"}


def _cdn_url(sandbox: Sandbox, task_id: str) -> str:
    return f"{sandbox.cdn_base_url}/files/{task_id}/model.glb"


def test_the_vendors_upload_works_on_the_stand_in_and_shows_why_kiln_sends_a_data_url(
    stand_in: Sandbox, image: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vendor's default upload (``fal_v3``) asks ``REST_URL`` for a CDN token with the key, then
    posts the file to ``CDN_URL`` with the token; its fallback (``fal``) PUTs the file to a storage
    address with the client's own headers — the key included. Kiln sends neither: its picture goes
    inside the submit, to the queue, the one host that has the key already."""
    monkeypatch.setattr(vendor, "REST_URL", stand_in.base_url)
    assert stand_in.cdn_base_url
    monkeypatch.setattr(vendor, "CDN_URL", stand_in.cdn_base_url)
    fal = fal_client.SyncClient(key=KEY)

    start = len(stand_in.requests)
    url = fal.upload_file(image)
    token, posted = stand_in.requests[start : start + 2]
    assert (token.method, token.path) == ("POST", "/storage/auth/token")
    assert token.headers.get("authorization") == f"Key {KEY}"
    assert (posted.method, posted.path) == ("POST", "/files/upload")
    assert posted.headers.get("authorization", "").startswith("Bearer ") and KEY not in posted.headers.get(
        "authorization", ""
    )
    handle = fal.submit("fal-ai/trellis", {"image_url": url})
    assert isinstance(handle.get(interval=0.05)["model_mesh"]["url"], str)

    start = len(stand_in.requests)
    fal.upload_file(image, repository="fal", fallback_repository=[])
    put = next(r for r in stand_in.requests[start:] if r.method == "PUT")
    assert put.path.startswith("/storage/put/") and put.headers.get("authorization") == f"Key {KEY}"
