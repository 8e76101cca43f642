"""A job of unknown price is never counted as free, and costs are said in plain numbers.

The service publishes no text-to-3D price: until the artist sets one, a text job's price is unknown.
Above one job, the guard (``max_credits``, Ask Before Spending More Than) must then refuse or ask
before anything is sent; a single job of unknown price is the artist's own click and passes.
"""

from __future__ import annotations

from pathlib import Path

from api.features.batch import read_batch
from api.features.credits import CreditEstimate, estimate
from api.jobs import JobRequest
from api.words import english_message

TEXT = JobRequest(kind="text", prompt="a red chair")
IMAGE_1536 = JobRequest(kind="image", image_url="https://images.example.com/a.png", resolution=1536)
FOLLOWED = JobRequest(kind="task")


def test_max_credits_2_refuses_a_five_line_text_batch_with_no_text_price(tmp_path: Path) -> None:
    prompts = tmp_path / "props.txt"
    prompts.write_text("a red chair\na wooden table\na brass lamp\na stone well\na tin mug\n")
    batch = read_batch(prompts)
    cost = estimate(item.request for item in batch.items)
    assert (cost.known, cost.unpriced, cost.jobs) == (0, 5, 5)
    assert cost.exceeds(2), "five jobs of unknown price are not free"
    assert cost.exceeds(1_000_000), "nor are they cheap: no figure can be held against an unknown price"


def test_a_single_job_of_unknown_price_does_not_trip_the_guard_by_itself() -> None:
    assert not estimate([TEXT]).exceeds(2)
    assert not estimate([TEXT]).exceeds(0), "even under a limit of 0, one click of unknown price passes"
    assert estimate([TEXT, FOLLOWED]).exceeds(100), "two jobs: the unknown price is held against any limit"


def test_a_text_price_set_by_the_artist_is_used_everywhere() -> None:
    five = [TEXT] * 5
    assert estimate(five, text_cost=1) == CreditEstimate(known=5, unpriced=0, jobs=5)
    assert estimate(five, text_cost=1).exceeds(4) and not estimate(five, text_cost=1).exceeds(5)
    assert str(estimate(five, text_cost=3)) == "15 credits"


def test_known_credits_over_the_limit_exceed_it_as_before() -> None:
    run = estimate([IMAGE_1536] * 3)
    assert (run.known, run.unpriced) == (12, 0)
    assert run.exceeds(11) and not run.exceeds(12)


def test_estimates_in_plain_numbers() -> None:
    assert str(estimate([IMAGE_1536])) == "4 credits"
    assert str(
        estimate([JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1024)])
    ) == ("2 credits")
    assert str(estimate([FOLLOWED])) == "0 credits"
    assert str(estimate([TEXT])) == "price unknown"
    assert str(estimate([IMAGE_1536, IMAGE_1536, TEXT])) == "8 credits and 1 text job of unknown price"
    assert str(estimate([TEXT] * 3)) == "3 text jobs of unknown price"
    one_credit = estimate([TEXT], text_cost=1)
    assert str(one_credit) == "1 credit", "a count picks its form; never an appended s"


def test_the_estimate_is_a_message_whose_counts_are_messages_of_their_own() -> None:
    """So the Blender side says each count in the artist's language before the sentence around it."""
    said = estimate([IMAGE_1536, IMAGE_1536, TEXT]).message
    assert said.name == "CREDITS_AND_UNPRICED"
    assert said.values["credits"].name == "CREDITS_COUNT" and said.values["credits"].values == {"n": 8}
    assert said.values["unpriced"].name == "UNPRICED_JOBS" and said.values["unpriced"].values == {"n": 1}
    assert english_message(said) == "8 credits and 1 text job of unknown price"
