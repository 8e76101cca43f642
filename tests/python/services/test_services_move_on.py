"""When a service moves on: a model it retired is neither offered nor sent, and a documented path that
answers 404 or 410 asks for a newer Kiln instead of blaming the artist's address or key."""

from __future__ import annotations

import datetime
from dataclasses import replace

from api.errors import NotFoundError, ServiceMovedError
from api.http.answers import error_for
from api.services import Capabilities, Order, Tier, refusal
from api.words import catalogue as words

YESTERDAY = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
TOMORROW = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()


def _caps() -> Capabilities:
    return Capabilities(
        text_tiers=(
            Tier("old", words.OPTION_TIER, 10, retires=YESTERDAY),
            Tier("going", words.OPTION_TIER, 10, retires=TOMORROW),
            Tier("new", words.OPTION_TIER, 10),
        ),
        text_default="new",
    )


def test_a_tier_past_its_day_is_not_offered_and_one_before_it_still_is() -> None:
    caps = _caps()
    assert [tier.id for tier in caps.tiers("text")] == ["going", "new"]
    assert [tier.id for tier in caps.known_tiers("text")] == ["old", "going", "new"]
    assert caps.tier("text", "old") is None
    assert caps.price("text", "old") is None


def test_a_job_asking_for_a_retired_tier_is_refused_in_a_sentence_naming_it() -> None:
    said = refusal(_caps(), "Meshy", Order(kind="text", prompt="a chair", tier="old"))
    assert said is not None and said.name == "SERVICE_TIER_RETIRED"
    assert refusal(_caps(), "Meshy", Order(kind="text", prompt="a chair", tier="nonsense")).name == (
        "SERVICE_TIER_UNKNOWN"
    )
    assert refusal(_caps(), "Meshy", replace(Order(kind="text", prompt="a chair"), tier="going")) is None


def test_a_documented_path_that_is_gone_asks_for_a_newer_kiln() -> None:
    for status in (404, 410):
        error = error_for(status, {}, b'{"message": "Not Found"}', "key", moved=True)
        assert isinstance(error, ServiceMovedError)
        assert "Update Kiln" in error.named("Tripo").user_message
        assert "address" not in error.user_message and "key" not in error.user_message


def test_a_task_the_service_forgot_and_an_address_the_artist_gave_keep_their_own_sentences() -> None:
    forgot = error_for(404, {}, b"{}", "key", task_id="abc", moved=True)
    assert isinstance(forgot, NotFoundError) and not isinstance(forgot, ServiceMovedError)
    wrong = error_for(404, {}, b"{}", "key")
    assert not isinstance(wrong, ServiceMovedError)
    assert "address" in wrong.user_message
