"""A fresh Kiln asks which service first: nothing is chosen for the artist, and the Sidebar lists
every registered service (local ones included) with one line on what it costs and needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from recording_layout import draw, draw_preferences


@pytest.fixture
def fresh_choice(blender: Any, ui: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The preferences' service as a fresh Kiln has it (never set), no pipeline's variables."""
    for name in ("KILN_API_KEY", "KILN_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    prefs = ui.preferences.get()
    prefs.property_unset("service")
    yield blender
    prefs.property_unset("service")


def test_a_fresh_kiln_lists_every_service_and_chooses_none(
    fresh_choice: Any, ui: Any, kiln_module: Any
) -> None:
    services = kiln_module("api.services")
    bpy = fresh_choice
    assert ui.preferences.get().service == services.NOT_CHOSEN
    assert ui.preferences.chosen_service() == ""
    layout = draw(ui.generate.KILN_PT_generate, bpy.context)
    assert "Choose the service Kiln sends your work to:" in layout.text()
    buttons = layout.operators("kiln.choose_service")
    offered = [button.props.service for button in buttons]
    assert offered == list(services.service_ids())
    said = {button.props.service: button.text for button in buttons}
    assert said["TRIPO"] == "Use Tripo" and said["INTERFACE"] == "Use Custom Service", said
    assert said["HUNYUAN3D"] == "Use Hunyuan3D Server", said
    assert {"INTERFACE", "RODIN", "FAL", "COMFYUI"} <= set(offered)
    for sid in offered:
        assert services.info(sid).cost_line() in layout.text()
    assert "runs on your studio's server, no credits, no key" in layout.text()
    assert "needs an API key; paid in dollars" in layout.text()
    assert not [op for op in layout.operator_ids() if op.startswith("kiln.generate_from_")]
    for subpanel in ("generate_advanced", "blockout", "retexture"):  # nothing of a service's yet
        assert not getattr(ui.generate, f"KILN_PT_{subpanel}").poll(bpy.context), subpanel


def test_a_script_with_no_service_is_refused_in_a_sentence(fresh_choice: Any) -> None:
    bpy = fresh_choice
    bpy.context.scene.kiln.prompt = "a red chair"
    with pytest.raises(RuntimeError, match=r"Choose a service in Kiln's Sidebar or pass service="):
        bpy.ops.kiln.generate_from_text(prompt="a red chair")


def test_choosing_a_service_sets_the_preference(fresh_choice: Any, ui: Any) -> None:
    bpy = fresh_choice
    assert bpy.ops.kiln.choose_service(service="RODIN") == {"FINISHED"}
    assert ui.preferences.get().service == "RODIN"
    assert ui.preferences.chosen_service() == "RODIN"
    layout = draw(ui.generate.KILN_PT_generate, bpy.context)
    assert not layout.operators("kiln.choose_service")
    assert [op for op in layout.operator_ids() if op.startswith("kiln.generate_from_")]
    for subpanel in ("generate_advanced", "blockout", "retexture"):
        assert getattr(ui.generate, f"KILN_PT_{subpanel}").poll(bpy.context), subpanel


def test_a_pipelines_variables_still_send_to_the_custom_service(
    fresh_choice: Any, ui: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("KILN_BASE_URL", "https://kiln.example.com")
    assert ui.preferences.chosen_service() == "INTERFACE"


def test_the_preferences_ask_for_no_key_while_no_service_is_chosen(fresh_choice: Any, ui: Any) -> None:
    layout = draw_preferences(ui.preferences)
    assert "service" in layout.props()
    assert "api_key" not in layout.props() and "service_address" not in layout.props()
    assert not layout.operators("kiln.test_connection")


def test_an_earlier_setup_of_the_custom_service_keeps_it(fresh_choice: Any, ui: Any) -> None:
    """An artist who gave the Service Address with an earlier Kiln (no service stored) keeps the
    custom service; a fresh Kiln with no address chooses none; a service stored is kept."""
    prefs = ui.preferences.get()
    ui.preferences.keep_an_earlier_setup(prefs)
    assert prefs.service == "NOT_CHOSEN"
    prefs.base_url = "https://kiln.example.com"
    try:
        ui.preferences.keep_an_earlier_setup(prefs)
        assert prefs.service == "INTERFACE"
        prefs.service = "TRIPO"
        ui.preferences.keep_an_earlier_setup(prefs)
        assert prefs.service == "TRIPO"
    finally:
        prefs.property_unset("base_url")


def test_a_pipelines_variables_at_start_choose_the_custom_service(
    fresh_choice: Any, ui: Any, monkeypatch: Any
) -> None:
    """A studio's launcher that sets KILN_BASE_URL starts Kiln with the custom service chosen: the
    Sidebar's menu names the service its jobs go to (no "Choose a Service" above a live Generate)."""
    prefs = ui.preferences.get()
    monkeypatch.setenv("KILN_BASE_URL", "https://kiln.example.com")
    ui.preferences.keep_an_earlier_setup(prefs)
    assert prefs.service == "INTERFACE"
    prefs.property_unset("service")
    monkeypatch.setenv("KILN_BASE_URL", "  ")  # a variable set to nothing names nothing
    ui.preferences.keep_an_earlier_setup(prefs)
    assert prefs.service == "NOT_CHOSEN"
