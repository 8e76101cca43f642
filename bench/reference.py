"""The reference beat: fixed pure-Python work, sized at the start of a run to last what a calm
watcher beat lasts. Timed beside a row's own samples, in the same conditions (the same moment of the
machine, the same threads wanting the GIL), it shows how far the machine moved them: a row whose
absolute figure misses its target is also judged on its ratio to the reference (``report``)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench.stats import summary_ms

#: What the reference beat lasts on a calm machine: a watcher beat's median there (RESULTS.md).
REFERENCE_BEAT_S = 0.0005


def reference_beat(work: int) -> int:
    """Fixed work, the same every call: what the machine does to it, it does to the row too."""
    total = 0
    for i in range(work):
        total += i * i % 7
    return total


def reference_work(seconds: float = REFERENCE_BEAT_S) -> int:
    """How many loop rounds of :func:`reference_beat` last ``seconds`` here (the fastest of a few tries)."""
    rounds = 10_000
    fastest = min(timed_beat(rounds) for _ in range(20))
    return max(1, round(rounds * seconds / fastest))


def timed_beat(work: int) -> float:
    """Seconds one reference beat of ``work`` rounds takes now."""
    start = time.perf_counter()
    reference_beat(work)
    return time.perf_counter() - start


def reference_summary(samples_s: Sequence[float]) -> dict[str, float]:
    """The reference beats' median, p99 and max, as ``reference_*_ms`` beside a row's own."""
    return {f"reference_{name}": value for name, value in summary_ms(samples_s).items()}
