"""Acceptance 1 of the open registry: a toy service registered at run time, by one call in this test
and nothing else, is offered everywhere a service is chosen (the Sidebar's menu, the operators'
``service=``, the agents' tool schemas, the batch file's ``service`` column, the farm template and
script, the estimate), and a job through it lands with ``kiln_service``."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recording_layout import draw, draw_preferences

from sandbox.server import Sandbox

ROOT = Path(__file__).resolve().parents[3]
KEY = "sbx_live_toyservicekey000"


@pytest.fixture
def toy(
    blender: Any, fresh_jobs: Path, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Sandbox]:
    """The toy service registered (the one call), its stand-in running, Kiln told where it is."""
    services = kiln_module("api.services")
    services.register_service("TOY", "toy_service", package="")
    with Sandbox(service="interface", keys=[KEY], speed=50.0) as server:
        monkeypatch.setenv("KILN_TOY_BASE_URL", server.base_url)
        monkeypatch.setenv("KILN_TOY_API_KEY", KEY)
        try:
            yield server
        finally:
            prefs = kiln_module("preferences").get()
            prefs.service = services.first_service()
            services.unregister_service("TOY")


def test_a_service_registered_at_run_time_is_offered_everywhere(
    toy: Sandbox, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    # The Sidebar's menu is the preferences' Service, drawn in the Generate panel: offered and choosable.
    offered = kiln_module("service_choices").service_items()
    assert ("TOY", "Toy") in [item[:2] for item in offered]
    prefs = kiln_module("preferences").get()
    prefs.service = "TOY"
    assert kiln_module("preferences").chosen_service() == "TOY"
    sidebar = draw(kiln_module("panels.generate").KILN_PT_generate, blender.context)
    assert "service" in sidebar.props() and "generate_from_text" in " ".join(sidebar.operator_ids())
    # The preferences ask for what the toy needs: its own key and its own address (none set in them).
    shown = draw_preferences(kiln_module("preferences"))
    assert {"api_key", "service_address"} <= set(shown.props())
    assert kiln_module("preferences").credentials().base_url == toy.base_url  # KILN_TOY_BASE_URL
    # The agents' tool schemas.
    tools = {tool["name"]: tool for tool in kiln_module("api.agents.tools").listing()}
    for name in ("estimate_cost", "generate_from_text", "generate_from_image"):
        assert "TOY" in tools[name]["inputSchema"]["properties"]["service"]["enum"], name
    # The estimate: the toy's own prices (the custom service's tiers it was made of).
    jobs, credits = kiln_module("api.jobs"), kiln_module("api.features.credits")
    image = jobs.JobRequest(kind="image", image_url="https://x.example/a.png", service="TOY", tier="1024")
    assert credits.request_cost(image) == 2
    estimate = kiln_module("api.agents.generate").ESTIMATE_ARGUMENTS.check(
        "estimate_cost", {"prompt": "a chair", "service": "toy"}
    )
    assert estimate["service"] == "TOY"
    # The batch file's service column.
    prompts = tmp_path / "prompts.csv"
    prompts.write_text("prompt,service\na stool,toy\na bench,\n", encoding="utf-8")
    batch = kiln_module("api.features.batch")
    items = [batch.going_to(item, "TRIPO") for item in batch.read_batch(prompts).items]
    assert [item.request.service_id for item in items] == ["TOY", "TRIPO"]
    # The farm: its template takes any registered id, and its script sends the lines there.
    template = (ROOT / "farm" / "kiln-batch.openjd.yaml").read_text(encoding="utf-8")
    service_parameter = re.search(r"- name: Service\n((?:    .*\n)+)", template)
    assert service_parameter is not None and "allowedValues" not in service_parameter[1]
    spec = importlib.util.spec_from_file_location("kiln_farm_toy", ROOT / "farm" / "kiln_farm.py")
    assert spec is not None and spec.loader is not None
    farm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(farm)
    api = farm.with_parts(kiln_module("api"))
    farmed = farm.read_items(api, tmp_path / "prompts.csv", "AUTO", "toy")
    assert {item.request.service_id for item in farmed} == {"TOY"}


def test_a_job_through_a_service_registered_at_run_time_lands_with_its_id(
    toy: Sandbox, blender: Any, kiln_module: Any
) -> None:
    # The operators' ``service=`` choice takes it (an enum refuses an id it does not offer).
    assert blender.ops.kiln.generate_from_text(prompt="a red chair", service="TOY") == {"FINISHED"}
    landed = [obj for obj in blender.data.objects if "kiln_task_id" in obj]
    assert landed and all(obj["kiln_service"] == "TOY" for obj in landed)
    assert kiln_module("session.runtime").engine().jobs()[-1].request.service_id == "TOY"
    sent = [r for r in toy.requests if r.method == "POST"]
    assert sent and all(KEY in r.headers.get("authorization", "") for r in sent)
