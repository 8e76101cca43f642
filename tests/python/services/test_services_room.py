"""The services room as the rest of Kiln reads it: the registry, capabilities and prices, refusals,
where a service's key and address come from, and what a job keeps of its service."""

from __future__ import annotations

import json
import time

import pytest

from api.features import ledger, secrets, service_access
from api.features.credits import request_cost, request_price
from api.features.library_index import request_key
from api.jobs import Job, JobRequest, JobState, ServiceConfig
from api.jobs.engine import JobEngine
from api.jobs.model import Account
from api.jobs.service_side import refusal_of
from api.services import all_services, info, old_records_service, service_id, service_ids

SERVICE_IDS = service_ids()


def test_the_registry_knows_every_service_each_with_its_own_package_and_variables() -> None:
    found = all_services()
    assert [s.id for s in found] == list(SERVICE_IDS)
    assert list(SERVICE_IDS) == ["INTERFACE", "TRIPO", "MESHY", "RODIN", "FAL", "COMFYUI", "HUNYUAN3D"]
    assert len({s.base_url_env for s in found}) == len(found)
    assert len({s.key_env for s in found if s.needs_key}) == len([s for s in found if s.needs_key])
    assert [s.needs_address for s in found] == [True, False, False, False, False, True, True]
    assert all(s.api_origin.startswith("https://") for s in found if not s.needs_address)
    assert all(s.capabilities.takes("image") for s in found)
    # fal.ai's models Kiln speaks take an image only (a text job is refused before anything is sent).
    assert [s.id for s in found if not s.local and not s.capabilities.takes("text")] == ["FAL"]
    assert service_id("") == service_id("nonsense") == old_records_service() == "INTERFACE"
    assert service_id("tripo") == "TRIPO"


@pytest.mark.parametrize("service", SERVICE_IDS)
def test_each_services_default_tier_is_one_of_its_tiers(service: str) -> None:
    capabilities = info(service).capabilities
    for kind in ("text", "image"):
        if capabilities.takes(kind):
            assert capabilities.tier(kind, "") is not None, (service, kind)


def test_a_price_is_the_services_own_or_unknown_never_free() -> None:
    text = JobRequest(kind="text", prompt="a chair")
    assert request_cost(text) is None and request_cost(text, text_cost=3) == 3  # the artist's figure
    assert request_cost(text.to_service("TRIPO")) == 20
    assert request_cost(text.to_service("TRIPO"), text_cost=3) == 20, "the artist's text price is INTERFACE's"
    assert request_cost(text.to_service("MESHY")) is None  # meshy-7.1, the default: no published price
    assert request_price(text.to_service("RODIN")) == 0.5, "a fraction is the price as published"
    assert request_cost(text.to_service("RODIN")) == 1, "an agent's whole-credit budget counts it up"
    image = JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1024)
    assert request_cost(image) == 2 and request_cost(image.to_service("TRIPO")) == 30


def test_a_resolution_is_the_interface_services_tier_only() -> None:
    request = JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1024)
    assert request.tier_id == "1024"
    moved = request.to_service("MESHY")
    assert moved.resolution is None and moved.tier_id == "" and refusal_of(moved) is None


def test_what_a_service_cannot_take_is_refused_in_its_own_name() -> None:
    quad = JobRequest(kind="text", prompt="a chair", options=json.dumps({"quad": True})).to_service(
        "TRIPO", options=json.dumps({"quad": True})
    )
    said = refusal_of(quad)
    assert said is not None and "Tripo" in str(said.values) + said.name
    url = JobRequest(kind="image", image_url="https://x.example/a.png").to_service("RODIN")
    assert refusal_of(url) is not None
    views = JobRequest(kind="image", image_path="front.png", views=("back.png",))
    assert refusal_of(views) is not None, "the custom service takes one image"
    assert refusal_of(JobRequest(kind="text", prompt="a chair", tier="nope").to_service("MESHY", "nope"))


def test_the_engine_records_nothing_a_service_cannot_take(tmp_path: object) -> None:
    engine = JobEngine(tmp_path)  # type: ignore[arg-type]
    request = JobRequest(kind="image", image_url="https://x.example/a.png").to_service("RODIN")
    with pytest.raises(Exception) as caught:
        engine.record(request)
    assert "Hyper3D Rodin" in str(caught.value)
    assert engine.jobs() == []


