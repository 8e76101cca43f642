"""Tripo's client (API v3) against its stand-in over real HTTP, and its wire read as the SDK says.

The stand-in (``sandbox/standins/tripo.py``) is written from Tripo's official SDK ``tripo3d`` 1.0.0,
not from the client: what it records (paths, headers, the request bodies as received) is what
Tripo would see. The SDK itself is held to the stand-in in ``test_tripo_vendor_contract.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.checks.glb import check_glb, check_preview
from api.errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    InputError,
    KilnError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
)
from api.http.models import Task, TaskStatus
from api.services import Order, info, make_client, refusal
from api.services.tripo import (
    CODE_STATUS,
    HANDLE_V3,
    IMAGE_PATH,
    INFO,
    MULTIVIEW_PATH,
    TIER_WIRE,
    UPLOAD_PATH,
)
from api.services.tripo.client import Client, _task_from_poll
from api.services.tripo.errors import code_error
from api.words import catalogue as words
from api.words import english_message
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

KEY = "tsk_live_tripotest0000"
OTHER_KEY = "tsk_live_tripowrong000"


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
    """Poll until the task leaves queued/running (the engine's 2–3 s, shortened for the stand-in)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get_task(task.id, handle=task.handle)
        if task.raw_status not in ("queued", "running"):
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task.id} still {task.raw_status}")


def received(sandbox: Sandbox, task_id: str) -> dict[str, Any]:
    """The task request exactly as the stand-in received it."""
    body = sandbox.tasks[task_id].submit_body
    assert isinstance(body, dict)
    return body


# ------------------------------------------------------------------ whole jobs


def test_text_job_is_made_polled_and_downloaded_with_the_key_kept_home(
    sandbox: Sandbox, client: Client, tmp_path: Path
) -> None:
    start = len(sandbox.requests)
    task = client.submit(Order(kind="text", prompt="a red chair"), idempotency_key="text-1")
    assert task.status is TaskStatus.QUEUED
    done = finished(client, task)
    assert (done.status, done.raw_status, done.progress) == (TaskStatus.COMPLETED, "success", 100.0)
    assert done.result is not None and done.result.mesh_url and done.result.preview_image_url
    assert "/model.glb" in done.result.mesh_url  # v3's one model_url
    mesh = client.download(done.result.mesh_url, tmp_path / "mesh.glb", check=check_glb)
    check_glb(mesh)
    preview = client.download(done.result.preview_image_url, tmp_path / "preview.png")
    check_preview(preview)

    seen = sandbox.requests[start:]
    api = [r for r in seen if r.path.startswith("/v3/")]
    files = [r for r in seen if r.path.startswith("/files/")]
    assert api and len(files) == 2
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in api)
    assert all("authorization" not in r.headers for r in files)
    if sandbox.cdn_base_url:  # the links point at the second loopback host, as a CDN would be
        assert done.result.mesh_url.startswith(sandbox.cdn_base_url)


