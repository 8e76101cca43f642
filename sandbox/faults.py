"""The `--faults` spec: which misbehaviours to inject, and how often.

Grammar: comma-separated `name=value` items, e.g. `503=0.2,reset=0.1,scope=poll`.
Fractions are probabilities in 0..1 drawn from one `random.Random(seed)` per server, so the same
spec, seed and request order give the same faults. See sandbox/README.md for the full table.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field, fields
from typing import Any

#: HTTP-level faults, drawn once per in-scope request in this order.
HTTP_FAULTS = ("500", "502", "503", "429", "reset", "lost")
SCOPES = frozenset({"submit", "poll", "files"})

_FRACTIONS = {*HTTP_FAULTS, "fail", "fail_object", "corrupt", "truncate"}
_NUMBERS = {"latency", "slow", "retry_after", "cdn", "restart_after"}


@dataclass(frozen=True)
class FaultSpec:
    """Parsed fault spec; every field defaults to "no fault"."""

    http: dict[str, float] = field(default_factory=dict)
    scope: frozenset[str] = SCOPES
    latency: float = 0.0
    retry_after: int = 1
    fail: float = 0.0
    fail_object: float = 0.0
    corrupt: float = 0.0
    truncate: float = 0.0
    slow: int = 0
    cdn: bool = False
    restart_after: int = 0

    @classmethod
    def parse(cls, spec: str) -> FaultSpec:
        """Parse `name=value,...`; raise ValueError with the offending item on anything unknown."""
        values: dict[str, Any] = {}
        http: dict[str, float] = {}
        scope = SCOPES
        for item in filter(None, (part.strip() for part in spec.split(","))):
            name, sep, raw = item.partition("=")
            name, raw = name.strip().lower(), raw.strip()
            if not sep or not raw:
                raise ValueError(f"fault item {item!r} is not name=value")
            if name == "scope":
                scope = _parse_scope(raw)
            elif name in _FRACTIONS:
                fraction = _number(item, raw)
                if not 0.0 <= fraction <= 1.0:
                    raise ValueError(f"fault item {item!r}: fraction must be within 0..1")
                if name in HTTP_FAULTS:
                    http[name] = fraction
                else:
                    values[name] = fraction
            elif name in _NUMBERS:
                number = _number(item, raw)
                if number < 0:
                    raise ValueError(f"fault item {item!r}: value must not be negative")
                values[name] = number if name == "latency" else bool(number) if name == "cdn" else int(number)
            else:
                known = ", ".join(sorted({*_FRACTIONS, *_NUMBERS, "scope"}))
                raise ValueError(f"unknown fault {name!r} (known: {known})")
        if sum(http.values()) > 1.0:
            raise ValueError("fractions of 500, 502, 503, 429, reset and lost add up to more than 1")
        for group in (("fail", "fail_object"), ("corrupt", "truncate")):
            if sum(values.get(name, 0.0) for name in group) > 1.0:
                raise ValueError(f"fractions of {' and '.join(group)} add up to more than 1")
        return cls(http=http, scope=scope, **values)

    def describe(self) -> str:
        """Canonical spec text, for logs."""
        items = [f"{name}={value}" for name, value in self.http.items()]
        defaults = FaultSpec()
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "http" and value != getattr(defaults, f.name):
                items.append(f"{f.name}={'|'.join(sorted(value)) if f.name == 'scope' else value}")
        return ",".join(items) or "none"


def _number(item: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"fault item {item!r}: {raw!r} is not a number") from None


def _parse_scope(raw: str) -> frozenset[str]:
    names = {part.strip().lower() for part in raw.split("|")}
    if "all" in names:
        return SCOPES
    unknown = names - SCOPES
    if unknown:
        raise ValueError(f"unknown fault scope {sorted(unknown)} (known: all, files, poll, submit)")
    return frozenset(names)


class FaultDice:
    """One seeded random source per server, shared by every fault decision (thread-safe)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def roll(self) -> float:
        with self._lock:
            return self._random.random()

    def bytes(self, count: int) -> bytes:
        with self._lock:
            return self._random.randbytes(count)

    def http_fault(self, spec: FaultSpec) -> str | None:
        """Pick one of the HTTP faults (or none) for a request, by cumulative fraction."""
        draw, edge = self.roll(), 0.0
        for name in HTTP_FAULTS:
            edge += spec.http.get(name, 0.0)
            if draw < edge:
                return name
        return None