def test_each_services_key_and_address_come_from_its_own_variables() -> None:
    environ = {"KILN_TRIPO_API_KEY": "tsk_live_fromenv0000", "KILN_MESHY_BASE_URL": "http://127.0.0.1:9"}
    tripo = service_access.credentials("", "", environ, "TRIPO")
    assert (tripo.api_key, tripo.base_url) == ("tsk_live_fromenv0000", "https://openapi.tripo3d.ai")
    assert tripo.key_from_environment and not tripo.url_from_environment
    meshy = service_access.credentials("msy_live_typed000000", "", environ, "MESHY")
    assert (meshy.api_key, meshy.base_url, meshy.url_from_environment) == (
        "msy_live_typed000000",
        "http://127.0.0.1:9",
        True,
    )
    assert service_access.credentials("k", "", environ, "INTERFACE").base_url == "", (
        "the custom service has no origin"
    )
    assert secrets.service_secret("INTERFACE") == secrets.API_KEY
    assert len({secrets.service_secret(s).account for s in SERVICE_IDS}) == len(SERVICE_IDS), (
        "a key kept per service"
    )


def test_the_config_gives_each_service_its_own_account() -> None:
    config = ServiceConfig(
        "https://custom.example",
        "sbx_live_custom0000",
        accounts=(Account("TRIPO", "https://openapi.tripo3d.ai", "tsk_live_x0000000"),),
    )
    assert config.account("INTERFACE").api_key == "sbx_live_custom0000"
    assert config.account("TRIPO").api_key == "tsk_live_x0000000"
    assert config.account("MESHY").api_key == "", "a service not set up has no key"


def test_a_job_keeps_its_service_tier_handle_and_stage_on_disk_and_older_records_mean_interface() -> None:
    job = Job(
        id="j1",
        request=JobRequest(kind="text", prompt="a chair", service="RODIN", tier="Gen-2", views=("b.png",)),
        task_id="uuid-1",
        task_handle="subscription-key",
        stage=1,
    )
    again = Job.from_json(json.loads(json.dumps(job.to_json())))
    assert again == job and again.request.views == ("b.png",)
    old = job.to_json()
    for name in ("service", "tier", "options", "views"):
        del old["request"][name]
    del old["task_handle"], old["stage"]
    assert Job.from_json(old).request.service_id == "INTERFACE"


def test_the_same_prompt_on_another_service_is_another_request() -> None:
    text = JobRequest(kind="text", prompt="a chair")
    keys = {request_key(text.to_service(s)) for s in SERVICE_IDS}
    assert len(keys) == len(SERVICE_IDS)
    assert request_key(text) == request_key(text.to_service("INTERFACE")), "the custom service's keys stay"


def test_a_session_on_several_services_is_said_service_by_service() -> None:
    now = time.time()

    def sent(service: str) -> Job:
        request = JobRequest(kind="text", prompt="a chair").to_service(service)
        return Job(id=service, request=request, state=JobState.IMPORTED, task_id="t", submitted_at=now)

    one = ledger.spending([sent("TRIPO")], [], None, now - 1)
    assert [str(m.name) for m in one.messages] == ["SPENT_THIS_SESSION"]
    both = ledger.spending([sent("TRIPO"), sent("MESHY")], [], None, now - 1)
    assert [m.values["service"] for m in both.messages] == ["Tripo", "Meshy"]


def test_a_mesh_whose_service_gives_no_count_is_counted_from_its_file() -> None:
    """Rodin says no triangle count: the GLB's accessors do (indices, else positions; strips too)."""
    from api.checks.glb import _triangles

    document = {
        "accessors": [{"count": 36}, {"count": 8}, {"count": 10}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": 1}, "indices": 0}]},
            {
                "primitives": [
                    {"attributes": {"POSITION": 2}, "mode": 5},
                    {"attributes": {"POSITION": 1}, "mode": 1},
                ]
            },
        ],
    }
    assert _triangles(document) == 12 + 8  # 36 indices; a strip of 10; lines draw none
    assert _triangles({"meshes": [{"primitives": [{"indices": 9}]}], "accessors": []}) is None
