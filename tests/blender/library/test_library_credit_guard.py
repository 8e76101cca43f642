"""The credit guard in real Blender against the sandbox: a batch over its limit sends nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS


def _image_batch(tmp_path: Path, count: int) -> Path:
    csv = tmp_path / "images.csv"
    image = CONCEPTS / "chair.png"
    csv.write_text("image,resolution\n" + "".join(f"{image},1536\n" for _ in range(count)))
    return csv


def test_a_batch_over_max_credits_is_refused_with_a_sentence_and_nothing_is_sent(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    with pytest.raises(RuntimeError, match=r"20 credits, more than the 10 credits allowed"):
        blender.ops.kiln.generate_batch(filepath=str(_image_batch(tmp_path, 5)), max_credits=10)
    assert service.requests == []
    assert not any("kiln_task_id" in o for o in blender.data.objects)


def test_a_batch_within_max_credits_is_sent(service: Any, blender: Any, tmp_path: Path) -> None:
    result = blender.ops.kiln.generate_batch(filepath=str(_image_batch(tmp_path, 2)), max_credits=8)
    assert result == {"FINISHED"}
    assert service.submit_count == 2


def test_background_mode_never_asks_before_spending(service: Any, blender: Any, kiln_module: Any) -> None:
    prefs = kiln_module("preferences").get()
    prefs.ask_above = 1
    try:
        image = str(CONCEPTS / "chair.png")
        result = blender.ops.kiln.generate_from_image("INVOKE_DEFAULT", filepath=image, resolution="1536")
        assert result == {"FINISHED"}
        assert service.submit_count == 1
    finally:
        prefs.ask_above = 0


def test_reuse_leaves_lines_already_in_the_library_out_of_the_estimate(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    image = str(CONCEPTS / "chair.png")
    assert blender.ops.kiln.generate_from_image(filepath=image, resolution="1536") == {"FINISHED"}
    # Five identical lines are all the library's copy: nothing to pay, so max_credits=0 lets it through.
    batch_file = str(_image_batch(tmp_path, 5))
    assert blender.ops.kiln.generate_batch(filepath=batch_file, max_credits=0) == {"FINISHED"}
    assert service.submit_count == 1
    with pytest.raises(RuntimeError, match="20 credits"):
        blender.ops.kiln.generate_batch(filepath=batch_file, max_credits=0, reuse="NEVER")
    assert service.submit_count == 1


def test_the_first_job_of_unknown_price_asks_once_and_dont_ask_again_is_kept(
    kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    spending = kiln_module("session.spending")
    credits = kiln_module("api.features.credits")
    prefs = kiln_module("preferences").get()
    monkeypatch.setattr(spending, "blocks", lambda: False)  # as in the UI: somebody can answer
    monkeypatch.setattr(spending, "_unknown_price_answered", False)
    unknown = credits.CreditEstimate(0, 1, 1)
    assert spending.asks_unknown_price(unknown)
    assert not spending.asks_unknown_price(credits.CreditEstimate(4, 0, 1))  # a known price: no question

    class Answer(spending.PriceQuestion):
        asked_price = True
        dont_ask_again = True

    try:
        Answer().price_answered(None)
        assert not spending.asks_unknown_price(unknown)  # once a session
        assert prefs.ask_unknown_price is False  # and, ticked, never again
    finally:
        prefs.ask_unknown_price = True


def test_retry_says_what_it_costs_and_that_the_earlier_result_stays(kiln_module: Any) -> None:
    spending = kiln_module("session.spending")
    request = kiln_module("api.jobs").JobRequest(kind="image", resolution=1536)
    assert spending.retry_question("a chair", [request], True) == (
        "Send “a chair” again as a new job? It costs 4 credits. What the earlier job put in your scene stays."
    )
    assert spending.retry_question("a chair", [request], False) == (
        "Send “a chair” again as a new job? It costs 4 credits."
    )
    text = kiln_module("api.jobs").JobRequest(kind="text", prompt="a chair")
    assert spending.retry_question("a chair", [text], False) == (
        "Send “a chair” again as a new job? Its price is unknown."
    )
