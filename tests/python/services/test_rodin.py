"""Hyper3D Rodin: Kiln's client against the stand-in written from Rodin's reference, over real HTTP.

Text and image jobs to a checked GLB, every documented state and error to its Kiln meaning, the key
seen by the API origin only, each option under its documented field, what Rodin lacks refused
before anything is sent, and the balance; each tier Kiln offers (Gen-2.5 first) landing.

No vendor-client contract test here, unlike Meshy's (test_meshy_vendor_contract.py): Hyper3D publishes
no client of its own in a package registry (checked 2026-11-28: PyPI's ``rodin-gen2-mcp`` 0.3.6 is a
third party's, Igor Nazarov's; npm has none), so Rodin's wire is checked against its reference pages
(the Gen-2.5 Generation page among them) and this stand-in only.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

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
from api.http.models import TaskStatus
from api.services import Order, info, make_client, refusal
from api.services.rodin.client import Client, _files, _pick
from sandbox.server import Sandbox

KEY = "rodin_live_rodintest0000"
OTHER_KEY = "rodin_live_notthiskey0000"
RODIN = info("RODIN")


@pytest.fixture(scope="module")
def sandbox() -> Any:
    with Sandbox(service="rodin", keys=[KEY], speed=50.0) as sb:
        yield sb


@pytest.fixture
def client(sandbox: Sandbox) -> Any:
    with make_client("RODIN", sandbox.base_url, KEY) as made:
        yield made


def finish(client: Any, task: Any, timeout: float = 30.0) -> Any:
    """Poll as the engine would (faster), until the task is final."""
    deadline = time.monotonic() + timeout
    while not task.is_final:
        assert time.monotonic() < deadline, f"task still {task.status} after {timeout} s"
        time.sleep(0.05)
        task = client.get_task(task.id, handle=task.handle)
    return task


def rodin_posts(sandbox: Sandbox) -> int:
    return sum(1 for r in sandbox.requests if r.method == "POST" and r.path == "/api/v2/rodin")


def picture(folder: Path, name: str, mode: str = "RGBA") -> Path:
    image = Image.new(mode, (256, 256), (0, 0, 0, 0) if mode == "RGBA" else (255, 255, 255))
    for x in range(64, 192):
        for y in range(48, 208):
            image.putpixel((x, y), (200, 60, 40, 255) if mode == "RGBA" else (200, 60, 40))
    path = folder / name
    image.save(path)
    return path


# ------------------------------------------------------------------ whole jobs


def test_a_text_job_is_made_followed_and_downloaded(sandbox: Sandbox, client: Any, tmp_path: Path) -> None:
    task = client.submit(Order(kind="text", prompt="a red chair"), idempotency_key="text-1")
    assert task.status is TaskStatus.QUEUED and task.handle.startswith("sub-")
    done = finish(client, task)
    assert done.status is TaskStatus.COMPLETED and done.raw_status == "Done" and done.progress == 100.0
    assert done.result.mesh_url.endswith("base_basic_pbr.glb")
    assert done.result.preview_image_url.endswith("preview.webp")
    mesh = client.download(done.result.mesh_url, tmp_path / "chair.glb", check=check_glb)
    check_glb(mesh)
    preview = client.download(done.result.preview_image_url, tmp_path / "chair.webp")
    assert preview.read_bytes()[8:12] == b"WEBP"
    fields = sandbox.tasks[task.id].submit_body["received"]
    assert fields["prompt"] == "a red chair" and fields["tier"] == "Gen-2.5-Medium"  # Kiln's default
    assert fields["geometry_file_format"] == "glb" and fields["images"] == 0


def test_an_image_job_sends_every_view_of_one_object(sandbox: Sandbox, client: Any, tmp_path: Path) -> None:
    front = picture(tmp_path, "front.png")
    back, left = picture(tmp_path, "back.png", "RGB"), picture(tmp_path, "left.png", "RGB")
    order = Order(kind="image", image_path=str(front), views=(str(back), str(left)), tier="Gen-2")
    task = client.submit(order, idempotency_key="image-1")
    done = finish(client, task)
    assert done.status is TaskStatus.COMPLETED
    check_glb(client.download(done.result.mesh_url, tmp_path / "relief.glb"))
    fields = sandbox.tasks[task.id].submit_body["received"]
    assert fields["images"] == 3 and fields["tier"] == "Gen-2"
    assert fields["condition_mode"] == "concat"  # views of one object
    assert fields["use_original_alpha"] == "true"  # the front PNG has its own cut-out
    assert "prompt" not in fields  # optional with images: Rodin writes its own


def test_a_list_without_the_mesh_yet_keeps_the_task_running(client: Any) -> None:
    task = client.submit(Order(kind="text", prompt="a lamp [late-files]"), idempotency_key="late-1")
    deadline = time.monotonic() + 30
    seen = []
    while not task.is_final and time.monotonic() < deadline:
        time.sleep(0.05)
        task = client.get_task(task.id, handle=task.handle)
        seen.append((task.status, task.raw_status))
    assert (TaskStatus.RUNNING, "Done") in seen  # every job Done, but the file list lacked the GLB
    assert task.status is TaskStatus.COMPLETED and task.result.mesh_url.endswith(".glb")


# ------------------------------------------------------------------ states

STATES = [
    (["Waiting", "Waiting"], TaskStatus.QUEUED, "Waiting"),
    (["Generating", "Waiting"], TaskStatus.RUNNING, "Generating"),
    (["Done", "Generating"], TaskStatus.RUNNING, "Generating"),
    (["Done", "Done"], TaskStatus.COMPLETED, "Done"),
    (["Done", "Failed"], TaskStatus.FAILED, "Failed"),
    (["Generating", "Canceled"], TaskStatus.FAILED, "Failed"),
    (["Done", "Reticulating"], TaskStatus.RUNNING, "Reticulating"),  # an unknown word: still running
    ([], TaskStatus.QUEUED, ""),
]


@pytest.mark.parametrize(("words", "status", "raw"), STATES)
def test_each_state_word_of_check_status(words: list[str], status: TaskStatus, raw: str) -> None:
    client = Client("https://api.hyper3d.com", KEY)
    answer = {"error": "OK", "jobs": [{"uuid": f"job-{i}", "status": word} for i, word in enumerate(words)]}
    task = client._task_from_status("task-1", "sub-1", answer)
    assert (task.status, task.raw_status, task.handle) == (status, raw, "sub-1")
    if status is TaskStatus.FAILED:
        assert "job-1" in (task.error or "")


@pytest.mark.parametrize("word", ["Failed", "Canceled"])
def test_a_failed_job_fails_the_task_with_the_services_reason(
    sandbox: Sandbox, client: Any, word: str
) -> None:
    magic = " [canceled]" if word == "Canceled" else ""
    task = client.submit(Order(kind="text", prompt="a mug" + magic), idempotency_key=f"fail-{word}")
    sandbox.fail_now(task.id)
    failed = client.get_task(task.id, handle=task.handle)
    assert failed.status is TaskStatus.FAILED and word in (failed.error or "")


def test_a_download_list_of_odd_entries_still_gives_the_mesh_and_preview() -> None:
    odd: list[Any] = [
        "not an entry",
        {"url": 42, "name": "model.glb"},
        {"url": "https://cdn.example/" + "x" * 9000 + ".glb", "name": "huge.glb"},
        {"url": "https://cdn.example/a/base_basic_shaded.glb", "name": None},
        {"url": "https://cdn.example/a/b.glb?sig=1", "name": "Base_Basic_PBR.GLB"},
        {"url": "https://cdn.example/a/preview.webp"},
    ]
    files = _files(odd)
    assert _pick(files, (".glb",), ("pbr", "textured", "shaded", "")) == "https://cdn.example/a/b.glb?sig=1"
    assert _pick(files, (".webp", ".png"), ("preview", "")) == "https://cdn.example/a/preview.webp"
    assert _pick(_files({"list": "not a list"}), (".glb",), ("",)) is None


# ------------------------------------------------------------------ errors


def said(error: KilnError) -> tuple[str, str]:
    """The entry an error says, and the entry inside ``{service}: {said}`` when it is one."""
    inner = error.message.values.get("said")
    return error.message.name, inner.name if inner is not None else ""


SUBMIT_ERRORS = [
    ("[refuse]", BadRequestError, ("RODIN_CONTENT_REFUSED", ""), "CONTENT_REJECTED"),
    ("[nofund]", CreditsError, ("RODIN_OUT_OF_CREDITS", ""), "INSUFFICIENT_FUND"),
    ("[busy]", RateLimitError, ("SERVICE_SAID", "SERVICE_BUSY_WAIT"), "TOO_MANY_REQUESTS"),
    ("[crash]", OutcomeUnknownError, ("OUTCOME_UNKNOWN", ""), "HTTP 500"),
]


@pytest.mark.parametrize(("magic", "kind", "entries", "code"), SUBMIT_ERRORS)
def test_each_refusal_of_a_generation(
    sandbox: Sandbox, client: Any, magic: str, kind: type, entries: tuple[str, str], code: str
) -> None:
    before = len(sandbox.tasks)
    with pytest.raises(kind) as caught:
        client.submit(Order(kind="text", prompt=f"a chair {magic}"), idempotency_key=f"e-{magic}")
    assert said(caught.value) == entries
    assert code in caught.value.details  # the service's own code kept for Copy Details
    assert len(sandbox.tasks) == before
    if entries[0] in ("RODIN_CONTENT_REFUSED", "RODIN_OUT_OF_CREDITS", "SERVICE_SAID"):
        assert "Hyper3D Rodin" in caught.value.user_message
    if kind is RateLimitError:
        assert caught.value.retry_after == 7


def test_a_key_the_service_does_not_know(sandbox: Sandbox) -> None:
    with make_client("RODIN", sandbox.base_url, OTHER_KEY) as stranger, pytest.raises(AuthError) as caught:
        stranger.check_connection()
    assert said(caught.value) == ("SERVICE_SAID", "SERVICE_KEY_REJECTED")
    assert "Hyper3D Rodin" in caught.value.user_message and "INVALID_API_KEY" in caught.value.details


def test_a_subscription_key_the_service_does_not_know(client: Any) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.get_task("8a0d4c55-0000-4000-8000-000000000000", handle="sub-unknown")
    assert caught.value.message.name == "SERVICE_FORGOT_JOB" and "TASK_NOT_FOUND" in caught.value.details


def test_a_task_id_alone_resolves_to_its_mesh(sandbox: Sandbox, client: Any) -> None:
    """Add Job by ID: a pasted task id, no subscription key; Download Results says when it is done."""
    assert RODIN.capabilities.follows_by_id
    made = client.submit(Order(kind="text", prompt="a lamp [late-files]"), idempotency_key="by-id-1")
    statuses_before = sum(1 for r in sandbox.requests if r.path == "/api/v2/status")
    task = client.get_task(made.id, handle="")
    assert task.status is TaskStatus.RUNNING and task.result is None  # no GLB in the list yet
    done = finish(client, task)
    assert done.status is TaskStatus.COMPLETED and done.result.mesh_url.endswith("base_basic_pbr.glb")
    assert sum(1 for r in sandbox.requests if r.path == "/api/v2/status") == statuses_before  # never asked


def test_a_task_id_the_service_does_not_know(client: Any) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.get_task("8a0d4c55-0000-4000-8000-000000000000", handle="")
    assert caught.value.message.name == "SERVICE_FORGOT_JOB" and "TASK_NOT_FOUND" in caught.value.details


def test_the_sandboxs_faults_reach_rodins_paths(sandbox: Sandbox, client: Any) -> None:
    task = client.submit(Order(kind="text", prompt="a cup"), idempotency_key="faults")
    try:
        sandbox.set_faults("503=1,retry_after=3,scope=poll")
        with pytest.raises(ServiceError) as caught:
            client.get_task(task.id, handle=task.handle)
        assert caught.value.status == 503 and caught.value.retry_after == 3
        sandbox.set_faults("lost=1,scope=submit")
        made = len(sandbox.tasks)
        with pytest.raises(OutcomeUnknownError):
            client.submit(Order(kind="text", prompt="a cup"), idempotency_key="lost")
        assert len(sandbox.tasks) == made + 1  # it was made and charged: never sent again by Kiln
    finally:
        sandbox.set_faults("")


ANSWER_ERRORS = [
    ({"error": "INSUFFICIENT_FUND"}, CreditsError),
    ({"error": "NOT_AUTHENTICATED", "message": "Not authenticated"}, AuthError),
    ({"error": "RATE_LIMITED", "message": "Requests too frequent"}, RateLimitError),
    ({"error": "NSFW", "message": "Content policy"}, BadRequestError),
    ({"error": "TASK_NOT_FOUND"}, NotFoundError),
    ({"error": "SOMETHING_ELSE", "message": "?"}, BadRequestError),
    ({"error": {"odd": ["shape"]}}, BadRequestError),
]


@pytest.mark.parametrize(("answer", "kind"), ANSWER_ERRORS)
def test_an_error_inside_a_2xx_answer(answer: dict[str, Any], kind: type) -> None:
    client = Client("https://api.hyper3d.com", KEY)
    error = client._error_in(answer, status=201, task_id="task-1")
    assert type(error) is kind
    assert client._error_in({"error": "OK", "jobs": []}, status=201) is None
    assert client._error_in({"jobs": []}, status=201) is None


def test_an_unreadable_status_answer_is_the_services_problem() -> None:
    client = Client("https://api.hyper3d.com", KEY)
    with pytest.raises(ServiceError):
        client._task_from_status("task-1", "sub-1", ["not", "an", "object"])


# ------------------------------------------------------------------ the key, the options, refusals


def test_the_key_goes_to_the_api_origin_only(sandbox: Sandbox, client: Any, tmp_path: Path) -> None:
    start = len(sandbox.requests)
    task = finish(client, client.submit(Order(kind="text", prompt="a rock"), idempotency_key="key-1"))
    client.download(task.result.mesh_url, tmp_path / "rock.glb")
    client.download(task.result.preview_image_url, tmp_path / "rock.webp")
    if sandbox.cdn_base_url:
        assert task.result.mesh_url.startswith(sandbox.cdn_base_url)
    seen = sandbox.requests[start:]
    api = [r for r in seen if r.path.startswith("/api/v2/")]
    files = [r for r in seen if r.path.startswith("/files/")]
    assert api and all(r.headers.get("authorization") == f"Bearer {KEY}" for r in api)
    assert files and all("authorization" not in r.headers for r in files)


OPTIONS = [
    ({"pbr": True}, {"material": "PBR"}),
    ({"pbr": False}, {"material": "Shaded"}),
    ({"quad": True}, {"mesh_mode": "Quad"}),
    ({"quad": False}, {"mesh_mode": "Raw"}),
    ({"polygons": 18_000}, {"quality_override": "18000"}),
    ({"polygons": 0}, {}),
]


@pytest.mark.parametrize(("options", "fields"), OPTIONS)
def test_each_option_reaches_rodin_under_its_documented_field(
    sandbox: Sandbox, client: Any, options: dict[str, Any], fields: dict[str, str]
) -> None:
    task = client.submit(Order(kind="text", prompt="a table", options=options), idempotency_key="o")
    received = sandbox.tasks[task.id].submit_body["received"]
    names = ("material", "mesh_mode", "quality_override")
    sent = {name: received[name] for name in names if name in received}
    assert sent == fields


def test_what_rodin_lacks_is_refused_before_anything_is_sent(sandbox: Sandbox, client: Any) -> None:
    before = rodin_posts(sandbox)
    orders = {
        "SERVICE_LACKS_OPTION": Order(kind="text", prompt="a chair", options={"texture": False}),
        "SERVICE_TIER_UNKNOWN": Order(kind="text", prompt="a chair", tier="Ultra"),
        "SERVICE_TAKES_NO_IMAGE_URL": Order(kind="image", image_url="https://example.com/a.png"),
        "SERVICE_TAKES_FEWER_VIEWS": Order(kind="image", image_path="a.png", views=("b",) * 5),
        "RODIN_POLYGONS_OUT_OF_RANGE": Order(kind="text", prompt="a chair", options={"polygons": 10}),
    }
    for entry, order in orders.items():
        with pytest.raises(InputError) as caught:
            client.submit(order, idempotency_key="refused")
        assert caught.value.message.name == entry
        assert "Hyper3D Rodin" in caught.value.user_message
    style = Order(kind="text", prompt="a chair", options={"style": "cartoon"})
    with pytest.raises(InputError):
        client.submit(style, idempotency_key="refused")
    assert rodin_posts(sandbox) == before


def test_the_balance_is_read(sandbox: Sandbox, client: Any) -> None:
    left = sandbox.credits_left(KEY)
    assert client.balance() == left
    connected = client.check_connection()
    assert connected.name == "CONNECTED_WITH_BALANCE"
    assert connected.values["n"] == left and connected.values["service"] == "Hyper3D Rodin"
    client.submit(Order(kind="text", prompt="a sword"), idempotency_key="paid")
    assert client.balance() == left - 1


def test_what_kiln_shows_of_rodin() -> None:
    caps = RODIN.capabilities
    assert RODIN.api_origin == "https://api.hyper3d.com"
    assert caps.takes("text") and caps.takes("image") and caps.max_views == 5
    assert caps.options == {"pbr", "quad", "polygons"} and caps.balance and not caps.cancel
    assert caps.price("text") == 0.5  # half a credit, shown as it is


def test_a_missing_view_in_the_middle_is_left_out(sandbox: Sandbox, client: Any, tmp_path: Path) -> None:
    front, right = picture(tmp_path, "front.png"), picture(tmp_path, "right.png", "RGB")
    order = Order(kind="image", image_path=str(front), views=("", "", str(right)))
    task = client.submit(order, idempotency_key="gap-1")
    fields = sandbox.tasks[task.id].submit_body["received"]
    assert fields["images"] == 2 and "condition_mode" not in fields  # Gen-2.5 (the default) has none


def test_rodin_offers_its_gen_2_5_tiers_first_with_their_published_prices() -> None:
    """The Gen-2.5 Generation page: five tiers, 0.5 credit each but Extreme-High 1.0, shown as
    published; Detail and Smooth have no published price (unknown, never "free")."""
    caps = RODIN.capabilities
    offered = [tier.id for tier in caps.tiers("text")]
    assert offered[:5] == [
        "Gen-2.5-Extreme-Low",
        "Gen-2.5-Low",
        "Gen-2.5-Medium",
        "Gen-2.5-High",
        "Gen-2.5-Extreme-High",
    ]
    assert offered[5:] == ["Gen-2", "Regular", "Detail", "Smooth", "Sketch"]
    assert [tier.id for tier in caps.tiers("image")] == offered
    assert caps.default_tier("text") == caps.default_tier("image") == "Gen-2.5-Medium"
    assert caps.price("text", "Gen-2.5-Extreme-High") == 1 and caps.price("image", "Gen-2.5-High") == 0.5
    assert caps.price("text", "Detail") is None and caps.price("image", "Smooth") is None


@pytest.mark.parametrize("tier", [tier.id for tier in RODIN.capabilities.tiers("text")])
def test_every_tier_kiln_offers_lands_on_the_stand_in(sandbox: Sandbox, client: Any, tier: str) -> None:
    task = client.submit(
        Order(kind="text", prompt="a helmet", tier=tier, options={"quad": True}), idempotency_key=tier
    )
    assert finish(client, task).status is TaskStatus.COMPLETED
    fields = sandbox.tasks[task.id].submit_body["received"]
    assert fields["tier"] == tier and fields["mesh_mode"] == "Quad"


def test_rodin_offers_no_retexture_and_no_cancel_and_says_so(client: Any) -> None:
    caps = info("RODIN").capabilities
    said = refusal(caps, "Hyper3D Rodin", Order(kind="retexture", prompt="rusty", model_path="m.glb"))
    assert said is not None and said.name == "SERVICE_TAKES_NO_RETEXTURE"
    with pytest.raises(InputError) as caught:
        client.cancel_task("0193-some-task")
    assert caught.value.message.name == "SERVICE_CANNOT_CANCEL"
    assert "Hyper3D Rodin" in caught.value.user_message
