"""Every sentence, name and label of the Sidebar fits a narrow Sidebar at UI scale 1 and 2.

Measured with Blender's own text metrics (``blf`` in the UI font at the UI scale) against the
region's width less the panels' margins (``sidebar_measure``); the same measuring runs inside the
Blender program against the real region (``blender_scripts/measure_sidebar.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sidebar_measure import STATES, SizedContext, report, ui_scale

#: Blender's default Sidebar width at UI scale 1 (UI_SIDEBAR_PANEL_WIDTH), in pixels.
DEFAULT_WIDTH = 220
WIDTH = 300


@pytest.mark.parametrize(
    ("width", "scale"),
    [(DEFAULT_WIDTH, 1.0), (WIDTH, 1.0), (2 * DEFAULT_WIDTH, 2.0), (WIDTH, 2.0)],
    ids=["default at scale 1", "300 px at scale 1", "default at scale 2", "300 px at scale 2"],
)
def test_every_text_fits_the_sidebar(blender: Any, fresh_jobs: Path, width: int, scale: float) -> None:
    with ui_scale(scale):
        result = report(SizedContext(width), blender)
    assert result["states"] == list(STATES)
    assert result["ui_scale"] == scale and result["region_width"] == width
    assert result["texts_measured"] > 60
    assert result["overflows"] == []


def test_the_measure_finds_sentences_that_are_not_wrapped(
    blender: Any, fresh_jobs: Path, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Take the wrapping and the shortening away and the check fails: it can see a cut sentence."""
    drawing = kiln_module("drawing")
    monkeypatch.setattr(drawing, "wrap", lambda _context, text, **_kw: (text,))
    monkeypatch.setattr(drawing, "fit", lambda _context, *candidates, **_kw: candidates[0])
    with ui_scale(1.0):
        result = report(SizedContext(WIDTH), blender)
    cut = {item["text"] for item in result["overflows"]}
    unpublished = "The service does not publish the price of a text job"
    assert any(text.startswith(unpublished) for text in cut)  # the cost
    assert any("refused the connection" in text for text in cut)  # why a job waits
    assert any(text.startswith("The service could not make a mesh") for text in cut)  # why it failed
