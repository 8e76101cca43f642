"""Small statistics over timing samples (no numpy needed in the child processes)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest sample with at least ``fraction`` of them at or below it."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    """Median, p99 and max in milliseconds, plus how many samples they come from."""
    ms = [s * 1000.0 for s in samples_s]
    return {
        "median_ms": statistics.median(ms),
        "p99_ms": percentile(ms, 0.99),
        "max_ms": max(ms),
        "samples": float(len(ms)),
    }
