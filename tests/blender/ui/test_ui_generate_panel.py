"""The Generate panel, drawn for real in each state an artist meets."""

from __future__ import annotations

from typing import Any

import pytest
from concepts import CONCEPTS
from guards import main_thread_must_not_wait
from recording_layout import Recorder, draw, finish_followed


def generate_button(layout: Recorder) -> Any:
    (button,) = [c for c in layout.of("operator") if c.args[0].startswith("kiln.generate_from_")]
    return button


def test_no_key_disables_generate_and_offers_kiln_preferences(no_key: Any, ui: Any) -> None:
    bpy = no_key
    bpy.context.scene.kiln.prompt = "a red chair"
    layout = draw(ui.generate.KILN_PT_generate, bpy.context)
    button = generate_button(layout)
    assert not button.enabled
    assert "Before Kiln can make a mesh: Add your API key" in layout.text()
    assert "Add the service address" not in layout.text() and "go online" not in layout.text()
    (fix,) = layout.operators("preferences.addon_show")
    assert fix.enabled
    assert fix.props.module == "bl_ext.kiln_dev.kiln"
    assert fix.text == "Open Kiln Preferences"


def test_offline_disables_generate_and_offers_system_preferences(offline: Any, service: Any, ui: Any) -> None:
    bpy = offline
    bpy.context.scene.kiln.prompt = "a red chair"
    layout = draw(ui.generate.KILN_PT_generate, bpy.context)
    assert not generate_button(layout).enabled
    assert "Before Kiln can make a mesh: Let Blender go online" in layout.text()
    (switch,) = [c for c in layout.of("prop") if c.args[1] == "use_online_access"]
    assert switch.args[0] == bpy.context.preferences.system  # Blender's own switch, right in the box
    assert not layout.operators("preferences.addon_show")


def test_empty_prompt_disables_generate_with_the_reason(service: Any, blender: Any, ui: Any) -> None:
    blender.context.scene.kiln.prompt = "   "
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert not generate_button(layout).enabled
    assert "The prompt is empty" in layout.text()
    assert not layout.operators("preferences.addon_show")
    assert not layout.operators("screen.userpref_show")


def test_a_prompt_enables_generate_with_the_panel_values(service: Any, blender: Any, ui: Any) -> None:
    settings = blender.context.scene.kiln
    settings.prompt = "a red chair"
    settings.text_resolution = "1024"
    settings.provider, settings.quality = "acme", "high"
    with main_thread_must_not_wait() as offences:
        layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert offences == []
    button = generate_button(layout)
    assert button.args[0] == "kiln.generate_from_text"
    assert button.enabled
    assert vars(button.props) == {
        "service": "INTERFACE",
        "prompt": "a red chair",
        "resolution": "1024",
        "provider": "acme",
        "quality": "high",
    }
    assert "prompt" in layout.props() and "text_resolution" in layout.props()
    assert not [c for c in layout.of("label") if c.kwargs.get("icon") == "ERROR"]
    assert not layout.operators("kiln.generate_batch")  # in the Advanced subpanel, out of the way
    advanced = draw(ui.generate.KILN_PT_generate_advanced, blender.context)
    assert [c.kwargs["text"] for c in advanced.operators("kiln.generate_batch")] == ["Batch from File…"]


def test_pressing_generate_sends_what_the_panel_shows(service: Any, blender: Any, ui: Any) -> None:
    blender.context.scene.kiln.prompt = "a blue vase"
    props = vars(generate_button(draw(ui.generate.KILN_PT_generate, blender.context)).props)
    assert blender.ops.kiln.generate_from_text(**props) == {"FINISHED"}
    job = ui.runtime.engine().jobs()[-1]
    assert job.request.prompt == "a blue vase"
    assert job.request.resolution is None


def test_a_text_block_is_the_long_prompt(service: Any, blender: Any, ui: Any) -> None:
    text = blender.data.texts.new("Brief")
    text.write("A carved wooden chest\nwith iron bands and a domed lid.")
    settings = blender.context.scene.kiln
    settings.prompt = "ignored"
    settings.prompt_text = text
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    button = generate_button(layout)
    assert button.enabled
    assert button.props.prompt == "A carved wooden chest\nwith iron bands and a domed lid."
    assert not [c for c in layout.of("prop") if c.args[1] == "prompt"]  # the Text block replaces it
    assert "“Brief”" in layout.text()
    advanced = draw(ui.generate.KILN_PT_generate_advanced, blender.context)
    assert [c.args[1] for c in advanced.of("template_ID")] == ["prompt_text"]


def test_image_mode_without_an_image_says_what_is_missing(service: Any, blender: Any, ui: Any) -> None:
    settings = blender.context.scene.kiln
    settings.mode = "IMAGE"
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert not generate_button(layout).enabled
    assert "Choose an image file" in layout.text()
    assert not layout.of("template_icon")
    settings.image_path = "/nowhere/concept.png"
    assert "does not exist" in draw(ui.generate.KILN_PT_generate, blender.context).text()
    settings.image_source = "BLENDER"
    assert "Choose an image from this file" in draw(ui.generate.KILN_PT_generate, blender.context).text()