def test_image_job_uploads_first_then_names_the_token(
    sandbox: Sandbox, client: Client, tmp_path: Path
) -> None:
    image = write_concept(tmp_path, "chair")
    start = len(sandbox.requests)
    task = client.submit(Order(kind="image", image_path=str(image)), idempotency_key="image-1")
    paths = [(r.method, r.path) for r in sandbox.requests[start:]]
    assert paths == [("POST", UPLOAD_PATH), ("POST", IMAGE_PATH)]
    body = received(sandbox, task.id)
    assert isinstance(body["input"], str) and body["input"].startswith("file_")
    done = finished(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result is not None and done.result.mesh_url
    check_glb(client.download(done.result.mesh_url, tmp_path / "mesh.glb"))


def test_views_go_as_multiview_in_tripos_order(sandbox: Sandbox, client: Client, tmp_path: Path) -> None:
    front, back, right = (write_concept(tmp_path / n, "robot") for n in ("front", "back", "right"))
    order = Order(kind="image", image_path=str(front), views=(str(back), "", str(right)))
    start = len(sandbox.requests)
    task = client.submit(order, idempotency_key="views-1")
    assert sandbox.requests[-1].path == MULTIVIEW_PATH and len(sandbox.requests) - start == 4
    slots = received(sandbox, task.id)["inputs"]
    # SDK multiview_to_model: exactly four slots, [front, left, back, right], null where missing.
    assert len(slots) == 4 and slots[1] is None
    assert all(isinstance(slot, str) and slot.startswith("file_") for slot in (slots[0], slots[2], slots[3]))
    assert finished(client, task).status is TaskStatus.COMPLETED


def test_an_image_by_its_address_goes_as_the_input_string(sandbox: Sandbox, client: Client) -> None:
    first = finished(client, client.submit(Order(kind="text", prompt="a mug"), idempotency_key="u-0"))
    assert first.result is not None and first.result.preview_image_url
    url = first.result.preview_image_url  # a PNG the stand-in can fetch (loopback)
    task = client.submit(Order(kind="image", image_url=url), idempotency_key="url-1")
    assert received(sandbox, task.id)["input"] == url


# ------------------------------------------------------------------ options, tiers, refusals


@pytest.mark.parametrize("tier", [tier.id for tier in INFO.capabilities.tiers("text")])
def test_every_tier_kiln_offers_lands_on_api_v3(sandbox: Sandbox, client: Client, tier: str) -> None:
    task = client.submit(Order(kind="text", prompt="a stool", tier=tier), idempotency_key=f"tier-{tier}")
    assert received(sandbox, task.id)["model"] == TIER_WIRE[tier][0]
    done = finished(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result is not None and done.result.mesh_url


def test_each_option_reaches_tripo_under_its_documented_field(sandbox: Sandbox, client: Client) -> None:
    options: dict[str, object] = {"texture": True, "pbr": False, "polygons": 5000}
    task = client.submit(
        Order(kind="text", prompt="a lamp", tier="v3.1-detailed", options=options), idempotency_key="o-1"
    )
    body = received(sandbox, task.id)
    assert body["prompt"] == "a lamp" and "type" not in body and "model_version" not in body
    assert body["model"] == "v3.1-20260211" and body["texture_quality"] == "detailed"
    assert (body["texture"], body["pbr"], body["face_limit"]) == (True, False, 5000)
    standard = received(sandbox, client.submit(Order(kind="text", prompt="a cup"), idempotency_key="o-s").id)
    assert "texture_quality" not in standard  # standard is the default: left to Tripo, as the SDK does


def test_texture_off_turns_pbr_off_too_and_a_zero_budget_is_left_to_tripo(
    sandbox: Sandbox, client: Client
) -> None:
    order = Order(kind="text", prompt="a rock", tier="P1", options={"texture": False, "polygons": 0})
    body = received(sandbox, client.submit(order, idempotency_key="o-2").id)
    # "If [pbr] is set to true, texture will be ignored" and pbr defaults to true (Generation).
    assert (body["texture"], body["pbr"]) == (False, False)
    assert "face_limit" not in body and "texture_quality" not in body
    assert body["model"] == TIER_WIRE["P1"][0]


@pytest.mark.parametrize(
    ("order", "entry"),
    [
        (Order(kind="text", prompt="a chair", options={"quad": True}), words.SERVICE_LACKS_OPTION),
        # Stylize is retired on v3 (tripo3d 1.0.0 METADATA): no style is offered or sent.
        (Order(kind="text", prompt="a chair", options={"style": "gold"}), words.SERVICE_LACKS_OPTION),
        (Order(kind="text", prompt="a chair", tier="v9"), words.SERVICE_TIER_UNKNOWN),
        (
            Order(kind="image", image_path="f.png", views=("b", "l", "r", "x")),
            words.SERVICE_TAKES_FEWER_VIEWS,
        ),
    ],
)
def test_what_tripo_lacks_is_refused_before_anything_is_sent(
    sandbox: Sandbox, client: Client, order: Order, entry: object
) -> None:
    said = refusal(INFO.capabilities, INFO.name, order)
    assert said is not None and said.name == words_name(entry)
    start = len(sandbox.requests)
    with pytest.raises(InputError):
        client.submit(order, idempotency_key="refused")
    assert len(sandbox.requests) == start


@pytest.mark.parametrize(
    ("options", "entry"),
    [
        ({"polygons": 10}, words.TRIPO_POLYGONS_OUT_OF_RANGE),
        ({"pbr": "yes"}, words.TRIPO_OPTION_UNREADABLE),
    ],
)
def test_an_unusable_option_value_is_refused_with_nothing_sent(
    sandbox: Sandbox, client: Client, options: dict[str, object], entry: object
) -> None:
    start = len(sandbox.requests)
    with pytest.raises(InputError) as caught:
        client.submit(Order(kind="text", prompt="a chair", options=options), idempotency_key="bad")
    assert caught.value.message.name == words_name(entry)
    assert len(sandbox.requests) == start


def test_the_price_shown_is_what_tripo_charges_and_the_balance_is_read(
    sandbox: Sandbox, client: Client
) -> None:
    before = client.balance()
    assert before == sandbox.credits_left(KEY)
    client.submit(Order(kind="text", prompt="a table"), idempotency_key="price-1")
    assert before - sandbox.credits_left(KEY) == info("TRIPO").capabilities.price("text")
    assert client.balance() == sandbox.credits_left(KEY)
    said = client.check_connection()
    assert said.name == "CONNECTED_WITH_BALANCE" and "Tripo" in english_message(said)


# ------------------------------------------------------------------ states


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("queued", TaskStatus.QUEUED),
        ("running", TaskStatus.RUNNING),
        ("success", TaskStatus.COMPLETED),
        ("failed", TaskStatus.FAILED),
        ("banned", TaskStatus.FAILED),
        ("expired", TaskStatus.FAILED),
        ("cancelled", TaskStatus.FAILED),
        (
            "unknown",
            TaskStatus.RUNNING,
        ),  # "cannot be determined": keep polling, the engine's deadline ends it
        ("a-word-tripo-never-sent", TaskStatus.RUNNING),
    ],
)
def test_every_documented_state_maps_onto_kilns_four(word: str, status: TaskStatus) -> None:
    task = _task_from_poll(
        "t-1", {"status": word, "progress": "42", "output": {"model_url": "https://c/m.glb"}}
    )
    assert (task.status, task.raw_status) == (status, word)
    assert (task.error is not None) == (status is TaskStatus.FAILED)


