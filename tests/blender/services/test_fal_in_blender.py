"""fal.ai end to end inside Blender (the bpy module), against its stand-in over real HTTP, pointed at
it through ``KILN_FAL_BASE_URL`` and ``KILN_FAL_API_KEY`` as a pipeline would: an image job lands with
``kiln_service``; a text job is refused in a sentence with nothing sent; a wrong key and a locked
balance each leave a sentence naming fal.ai; the key reaches fal's queue only, never its file host.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS

from sandbox.server import Sandbox

KEY = "fal_live_blenderfal0000"


@pytest.fixture(scope="module")
def stand_in() -> Iterator[Sandbox]:
    with Sandbox(service="fal", keys=[KEY], speed=50.0, credits=100_000) as server:
        yield server


@pytest.fixture
def fal(blender: Any, fresh_jobs: Path, stand_in: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    monkeypatch.setenv("KILN_FAL_BASE_URL", stand_in.base_url)
    monkeypatch.setenv("KILN_FAL_API_KEY", KEY)
    stand_in.requests.clear()
    return stand_in


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def test_an_image_job_lands_with_its_service_and_the_key_stays_on_the_queue(
    fal: Sandbox, blender: Any, kiln_module: Any
) -> None:
    image = CONCEPTS / "chair.png"
    assert blender.ops.kiln.generate_from_image(filepath=str(image), service="FAL") == {"FINISHED"}
    made = [obj for obj in kiln_objects(blender) if obj.get("kiln_image") == str(image)]
    assert made and all(obj["kiln_service"] == "FAL" for obj in made)
    job = kiln_module("session.runtime").engine().jobs()[-1]
    assert job.request.service_id == "FAL" and job.task_handle == "trellis"
    queue = [r for r in fal.requests if not r.path.startswith("/files/")]
    files = [r for r in fal.requests if r.path.startswith("/files/")]
    assert [r.method for r in queue][:1] == ["POST"] and files
    assert all(r.headers.get("authorization") == f"Key {KEY}" for r in queue)
    assert all("authorization" not in r.headers for r in files)


def test_a_text_job_is_refused_in_a_sentence_with_nothing_sent(fal: Sandbox, blender: Any) -> None:
    with pytest.raises(RuntimeError, match=re.escape("fal.ai")) as caught:
        blender.ops.kiln.generate_from_text(prompt="a red chair", service="FAL")
    assert "Traceback" not in str(caught.value)
    assert not fal.requests, "nothing was sent"
    assert not kiln_objects(blender)


def test_a_wrong_key_is_a_sentence_naming_fal(
    fal: Sandbox, blender: Any, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KILN_FAL_API_KEY", "fal_live_wrongkey0000")
    with pytest.raises(RuntimeError, match=re.escape("fal.ai")) as caught:
        blender.ops.kiln.generate_from_image(filepath=str(CONCEPTS / "chair.png"), service="FAL")
    assert re.search(r"(?i)key", str(caught.value))
    assert kiln_module("session.runtime").engine().jobs()[-1].state.value == "failed"
    assert sum(r.method == "POST" for r in fal.requests) == 1, "a refused key is not sent again"


def test_a_used_up_balance_is_a_sentence_naming_fal(
    blender: Any, fresh_jobs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Sandbox(service="fal", keys=[KEY], speed=50.0, credits=0) as server:
        monkeypatch.setenv("KILN_FAL_BASE_URL", server.base_url)
        monkeypatch.setenv("KILN_FAL_API_KEY", KEY)
        with pytest.raises(RuntimeError, match=re.escape("fal.ai")) as caught:
            blender.ops.kiln.generate_from_image(filepath=str(CONCEPTS / "chair.png"), service="FAL")
        assert re.search(r"(?i)balance", str(caught.value))
        assert sum(r.method == "POST" for r in server.requests) == 1


def test_the_panel_offers_fals_models_for_an_image_and_never_a_price_of_zero(
    blender: Any, fresh_jobs: Path, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recording_layout import draw

    monkeypatch.setenv("KILN_FAL_API_KEY", KEY)
    generate = kiln_module("panels.generate")
    prefs = kiln_module("preferences").get()
    kept = prefs.service
    settings = blender.context.scene.kiln
    prefs.service = "FAL"
    try:
        settings.prompt = "a red chair"
        text = draw(generate.KILN_PT_generate, blender.context)
        (pressed,) = [c for c in text.of("operator") if c.args[0] == "kiln.generate_from_text"]
        assert not pressed.enabled, "no text job can be sent where fal takes none"
        assert "fal.ai does not make meshes from a prompt" in text.text()
        settings.mode, settings.image_source = "IMAGE", "FILE"
        settings.image_path = str(CONCEPTS / "chair.png")
        image = draw(generate.KILN_PT_generate, blender.context)
        (button,) = [c for c in image.of("operator") if c.args[0] == "kiln.generate_from_image"]
        shown = str(button.kwargs.get("text", ""))
        assert button.enabled and "price unknown" in shown and "0 credits" not in shown, shown
    finally:
        settings.mode = "TEXT"
        prefs.service = kept
