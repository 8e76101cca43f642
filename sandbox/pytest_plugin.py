"""Pytest fixtures for a started sandbox; load with `pytest_plugins = ["sandbox.pytest_plugin"]`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sandbox.server import Sandbox

SANDBOX_KEY = "sbx_live_test0000000000"
#: Fast enough that a task finishes in about a tenth of a second.
FAST_SPEED = 50.0


@pytest.fixture
def sandbox_key() -> str:
    """The API key the `sandbox` and `sandbox_factory` servers accept by default."""
    return SANDBOX_KEY


@pytest.fixture
def sandbox(sandbox_key: str) -> Iterator[Sandbox]:
    """A started sandbox on a free loopback port, fast, no faults; stopped after the test."""
    with Sandbox(keys=[sandbox_key], speed=FAST_SPEED) as server:
        yield server


@pytest.fixture
def sandbox_factory(sandbox_key: str) -> Iterator[Callable[..., Sandbox]]:
    """`make(**Sandbox kwargs)` -> started Sandbox (defaults: the test key, fast); all stopped after."""
    started: list[Sandbox] = []

    def make(**kwargs: Any) -> Sandbox:
        kwargs.setdefault("keys", [sandbox_key])
        kwargs.setdefault("speed", FAST_SPEED)
        server = Sandbox(**kwargs).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()