@pytest.mark.parametrize(
    ("knob", "status", "reason"),
    [
        ("banned", TaskStatus.FAILED, "content policy"),
        ("expired", TaskStatus.FAILED, "expired"),
        ("cancelled", TaskStatus.FAILED, "cancelled"),
        ("failed", TaskStatus.FAILED, "could not make"),
        ("unknown", TaskStatus.RUNNING, None),
    ],
)
def test_the_stand_ins_end_states_reach_kiln_with_tripos_reason(
    client: Client, knob: str, status: TaskStatus, reason: str | None
) -> None:
    task = finished(
        client, client.submit(Order(kind="text", prompt=f"a cup tripo:{knob}"), idempotency_key=knob)
    )
    assert (task.status, task.raw_status) == (status, knob)
    if reason is not None:
        assert task.error is not None and reason in task.error


def test_a_forced_failure_keeps_tripos_code_and_words(sandbox: Sandbox, client: Client) -> None:
    task = client.submit(Order(kind="text", prompt="a vase"), idempotency_key="forced")
    sandbox.fail_now(task.id, {"status": "banned", "error_code": 2008, "error_msg": "Policy says no."})
    done = client.get_task(task.id, handle=HANDLE_V3)
    assert done.status is TaskStatus.FAILED and done.error is not None
    assert "2008" in done.error and "Policy says no" in done.error


# ------------------------------------------------------------------ errors


def sentence(error: KilnError) -> str:
    """The catalogue name of what ``error`` says (behind "Tripo: …" when it was named)."""
    shown = error.message
    return shown.values["said"].name if shown.name == "SERVICE_SAID" else shown.name


def words_name(entry: object) -> str:
    return next(name for name, value in vars(words).items() if value is entry)


