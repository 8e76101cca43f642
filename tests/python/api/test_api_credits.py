"""Credit prices as published (image-to-3D) or set by the artist (text-to-3D), and run estimates."""

from __future__ import annotations

from api.features.credits import CreditEstimate, estimate, request_cost
from api.jobs import JobRequest


def test_image_prices_are_the_published_ones() -> None:
    assert request_cost(JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1024)) == 2
    assert request_cost(JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1536)) == 4
    assert request_cost(JobRequest(kind="image", image_url="https://x.example/a.png")) == 4  # 1536 default


def test_text_price_is_unknown_until_the_artist_sets_it() -> None:
    text = JobRequest(kind="text", prompt="a chair")
    assert request_cost(text) is None
    assert request_cost(text, text_cost=3) == 3


def test_an_estimate_counts_what_it_cannot_price() -> None:
    requests = [JobRequest(kind="image", image_url="https://x.example/a.png", resolution=1536)] * 5
    requests += [JobRequest(kind="text", prompt="a chair")] * 2
    run = estimate(requests)
    assert run == CreditEstimate(known=20, unpriced=2, jobs=7)
    # Two jobs of unknown price in a run of seven: never counted as free, whatever the limit.
    assert run.exceeds(10) and run.exceeds(20) and run.exceeds(1_000)
    assert str(run) == "20 credits and 2 text jobs of unknown price"
    priced = estimate(requests, text_cost=1)
    assert str(priced) == "22 credits" and priced.exceeds(21) and not priced.exceeds(22)


def test_a_fractional_price_is_said_as_it_is() -> None:
    """Rodin prices in halves: 0.5 credits stays 0.5 (never rounded to a whole or to free), a run of
    them adds up exactly, and a whole number is said as a count."""
    from api.features.credits import credits_message
    from api.services.capabilities import Capabilities, Tier
    from api.words import catalogue, english_message

    assert english_message(credits_message(0.5)) == "0.5 credits"
    assert english_message(credits_message(1)) == "1 credit"
    assert english_message(credits_message(2.0)) == "2 credits"
    assert english_message(credits_message(1234.5)) == "1,234.5 credits"
    assert english_message(credits_message(0.1 + 0.2)) == "0.3 credits"
    halves = Capabilities(text_tiers=(Tier("gen", catalogue.OPTION_TIER, 0.5),), text_default="gen")
    assert halves.price("text") == 0.5
    run = CreditEstimate(known=0.5 * 3, unpriced=0, jobs=3)
    assert str(run) == "1.5 credits" and run.exceeds(1) and not run.exceeds(2)
