"""The Generate panel shows what the chosen service can do, and only that: its options under the
tier, its views where it takes several images, its price following the choices."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from recording_layout import Recorder, draw

KEYS = {
    "TRIPO": ("KILN_TRIPO_API_KEY", "tsk_live_panelstripo00000"),
    "MESHY": ("KILN_MESHY_API_KEY", "msy_live_panelsmeshy00000"),
    "RODIN": ("KILN_RODIN_API_KEY", "rodin_live_panelsrodin000"),
}


@pytest.fixture
def chosen(blender: Any, fresh_jobs: Path, ui: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Choose a service in the preferences (with its key in the environment); the choice is undone after."""
    prefs = ui.preferences.get()
    kept = prefs.service
    for env, key in KEYS.values():
        monkeypatch.setenv(env, key)

    def choose(service: str) -> None:
        prefs.service = service

    yield choose
    prefs.service = kept


def shown_options(layout: Recorder) -> set[str]:
    # A service's style is a setting of its own (option_style_tripo): said here by the option's name.
    return {
        re.sub(r"^(option_style)_\w+$", r"\1", str(c.args[1]))
        for c in layout.of("prop")
        if str(c.args[1]).startswith("option_")
    }


def generate_button(layout: Recorder) -> Any:
    (button,) = [c for c in layout.of("operator") if c.args[0].startswith("kiln.generate_from_")]
    return button


@pytest.mark.parametrize(
    ("service", "options"),
    [
        ("MESHY", {"option_pbr", "option_quad", "option_texture", "option_polygons"}),
        ("TRIPO", {"option_pbr", "option_texture", "option_polygons"}),  # stylize is retired on API v3
        ("RODIN", {"option_pbr", "option_quad", "option_polygons"}),
    ],
)
def test_the_panel_shows_only_the_options_the_service_takes(
    chosen: Any, blender: Any, ui: Any, service: str, options: set[str]
) -> None:
    chosen(service)
    blender.context.scene.kiln.prompt = "a red chair"
    assert shown_options(draw(ui.generate.KILN_PT_generate, blender.context)) == options


def test_options_set_in_the_panel_reach_the_button_and_its_price(chosen: Any, blender: Any, ui: Any) -> None:
    chosen("MESHY")
    settings = blender.context.scene.kiln
    settings.prompt = "a red chair"
    assert (
        "price unknown" in generate_button(draw(ui.generate.KILN_PT_generate, blender.context)).kwargs["text"]
    )
    settings.tier_meshy = "meshy-6"  # the default, meshy-7.1, has no published price
    try:
        before = generate_button(draw(ui.generate.KILN_PT_generate, blender.context))
        assert "30 credits" in before.kwargs["text"]
        assert not {"pbr", "quad", "texture", "polygons"} & set(vars(before.props))  # untouched: not sent
        settings.option_texture = False
        settings.option_polygons = 5000
        after = generate_button(draw(ui.generate.KILN_PT_generate, blender.context))
        assert "20 credits" in after.kwargs["text"]
        assert vars(after.props)["texture"] is False and vars(after.props)["polygons"] == 5000
    finally:
        settings.property_unset("tier_meshy")


def test_more_views_where_the_service_takes_several(chosen: Any, blender: Any, ui: Any) -> None:
    chosen("MESHY")
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source = "IMAGE", "FILE"
    settings.image_path = str(CONCEPTS / "chair.png")
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert "more_views" in layout.props()
    settings.more_views = True
    settings.view_back = str(CONCEPTS / "teapot.png")
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert {"view_back", "view_left", "view_right"} <= set(layout.props())
    button = generate_button(layout)
    assert button.args[0] == "kiln.generate_from_views"
    assert vars(button.props)["front"] == str(CONCEPTS / "chair.png")
    assert vars(button.props)["back"] == str(CONCEPTS / "teapot.png")
    chosen("INTERFACE")
    assert "more_views" not in draw(ui.generate.KILN_PT_generate, blender.context).props()


@pytest.mark.parametrize("service", ["MESHY", "TRIPO"])
def test_no_style_is_drawn_or_sent(chosen: Any, blender: Any, ui: Any, service: str) -> None:
    """Meshy deprecated ``art_style`` (changelog 2026-01-22) and Tripo's API v3 retired stylize: no
    Style is drawn, none is sent."""
    chosen(service)
    settings = blender.context.scene.kiln
    assert not hasattr(settings, f"option_style_{service.lower()}")
    for mode in ("TEXT", "IMAGE"):
        settings.mode, settings.image_source = mode, "FILE"
        settings.image_path = str(CONCEPTS / "chair.png")
        try:
            layout = draw(ui.generate.KILN_PT_generate, blender.context)
            assert "option_style" not in shown_options(layout)
            assert vars(generate_button(layout).props).get("style") is None
        finally:
            settings.mode = "TEXT"


def test_the_quality_menu_offers_no_retired_model(blender: Any) -> None:
    """Meshy retired meshy-5 on 2026-10-10: the Sidebar's Quality never offers it."""
    settings = blender.context.scene.kiln
    offered = [item.identifier for item in settings.bl_rna.properties["tier_meshy"].enum_items]
    assert offered == ["meshy-7.1", "meshy-6"]