#: Every code of the Errors table (and of Generation's and Task's tables) → Kiln's class and sentence.
CODE_TABLE: list[tuple[int, type[KilnError], str]] = [
    (1000, ServiceError, "SERVICE_PROBLEM"),
    (1001, ServiceError, "SERVICE_PROBLEM"),
    (1002, AuthError, "TRIPO_KEY_REJECTED"),
    (1003, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (1004, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (1005, AuthError, "TRIPO_KEY_FORBIDDEN"),
    (2000, RateLimitError, "TRIPO_TOO_MANY_JOBS"),
    (2001, NotFoundError, "SERVICE_FORGOT_JOB"),
    (2002, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (2003, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (2004, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (2008, BadRequestError, "TRIPO_CONTENT_REFUSED"),
    (2010, CreditsError, "TRIPO_OUT_OF_CREDITS"),
    (2014, ServiceError, "SERVICE_PROBLEM"),
    (2015, ServiceMovedError, "SERVICE_MOVED"),  # a retired version: a newer Kiln knows the current ones
    (2017, BadRequestError, "TRIPO_MODEL_OUTDATED"),
    (2018, BadRequestError, "SERVICE_REFUSED_REQUEST"),
    (2019, BadRequestError, "SERVICE_REFUSED_REQUEST"),
]


def test_the_code_table_covers_every_documented_code() -> None:
    assert {code for code, _, _ in CODE_TABLE} == set(CODE_STATUS)


@pytest.mark.parametrize(("code", "kind", "entry"), CODE_TABLE)
def test_each_error_code_becomes_its_kiln_error(code: int, kind: type[KilnError], entry: str) -> None:
    answer = {
        "code": code,
        "message": f"Said by Tripo {code}.",
        "suggestion": "Do this.",
        "request_id": "req_12345",
    }
    error = code_error(CODE_STATUS[code], answer, {}, KEY, task_id="t-1" if code == 2001 else None)
    assert type(error) is kind
    shown = error.message
    if entry.startswith("TRIPO_"):
        assert shown.name == entry
    else:  # said of any service: Tripo's name in front
        assert shown.name == "SERVICE_SAID" and shown.values["said"].name == entry
    assert "Tripo" in error.user_message
    assert f"Tripo error {code}" in error.details and f"Said by Tripo {code}" in error.details
    assert "request id req_12345" in error.details
    if kind in (AuthError, CreditsError):
        assert getattr(error, "status", None) == CODE_STATUS[code]


def test_an_answer_is_read_as_the_sdk_reads_its_envelope() -> None:
    # _http.py parse_envelope: without "data" the answer is its own data; "status": "error" is an error.
    with Client("http://127.0.0.1:9", KEY) as offline:
        assert offline._task_from_submit({"task_id": "t-9"}).id == "t-9"
        with pytest.raises(BadRequestError):
            offline._task_from_submit({"status": "error", "message": "No."})


def test_an_error_code_inside_a_2xx_is_the_error_it_names() -> None:
    with Client("http://127.0.0.1:9", KEY) as offline, pytest.raises(CreditsError):
        offline._task_from_submit({"code": 2010, "message": "You need more credits."})


@pytest.mark.parametrize(
    ("knob", "kind", "entry"),
    [
        ("refuse", BadRequestError, "TRIPO_CONTENT_REFUSED"),
        ("busy", RateLimitError, "TRIPO_TOO_MANY_JOBS"),
        ("outdated", ServiceMovedError, "SERVICE_MOVED"),
    ],
)
def test_the_stand_ins_submit_errors_reach_kiln(
    sandbox: Sandbox, client: Client, knob: str, kind: type[KilnError], entry: str
) -> None:
    made = sandbox.submit_count
    with pytest.raises(kind) as caught:
        client.submit(Order(kind="text", prompt=f"a sword tripo:{knob}"), idempotency_key=knob)
    assert sentence(caught.value) == entry and "Tripo error" in caught.value.details
    assert "Tripo" in caught.value.user_message
    assert "request id req_" in caught.value.details  # the envelope's request_id, for Tripo's support
    assert sandbox.submit_count == made


def test_a_server_error_after_the_submit_left_is_outcome_unknown(client: Client) -> None:
    # 2014 is a 500: the task may exist, so Kiln never sends it again by itself.
    with pytest.raises(OutcomeUnknownError) as caught:
        client.submit(Order(kind="text", prompt="a shield tripo:audit"), idempotency_key="audit")
    assert isinstance(caught.value.__cause__, ServiceError)


def test_a_wrong_key_and_an_empty_account_say_so_naming_tripo(sandbox: Sandbox) -> None:
    with make_client("TRIPO", sandbox.base_url, OTHER_KEY) as wrong, pytest.raises(AuthError) as caught:
        wrong.check_connection()
    assert caught.value.message.name == "TRIPO_KEY_REJECTED" and "Tripo" in caught.value.user_message
    with (
        Sandbox(service="tripo", keys=[KEY], speed=50.0, credits=5) as poor,
        make_client("TRIPO", poor.base_url, KEY) as broke,
        pytest.raises(CreditsError) as short,
    ):
        broke.submit(Order(kind="text", prompt="a chair"), idempotency_key="poor")
    assert short.value.message.name == "TRIPO_OUT_OF_CREDITS" and "HTTP 403" in short.value.details


def test_a_task_tripo_does_not_know_is_not_found(client: Client) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.get_task("no-such-task", handle=HANDLE_V3)
    assert caught.value.task_id == "no-such-task"


# ------------------------------------------------------------------ an untrusted service


@pytest.mark.parametrize(
    "data",
    [
        {"status": "success", "progress": "not a number", "output": ["not", "an", "object"]},
        {"status": 7, "progress": float("inf"), "output": None, "running_left_time": "soon"},
        {"status": "success", "output": {"model": "x" * 10_000, "pbr_model": 5, "rendered_image": ""}},
        {"status": "failed", "error_code": "not-a-code", "error_msg": "word " * 5_000},
        {},
    ],
)
def test_odd_fields_of_a_poll_become_nothing_rather_than_an_error(data: dict[str, Any]) -> None:
    task = _task_from_poll("t-1", data)
    assert task.id == "t-1"
    assert task.result is None or task.result.mesh_url is None
    assert task.error is None or len(task.error) <= 400


@pytest.mark.parametrize(
    "answer",
    [
        {"code": 0, "data": {}},
        {"code": 0, "data": []},
        {"code": 0},
        [],
        {"code": 0, "data": {"task_id": "\x00"}},
    ],
)
def test_a_submit_answer_without_a_usable_task_is_unusable_not_an_error_of_tripos(answer: object) -> None:
    with Client("http://127.0.0.1:9", KEY) as offline, pytest.raises(ValueError):
        offline._task_from_submit(answer)


def test_tripo_offers_no_cancel_and_says_what_texture_off_saves() -> None:
    caps = info("TRIPO").capabilities
    assert not caps.cancel
    assert caps.price("text", options={"texture": False}) == caps.price("text") - 10
