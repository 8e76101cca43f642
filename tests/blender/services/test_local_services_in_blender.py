"""The studio's own servers (ComfyUI, Hunyuan3D's ``api_server.py``) end to end inside Blender, each
against its stand-in over real HTTP: an image job lands with ``kiln_service``, a prompt is refused in
a sentence with nothing sent, no key or Authorization header ever reaches them, and the Sidebar says
where a job runs and that it costs no credits."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS

from sandbox.server import Sandbox

#: Service id → (its stand-in, the variable Kiln reads its address from).
LOCAL = {
    "COMFYUI": ("comfyui", "KILN_COMFYUI_BASE_URL"),
    "HUNYUAN3D": ("hunyuan3d", "KILN_HUNYUAN3D_BASE_URL"),
}


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    started = {
        service: Sandbox(service=standin, speed=50.0).start() for service, (standin, _) in LOCAL.items()
    }
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture
def servers(
    blender: Any, fresh_jobs: Path, stand_ins: dict[str, Sandbox], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Sandbox]:
    for service, (_, variable) in LOCAL.items():
        monkeypatch.setenv(variable, stand_ins[service].base_url)
    for server in stand_ins.values():
        server.requests.clear()
    return stand_ins


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


@pytest.mark.parametrize("service", list(LOCAL))
def test_an_image_job_lands_with_its_service_and_no_key_is_sent(
    servers: dict[str, Sandbox], blender: Any, service: str
) -> None:
    image = CONCEPTS / "chair.png"
    assert blender.ops.kiln.generate_from_image(filepath=str(image), service=service) == {"FINISHED"}
    made = [obj for obj in kiln_objects(blender) if obj.get("kiln_image") == str(image)]
    assert made and all(obj["kiln_service"] == service for obj in made)
    assert servers[service].requests, "the job went to the studio's server"
    assert not [r for s in servers.values() for r in s.requests if "authorization" in r.headers]
    others = [server for sid, server in servers.items() if sid != service]
    assert all(not server.requests for server in others)


@pytest.mark.parametrize("service", list(LOCAL))
def test_a_prompt_is_refused_in_a_sentence_with_nothing_sent(
    servers: dict[str, Sandbox], blender: Any, service: str
) -> None:
    with pytest.raises(RuntimeError) as refused:
        blender.ops.kiln.generate_from_text(prompt="a red chair", service=service)
    assert "Traceback" not in str(refused.value) and "nothing was sent" in str(refused.value)
    assert not servers[service].requests


@pytest.mark.parametrize("service", list(LOCAL))
def test_the_sidebar_says_where_a_job_runs_and_asks_for_no_key(
    servers: dict[str, Sandbox], blender: Any, kiln_module: Any, service: str
) -> None:
    from recording_layout import draw

    preferences = kiln_module("preferences")
    preferences.get().service = service
    try:
        blender.context.scene.kiln.mode = "IMAGE"
        blender.context.scene.kiln.image_path = str(CONCEPTS / "chair.png")
        layout = draw(kiln_module("panels.generate").KILN_PT_generate, blender.context)
        words = " ".join(str(c.kwargs.get("text", "")) for c in layout.calls)
        host = servers[service].base_url.split("//")[1]
        assert f"Runs on your studio's server at {host}" in words
        assert ("European Union" in words) == (service == "HUNYUAN3D"), "Hunyuan3D's licence note"
        assert "no credits (your own server)" in words
        assert "API key" not in words and "Add your key" not in words
    finally:
        preferences.get().service = "INTERFACE"
        blender.context.scene.kiln.mode = "TEXT"


@pytest.mark.parametrize("service", list(LOCAL))
def test_the_preferences_ask_for_no_key_and_test_connection_names_the_server(
    servers: dict[str, Sandbox], blender: Any, kiln_module: Any, service: str
) -> None:
    from recording_layout import draw_preferences

    preferences = kiln_module("preferences")
    check = kiln_module("api.features.connection_check").current
    preferences.get().service = service
    try:
        layout = draw_preferences(preferences)
        host = servers[service].base_url.split("//")[1]
        assert f"Runs on your studio's server at {host}" in layout.text()
        assert "api_key" not in [c.args[1] for c in layout.of("prop") if len(c.args) > 1]
        check.reset()
        assert blender.ops.kiln.test_connection() == {"FINISHED"}
        deadline = time.monotonic() + 20
        while check.state.name == "RUNNING" and time.monotonic() < deadline:
            time.sleep(0.05)
        for look in list(kiln_module("main_thread")._followed):  # timers never run here: hand the answer over
            assert look() is None
        assert check.state.name == "OK", check.message
        assert check.message.endswith(f"answers at {host}.")
    finally:
        check.reset()
        preferences.get().service = "INTERFACE"