def test_image_file_chosen_shows_its_thumbnail_and_enables_generate(
    service: Any, blender: Any, ui: Any
) -> None:
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source = "IMAGE", "FILE"
    settings.image_path = str(CONCEPTS / "chair.png")
    draw(ui.generate.KILN_PT_generate, blender.context)
    finish_followed(ui.main_thread)  # the thumbnail, read off the main thread
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    button = generate_button(layout)
    assert button.args[0] == "kiln.generate_from_image"
    assert button.enabled
    assert vars(button.props) == {
        "service": "INTERFACE",
        "filepath": str(CONCEPTS / "chair.png"),
        "resolution": "1536",
        "webhook_url": "",
        "prepare": True,
        "variants": 1,
    }
    (thumb,) = layout.of("template_icon")
    preview = ui.thumbnails._previews[f"file:{CONCEPTS / 'chair.png'}"]
    assert thumb.kwargs["icon_value"] == preview.icon_id
    assert tuple(preview.image_size) == (256, 256)


def test_blender_image_chosen_shows_its_preview(service: Any, blender: Any, ui: Any) -> None:
    image = blender.data.images.new("Concept", 32, 32)
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source, settings.image = "IMAGE", "BLENDER", image
    settings.image_resolution = "1024"
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    (picker,) = layout.of("template_ID")
    assert picker.args[1] == "image"
    (asked,) = layout.of("icon")
    assert asked.args[0] == image
    (thumb,) = layout.of("template_icon")
    assert thumb.kwargs["icon_value"] == 7000 + layout.calls.index(asked) + 1
    button = generate_button(layout)
    assert button.enabled
    assert vars(button.props) == {
        "service": "INTERFACE",
        "image_name": "Concept",
        "resolution": "1024",
        "webhook_url": "",
        "prepare": True,
        "variants": 1,
    }


@pytest.mark.parametrize(
    ("url", "words"),
    [("", "The image address is empty"), ("http://example.com/a.png", "must start with https://")],
)
def test_a_bad_image_url_disables_generate(service: Any, blender: Any, ui: Any, url: str, words: str) -> None:
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source, settings.image_url = "IMAGE", "URL", url
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert not generate_button(layout).enabled
    assert words in layout.text()


def test_an_image_url_is_sent_as_is(service: Any, blender: Any, ui: Any) -> None:
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source = "IMAGE", "URL"
    settings.image_url = "https://example.com/concept.png"
    settings.webhook_url = "https://hooks.example.com/kiln"
    button = generate_button(draw(ui.generate.KILN_PT_generate, blender.context))
    assert button.enabled
    assert vars(button.props) == {
        "service": "INTERFACE",
        "image_url": "https://example.com/concept.png",
        "resolution": "1536",
        "webhook_url": "https://hooks.example.com/kiln",
        "prepare": True,
        "variants": 1,
    }


def test_resolution_choices_say_what_they_cost(blender: Any, ui: Any) -> None:
    settings = blender.context.scene.kiln
    image = settings.bl_rna.properties["image_resolution"]
    text_items = {i.identifier: i.name for i in settings.bl_rna.properties["text_resolution"].enum_items}
    assert settings.image_resolution == "1536"
    assert [i.identifier for i in image.enum_items] == ["1024", "1536"]
    assert "1024 costs 2 credits, 1536 costs 4" in image.description
    assert settings.text_resolution == "AUTO"
    assert list(text_items) == ["AUTO", "1024", "1536"]
    assert text_items["AUTO"].lower() == "service default"


def test_advanced_holds_provider_quality_or_webhook(blender: Any, ui: Any) -> None:
    panel = ui.generate.KILN_PT_generate_advanced
    assert panel.bl_parent_id == "KILN_PT_generate"
    assert "DEFAULT_CLOSED" in panel.bl_options
    assert draw(panel, blender.context).props() == ["provider", "quality"]
    blender.context.scene.kiln.mode = "IMAGE"
    assert draw(panel, blender.context).props() == ["webhook_url"]


def test_the_key_is_not_part_of_the_scene_settings(blender: Any) -> None:
    names = {p.identifier for p in blender.context.scene.kiln.bl_rna.properties}
    assert not any("key" in name for name in names)


def test_variants_are_priced_on_the_button(service: Any, blender: Any, ui: Any) -> None:
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source = "IMAGE", "FILE"
    settings.image_path = str(CONCEPTS / "chair.png")
    settings.image_resolution = "1536"
    settings.image_variants = 3
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    button = generate_button(layout)
    assert "12 credits" in button.kwargs["text"] and button.props.variants == 3
    assert "image_prepare" in layout.props() and "image_variants" in layout.props()


def test_the_balance_shows_under_the_price_and_a_price_above_it_says_so(
    service: Any, blender: Any, ui: Any, kiln_module: Any
) -> None:
    """Once the service said its balance (Test Connection), it is under the price; an image job of 4
    credits on an account with 2.5 left says so before anything is sent (in red)."""
    credits = kiln_module("api.features.credits")
    words = kiln_module("api.words")
    settings = blender.context.scene.kiln
    settings.mode, settings.image_source = "IMAGE", "URL"
    settings.image_url = "https://example.com/concept.png"
    assert "left" not in draw(ui.generate.KILN_PT_generate, blender.context).text()
    shown = (("40", "Custom Service: 40 credits left"), ("2.5", "more than the 2.5 credits left"))
    for amount, said in shown:
        answer = words.message(words.catalogue.CONNECTED_WITH_BALANCE, n=1, amount=amount, service="x")
        credits.note_balance("INTERFACE", answer)
        try:
            layout = draw(ui.generate.KILN_PT_generate, blender.context)
        finally:
            credits._balances.clear()
        assert said in layout.text(), layout.text()
