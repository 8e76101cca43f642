"""Meshy's client against its stand-in over real HTTP (sandbox/standins/meshy.py, from Meshy's pages).

A text job (preview, then refine) and an image job made, polled and downloaded; every documented
state and error mapped; the key seen only by the API origin; each option under its field; what
Meshy lacks refused before anything is sent; the balance read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from api.checks.glb import check_glb
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
)
from api.http.models import Task, TaskStatus
from api.services import Order, info, make_client, refusal
from api.services.meshy import INFO
from api.services.meshy.answers import task_from
from api.services.meshy.client import Client
from api.words import catalogue as words
from api.words import english_message
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

KEY = "msy_live_meshytest0000"
POLL_LIMIT_SECONDS = 20.0


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="meshy", keys=[KEY], speed=50.0, credits=100_000) as sb:
        yield sb


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[Client]:
    made = make_client("MESHY", sandbox.base_url, KEY)
    assert isinstance(made, Client)
    with made:
        yield made


@pytest.fixture(scope="module")
def png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_concept(tmp_path_factory.mktemp("meshy-images"), "chair", "png")


def wait(client: Client, task: Task) -> Task:
    deadline = time.monotonic() + POLL_LIMIT_SECONDS
    while not task.is_final:
        assert time.monotonic() < deadline, f"task {task.id} never ended"
        time.sleep(0.05)
        task = client.get_task(task.id, handle=task.handle)
    return task


def bodies(sandbox: Sandbox, before: int) -> list[dict[str, Any]]:
    """The request bodies of the tasks made since ``before`` tasks existed (the stand-in keeps them)."""
    return [task.submit_body for task in list(sandbox.tasks.values())[before:]]


# ---------------------------------------------------------------------- whole jobs


def test_text_job_preview_then_refine_downloads_a_checked_glb(
    client: Client, sandbox: Sandbox, tmp_path: Path
) -> None:
    order = Order(kind="text", prompt="a wooden treasure chest")
    assert client.stages(order) == 2
    before = sandbox.credits_left(KEY)
    preview = wait(client, client.submit(order, idempotency_key="text-1"))
    assert preview.status is TaskStatus.COMPLETED and preview.raw_status == "SUCCEEDED"
    assert preview.handle == "text"
    refine_order = Order(kind="text", prompt=order.prompt, stage=1, previous_task_id=preview.id)
    refined = wait(client, client.submit(refine_order, idempotency_key="text-2"))
    assert refined.status is TaskStatus.COMPLETED and refined.progress == 100.0
    assert refined.result is not None and refined.result.mesh_url and refined.result.preview_image_url
    mesh = client.download(refined.result.mesh_url, tmp_path / "chest.glb", check=check_glb)
    client.download(refined.result.preview_image_url, tmp_path / "chest.png")
    assert mesh.stat().st_size > 1000
    # Meshy 6: a preview (20) and a refine (10), what the capabilities publish for a text job.
    # The stand-in charges meshy-7.1 as Meshy 7 (20 + 10); Kiln shows no price for it (none is published).
    assert before - sandbox.credits_left(KEY) == 30 and INFO.capabilities.price("text") is None


def test_geometry_only_text_job_is_one_stage() -> None:
    assert (
        Client("https://api.meshy.ai", KEY).stages(Order(kind="text", prompt="x", options={"texture": False}))
        == 1
    )
    assert Client("https://api.meshy.ai", KEY).stages(Order(kind="image", image_path="x.png")) == 1


def test_image_job_from_a_file_is_made_and_downloaded(
    client: Client, sandbox: Sandbox, png: Path, tmp_path: Path
) -> None:
    task = wait(client, client.submit(Order(kind="image", image_path=str(png)), idempotency_key="img-1"))
    assert task.status is TaskStatus.COMPLETED and task.handle == "image"
    assert task.result is not None and task.result.mesh_url
    check_glb(client.download(task.result.mesh_url, tmp_path / "chair.glb"))
    sent = sandbox.tasks[task.id].submit_body
    assert sent["image_url"].startswith("data:image/png;base64,")


def test_several_views_go_to_multi_image_to_3d(client: Client, sandbox: Sandbox, png: Path) -> None:
    order = Order(kind="image", image_path=str(png), views=(str(png), str(png)))
    task = wait(client, client.submit(order, idempotency_key="multi-1"))
    assert task.status is TaskStatus.COMPLETED and task.handle == "multi-image"
    assert len(sandbox.tasks[task.id].submit_body["image_urls"]) == 3
    assert any(r.path == f"/openapi/v1/multi-image-to-3d/{task.id}" for r in sandbox.requests)


# ---------------------------------------------------------------------- the key stays home


def test_the_key_goes_only_to_the_api_origin(client: Client, sandbox: Sandbox, tmp_path: Path) -> None:
    assert sandbox.cdn_base_url, "the second loopback host is needed to stand for Meshy's CDN"
    first = len(sandbox.requests)
    task = wait(
        client,
        client.submit(Order(kind="text", prompt="a stool", options={"texture": False}), idempotency_key="k"),
    )
    assert task.result is not None and task.result.mesh_url
    assert task.result.mesh_url.startswith(sandbox.cdn_base_url)
    client.download(task.result.mesh_url, tmp_path / "stool.glb", check=check_glb)
    seen = sandbox.requests[first:]
    files = [r for r in seen if r.path.startswith("/files/")]
    api = [r for r in seen if r.path.startswith("/openapi/")]
    assert files and api
    assert all("Authorization" not in r.headers for r in files)
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in api)


# ---------------------------------------------------------------------- options and their fields


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (
            Order(kind="text", prompt="a vase", tier="meshy-6", options={"quad": True, "polygons": 5000}),
            {
                "mode": "preview",
                "ai_model": "meshy-6",
                "topology": "quad",
                "target_polycount": 5000,
                "should_remesh": True,
            },
        ),
        (Order(kind="text", prompt="a vase"), {"ai_model": "meshy-7.1", "art_style": None}),
        (Order(kind="text", prompt="a vase", options={"quad": False}), {"topology": "triangle"}),
        (
            Order(kind="image", options={"texture": False, "pbr": True}),
            {"should_texture": False, "enable_pbr": True},
        ),
        (Order(kind="image", options={"polygons": 0}), {"ai_model": "meshy-7.1"}),
    ],
)
def test_each_option_reaches_meshy_under_its_documented_field(
    client: Client, sandbox: Sandbox, png: Path, order: Order, expected: dict[str, Any]
) -> None:
    if order.kind == "image":
        order = Order(kind="image", image_path=str(png), tier=order.tier, options=order.options)
    task = client.submit(order, idempotency_key="opt")
    sent = sandbox.tasks[task.id].submit_body
    assert {name: sent.get(name) for name in expected} == expected
    if order.options.get("polygons") == 0:
        assert "target_polycount" not in sent and "should_remesh" not in sent


def test_pbr_of_a_text_job_goes_with_its_refine(client: Client, sandbox: Sandbox) -> None:
    preview = wait(client, client.submit(Order(kind="text", prompt="a lamp"), idempotency_key="p"))
    order = Order(kind="text", prompt="a lamp", stage=1, previous_task_id=preview.id, options={"pbr": True})
    task = client.submit(order, idempotency_key="r")
    assert sandbox.tasks[task.id].submit_body == {
        "mode": "refine",
        "preview_task_id": preview.id,
        "ai_model": "meshy-7.1",
        "enable_pbr": True,
    }


# ---------------------------------------------------------------------- refused before sending


@pytest.mark.parametrize(
    "order",
    [
        Order(kind="image", image_path="front.png", views=("b.png", "l.png", "r.png", "extra.png")),
        Order(kind="text", prompt="x", tier="meshy-9"),
    ],
)
def test_what_meshy_lacks_is_refused_with_nothing_sent(sandbox: Sandbox, order: Order) -> None:
    first = len(sandbox.requests)
    said = refusal(INFO.capabilities, INFO.name, order)
    assert said is not None and "Meshy" in english_message(said)
    assert len(sandbox.requests) == first


@pytest.mark.parametrize(
    ("order", "entry"),
    [
        (Order(kind="image", image_path="PNG", options={"style": "realistic"}), words.SERVICE_LACKS_OPTION),
        (Order(kind="text", prompt="x", options={"polygons": 50}), words.MESHY_POLYGONS_RANGE),
        (Order(kind="text", prompt="x", options={"style": "sculpture"}), words.SERVICE_LACKS_OPTION),
        (Order(kind="text", prompt="x", tier="meshy-5"), words.SERVICE_TIER_RETIRED),
        (Order(kind="image", image_path="PNG", tier="meshy-5"), words.SERVICE_TIER_RETIRED),
        (Order(kind="text", prompt="x" * 601), words.PROMPT_TOO_LONG),
        (Order(kind="text", prompt="x", stage=1), words.MESHY_NO_PREVIEW),
        (Order(kind="image", image_path="WEBP"), words.MESHY_IMAGE_FORMAT),
    ],
)
def test_what_the_client_refuses_sends_nothing(
    client: Client, sandbox: Sandbox, tmp_path: Path, png: Path, order: Order, entry: str
) -> None:
    if order.image_path == "PNG":
        order = Order(kind="image", image_path=str(png), tier=order.tier, options=order.options)
    elif order.image_path == "WEBP":
        order = Order(kind="image", image_path=str(write_concept(tmp_path, "chair", "webp")))
    first = len(sandbox.requests)
    with pytest.raises(InputError) as caught:
        client.submit(order, idempotency_key="refused")
    assert caught.value.message.name == next(n for n, v in vars(words).items() if v is entry)
    assert len(sandbox.requests) == first


# ---------------------------------------------------------------------- states


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("PENDING", TaskStatus.QUEUED),
        ("IN_PROGRESS", TaskStatus.RUNNING),
        ("SUCCEEDED", TaskStatus.COMPLETED),
        ("FAILED", TaskStatus.FAILED),
        ("CANCELED", TaskStatus.FAILED),
        ("EXPIRED", TaskStatus.FAILED),
        ("SOMETHING_NEW", TaskStatus.RUNNING),
    ],
)
def test_every_state_word_maps_onto_kiln_states(word: str, status: TaskStatus) -> None:
    task = task_from("t1", "text", {"status": word, "progress": "40", "task_error": {"message": "no"}})
    assert task.status is status and task.raw_status == word
    assert (task.error is not None) is (status is TaskStatus.FAILED)


def test_odd_fields_are_taken_tolerantly() -> None:
    task = task_from(
        "t1",
        "image",
        {"status": "SUCCEEDED", "progress": True, "model_urls": {"glb": 7}, "thumbnail_url": "x" * 10_000},
    )
    assert task.status is TaskStatus.COMPLETED and task.progress == 100.0 and task.result is None
    assert task_from("t1", "text", {"status": ["x"], "progress": 1e400}).status is TaskStatus.RUNNING
    huge = task_from("t1", "text", {"status": "IN_PROGRESS", "progress": 10**400, "face_count": 10**400})
    assert huge.progress is None, "an integer too large for a float is not said, never an OverflowError"


def test_states_reached_on_the_stand_in(client: Client, sandbox: Sandbox) -> None:
    made = client.submit(Order(kind="text", prompt="a crate"), idempotency_key="s")
    first = client.get_task(made.id, handle="text")
    assert first.raw_status in ("PENDING", "IN_PROGRESS", "SUCCEEDED")
    sandbox.fail_now(made.id, "The model could not be generated.")
    failed = client.get_task(made.id, handle="text")
    assert failed.status is TaskStatus.FAILED and failed.error == "The model could not be generated."
    for word in ("CANCELED", "EXPIRED"):
        sandbox.tasks[made.id].forced = (word, None)
        task = client.get_task(made.id, handle="text")
        assert task.status is TaskStatus.FAILED and task.raw_status == word and task.error


def test_a_failing_prompt_fails_with_meshys_reason(client: Client) -> None:
    task = wait(client, client.submit(Order(kind="text", prompt="a box [meshy:fail]"), idempotency_key="f"))
    assert task.status is TaskStatus.FAILED
    assert task.error == "The model could not be generated from this input."


def test_cancel_deletes_the_task_on_its_own_path(client: Client, sandbox: Sandbox, png: Path) -> None:
    task = client.submit(Order(kind="image", image_path=str(png)), idempotency_key="c")
    client.cancel_task(task.id, handle=task.handle)
    assert any(
        r.method == "DELETE" and r.path == f"/openapi/v1/image-to-3d/{task.id}" for r in sandbox.requests
    )
    with pytest.raises(NotFoundError):
        client.get_task(task.id, handle=task.handle)
    with pytest.raises(NotFoundError):
        client.cancel_task(task.id, handle=task.handle)


def test_a_task_is_polled_on_the_endpoint_that_made_it(client: Client, png: Path) -> None:
    task = client.submit(Order(kind="image", image_path=str(png)), idempotency_key="h")
    with pytest.raises(NotFoundError):
        client.get_task(task.id, handle="text")
    assert client.get_task(task.id, handle="image").id == task.id


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("prompt", "kind", "entry", "named"),
    [
        ("[meshy:400]", BadRequestError, words.SERVICE_REFUSED_REQUEST, False),
        ("[meshy:content]", BadRequestError, words.MESHY_CONTENT_REFUSED, True),
        ("[meshy:403]", AuthError, words.SERVICE_KEY_FORBIDDEN, True),
        ("[meshy:429]", RateLimitError, words.SERVICE_BUSY_WAIT, True),
        ("[meshy:pending]", RateLimitError, words.SERVICE_BUSY, True),
        ("[meshy:credits-code]", CreditsError, words.SERVICE_OUT_OF_CREDITS, True),
    ],
)
def test_each_documented_error_becomes_its_kiln_error(
    client: Client, prompt: str, kind: type[KilnError], entry: str, named: bool
) -> None:
    with pytest.raises(KilnError) as caught:
        client.submit(Order(kind="text", prompt=f"a cup {prompt}"), idempotency_key="e")
    error = caught.value
    assert isinstance(error, kind)
    shown = english_message(error.message)
    if named:
        assert "Meshy" in shown
    names = {error.message.name}
    inner = error.message.values.get("said")
    if inner is not None:
        names.add(inner.name)
    assert next(n for n, v in vars(words).items() if v is entry) in names
    if isinstance(error, RateLimitError) and prompt == "[meshy:429]":
        assert error.retry_after == 7
    if isinstance(error, BadRequestError) and prompt == "[meshy:content]":
        assert "content policy" in error.details


def test_a_500_on_the_paid_submit_is_never_sent_again(client: Client, sandbox: Sandbox) -> None:
    first = len(sandbox.requests)
    with pytest.raises(OutcomeUnknownError) as caught:
        client.submit(Order(kind="text", prompt="a cup [meshy:500]"), idempotency_key="e5")
    assert "HTTP 500" in caught.value.details
    assert len(sandbox.requests) == first + 1


def test_a_500_on_a_poll_is_a_service_problem(client: Client) -> None:
    with pytest.raises(NotFoundError):
        client.get_task("gone", handle="image")
    assert ServiceError(500).message.name == "SERVICE_PROBLEM"


def test_a_bad_key_is_an_auth_error_naming_meshy(sandbox: Sandbox) -> None:
    wrong = Client(sandbox.base_url, "msy_live_wrongwrong0000")
    with wrong, pytest.raises(AuthError) as caught:
        wrong.check_connection()
    assert english_message(caught.value.message).startswith("Meshy: ")
    assert caught.value.message.values["said"].name == "SERVICE_KEY_REJECTED"


def test_out_of_credits_is_a_credits_error(png: Path) -> None:
    with Sandbox(service="meshy", keys=[KEY], speed=50.0, credits=25) as poor:
        client = Client(poor.base_url, KEY)
        with pytest.raises(CreditsError) as caught:
            client.submit(Order(kind="image", image_path=str(png)), idempotency_key="poor")
        assert "Meshy" in english_message(caught.value.message)
        assert poor.credits_left(KEY) == 25
        assert client.balance() == 25
        client.close()


def test_an_unknown_task_is_not_found(client: Client) -> None:
    with pytest.raises(NotFoundError):
        client.get_task("0193-does-not-exist", handle="text")


# ---------------------------------------------------------------------- the account


def test_balance_and_connection_check(client: Client, sandbox: Sandbox) -> None:
    left = client.balance()
    assert left == sandbox.credits_left(KEY)
    said = client.check_connection()
    assert said.name == "CONNECTED_WITH_BALANCE" and said.values["service"] == "Meshy"
    assert said.values["amount"] == f"{left:,}"


def test_capabilities_are_meshys() -> None:
    caps = info("MESHY").capabilities
    assert caps.takes("text") and caps.takes("image") and caps.max_views == 4
    assert caps.cancel and caps.balance and not caps.idempotency
    assert caps.price("image", "meshy-6") == 30 and caps.price("text", "meshy-6") == 30
    # meshy-7.1, the default, has no published price: unknown, never free.
    assert caps.price("image") is None and caps.price("text") is None
    assert caps.polygons == (100, 300_000)
    assert json.dumps(sorted(caps.options)) == json.dumps(["pbr", "polygons", "quad", "texture"])
    assert not caps.styles


def test_meshy_offers_its_active_models_and_knows_the_retired_one_by_name() -> None:
    """Meshy's deprecations page (checked 2026-11-28): meshy-7.1 and meshy-6 active, meshy-5 retired
    2026-10-10. A retired model is never offered, but a job naming it is refused by name."""
    caps = info("MESHY").capabilities
    for kind in ("text", "image"):
        assert [tier.id for tier in caps.tiers(kind)] == ["meshy-7.1", "meshy-6"]
        assert caps.default_tier(kind) == "meshy-7.1"
        (retired,) = [tier for tier in caps.known_tiers(kind) if tier.retired()]
        assert (retired.id, retired.retires) == ("meshy-5", "2026-10-10")
    said = refusal(caps, "Meshy", Order(kind="text", prompt="a vase", tier="meshy-5"))
    assert said is not None and said.name == "SERVICE_TIER_RETIRED"
    assert "Meshy" in english_message(said) and "meshy-5" in english_message(said)


# ---------------------------------------------------------------------- what Meshy can do beyond one prompt


def test_a_missing_view_in_the_middle_is_left_out_of_image_urls(
    client: Client, sandbox: Sandbox, png: Path
) -> None:
    before = len(sandbox.tasks)
    order = Order(kind="image", image_path=str(png), views=("", "", str(png)))
    task = client.submit(order, idempotency_key="gap")
    assert task.handle == "multi-image"
    (body,) = bodies(sandbox, before)
    assert len(body["image_urls"]) == 2


def test_a_retexture_sends_the_mesh_as_a_data_uri_and_its_style(
    client: Client, sandbox: Sandbox, tmp_path: Path, png: Path
) -> None:
    mesh = tmp_path / "crate.glb"
    first = client.submit(
        Order(kind="text", prompt="a crate", options={"texture": False}), idempotency_key="m"
    )
    done = wait(client, first)
    assert done.result is not None and done.result.mesh_url
    client.download(done.result.mesh_url, mesh)
    before, left = len(sandbox.tasks), sandbox.credits_left(KEY)
    order = Order(kind="retexture", prompt="rusty metal", model_path=str(mesh), options={"pbr": True})
    task = client.submit(order, idempotency_key="rt")
    assert task.handle == "retexture"
    (body,) = bodies(sandbox, before)
    assert body["model_url"].startswith("data:application/octet-stream;base64,")
    assert body["text_style_prompt"] == "rusty metal" and body["enable_pbr"] is True
    assert left - sandbox.credits_left(KEY) == info("MESHY").capabilities.price("retexture") == 10
    finished = wait(client, task)
    assert finished.status is TaskStatus.COMPLETED
    client.download(finished.result.mesh_url, tmp_path / "new.glb", check=check_glb)  # type: ignore[union-attr]
    by_image = client.submit(
        Order(kind="retexture", image_path=str(png), model_path=str(mesh)), idempotency_key="rti"
    )
    body = bodies(sandbox, before + 1)[0]
    assert body["image_style_url"].startswith("data:image/png;base64,") and "text_style_prompt" not in body
    assert by_image.handle == "retexture"


def test_a_retexture_option_meshy_lacks_is_refused_with_nothing_sent(sandbox: Sandbox) -> None:
    order = Order(kind="retexture", prompt="rusty", model_path="m.glb", options={"quad": True})
    said = refusal(INFO.capabilities, INFO.name, order)
    assert said is not None and said.name == "SERVICE_LACKS_OPTION"


def test_texture_off_costs_what_meshy_publishes_less() -> None:
    caps = info("MESHY").capabilities
    assert caps.price("image", "meshy-6", {"texture": False}) == 20
    assert caps.price("text", "meshy-6", {"texture": False}) == 20


@pytest.mark.parametrize("tier", [tier.id for tier in INFO.capabilities.tiers("text")])
def test_every_tier_kiln_offers_lands_on_meshys_current_api(
    client: Client, sandbox: Sandbox, tier: str
) -> None:
    """A text job per offered tier, on the stand-in that takes what Meshy's deprecations page lists."""
    task = wait(client, client.submit(Order(kind="text", prompt="a vase", tier=tier), idempotency_key=tier))
    assert task.status is TaskStatus.COMPLETED
    assert sandbox.tasks[task.id].submit_body["ai_model"] == tier


@pytest.mark.parametrize("model", ["meshy-5", "meshy-4"])
def test_the_stand_in_refuses_a_retired_model_as_meshy_says_it_does(sandbox: Sandbox, model: str) -> None:
    """Meshy's deprecations page: "Requests that use a retired model return an error"."""
    answer = requests.post(
        f"{sandbox.base_url}/openapi/v2/text-to-3d",
        json={"mode": "preview", "prompt": "a vase", "ai_model": model},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=10,
    )
    assert answer.status_code == 400 and "retired" in answer.json()["message"]
