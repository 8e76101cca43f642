"""When Meshy or Rodin moves on: a model retired on the service's side, or a documented path that is
gone, ends in a sentence that names the service and asks for a newer Kiln — never one about the
artist's address or key — and nothing is sent twice. A job stored with a retired tier loads and is
refused in a sentence before anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api.errors import KilnError, ServiceMovedError
from api.jobs import Job, JobRequest
from api.jobs.service_side import refusal_of
from api.services import Order, make_client
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox
from sandbox.standins import meshy_checks

MESHY_KEY = "msy_live_movedon000000"
RODIN_KEY = "rodin_live_movedon0000"


@pytest.fixture(scope="module")
def meshy() -> Iterator[Sandbox]:
    with Sandbox(service="meshy", keys=[MESHY_KEY], speed=50.0, credits=10_000) as sb:
        yield sb


@pytest.fixture(scope="module")
def rodin() -> Iterator[Sandbox]:
    with Sandbox(service="rodin", keys=[RODIN_KEY], speed=50.0, credits=10_000) as sb:
        yield sb


def _says_update_kiln(error: KilnError, service: str) -> None:
    said = error.user_message
    assert isinstance(error, ServiceMovedError), repr(error)
    assert service in said and "Update Kiln" in said, said
    assert "address" not in said and "key" not in said.lower(), said


def test_a_model_meshy_retires_after_this_kiln_shipped_asks_for_a_newer_kiln(
    meshy: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Meshy's deprecations page: "Requests that use a retired model return an error"."""
    monkeypatch.setitem(meshy_checks.RETIRED_MODELS, "meshy-6", "2026-11-27")
    posts = len([r for r in meshy.requests if r.method == "POST"])
    with make_client("MESHY", meshy.base_url, MESHY_KEY) as client:
        with pytest.raises(KilnError) as text_job:
            client.submit(Order(kind="text", prompt="a vase", tier="meshy-6"), idempotency_key="t")
        png = write_concept(tmp_path, "chair", "png")
        with pytest.raises(KilnError) as image_job:
            client.submit(Order(kind="image", image_path=str(png), tier="meshy-6"), idempotency_key="i")
    _says_update_kiln(text_job.value, "Meshy")
    _says_update_kiln(image_job.value, "Meshy")
    assert len([r for r in meshy.requests if r.method == "POST"]) == posts + 2, "each sent once, never again"


@pytest.mark.parametrize("service", ["MESHY", "RODIN"])
def test_a_documented_path_that_answers_404_asks_for_a_newer_kiln(
    meshy: Sandbox, rodin: Sandbox, service: str
) -> None:
    """The service moved its API (here: every path under a prefix it no longer serves)."""
    sandbox, key, name = (meshy, MESHY_KEY, "Meshy") if service == "MESHY" else (rodin, RODIN_KEY, "Rodin")
    with make_client(service, sandbox.base_url + "/gone", key) as client, pytest.raises(KilnError) as caught:
        client.check_connection()
    _says_update_kiln(caught.value, name)


def test_a_tier_rodin_retires_asks_for_a_newer_kiln(rodin: Sandbox) -> None:
    posts = len([r for r in rodin.requests if r.method == "POST"])
    with make_client("RODIN", rodin.base_url, RODIN_KEY) as client, pytest.raises(KilnError) as caught:
        client.submit(Order(kind="text", prompt="a helm [retired]", tier="Gen-2"), idempotency_key="r")
    _says_update_kiln(caught.value, "Rodin")
    assert len([r for r in rodin.requests if r.method == "POST"]) == posts + 1


def test_a_stored_job_naming_meshy_5_loads_and_is_refused_before_anything_is_sent(meshy: Sandbox) -> None:
    """A job saved by an older Kiln (or a script) with the retired tier: it loads, and its refusal is
    a sentence naming Meshy and the model, never "unknown", never a traceback."""
    stored = Job(
        id="job-old", request=JobRequest(kind="text", prompt="a vase", service="MESHY", tier="meshy-5")
    )
    loaded = Job.from_json(stored.to_json())
    assert loaded.request.tier == "meshy-5"
    said = refusal_of(loaded.request)
    assert said is not None and said.name == "SERVICE_TIER_RETIRED"
    assert said.values["service"] == "Meshy" and said.values["tier"] == "meshy-5"
    requests = len(meshy.requests)
    with make_client("MESHY", meshy.base_url, MESHY_KEY) as client, pytest.raises(KilnError) as caught:
        client.submit(Order(kind="text", prompt="a vase", tier="meshy-5"), idempotency_key="old")
    assert caught.value.message.name == "SERVICE_TIER_RETIRED"
    assert len(meshy.requests) == requests
