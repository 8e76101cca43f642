"""The Generate panel's offer of the library's copy, and the Jobs panel's Credits line, drawn for real."""

from __future__ import annotations

import time
from typing import Any

from guards import main_thread_must_not_wait
from recording_layout import draw


def test_the_job_just_made_is_not_offered_back(service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a green lamp") == {"FINISHED"}
    blender.context.scene.kiln.prompt = "a green lamp"
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert "Already generated" not in layout.text()
    # Pressing Generate again asks for another one: it sends, not the library's copy.
    (button,) = layout.operators("kiln.generate_from_text")
    assert button.props.reuse == "NEVER"
    jobs = len(ui.runtime.engine().jobs())
    assert blender.ops.kiln.generate_from_text(**vars(button.props)) == {"FINISHED"}
    assert len(ui.runtime.engine().jobs()) == jobs + 1


def test_a_prompt_already_generated_offers_use_it_or_generate_anyway(
    service: Any, blender: Any, ui: Any, monkeypatch: Any
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    settings = blender.context.scene.kiln
    monkeypatch.setattr(ui.spending, "session_start", time.time() + 1)  # as after a restart
    settings.prompt = "  A red   CHAIR"
    with main_thread_must_not_wait() as offences:
        layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert offences == []
    assert "Already generated on" in layout.text()
    buttons = {c.text: c.props for c in layout.operators("kiln.generate_from_text")}
    assert buttons["Use It (Free)"].reuse == "ALWAYS"
    assert buttons["Generate Anyway"].reuse == "NEVER"
    assert buttons["Use It (Free)"].prompt == "A red   CHAIR"

    settings.prompt = "a blue chair"
    layout = draw(ui.generate.KILN_PT_generate, blender.context)
    assert "Already generated" not in layout.text()
    assert len(layout.operators("kiln.generate_from_text")) == 1


def test_the_jobs_panel_shows_credits_spent_this_session_and_month(
    service: Any, blender: Any, ui: Any
) -> None:
    prefs = ui.preferences.get()
    assert blender.ops.kiln.generate_from_image(filepath=_chair(), resolution="1536") == {"FINISHED"}
    assert blender.ops.kiln.generate_from_text(prompt="a stone") == {"FINISHED"}
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert "This session: 2 jobs, 4 credits, and 1 text job of unknown price" in layout.text()
    prefs.text_cost = 3
    try:
        layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
        assert "This session: 2 jobs, 7 credits" in layout.text()
    finally:
        prefs.text_cost = 0


def _chair() -> str:
    from concepts import CONCEPTS

    return str(CONCEPTS / "chair.png")
