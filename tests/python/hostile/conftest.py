"""Fixtures for the hostile-service tests: the hostile servers, a client, an engine run with its checks."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import (
    KEY,
    EngineRun,
)
from hostile_server import HostileServer


@pytest.fixture(autouse=True)
def no_key_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.DEBUG)
    yield
    assert KEY not in caplog.text


@pytest.fixture
def service() -> Iterator[HostileServer]:
    server = HostileServer()
    yield server
    server.close()


@pytest.fixture
def other() -> Iterator[HostileServer]:
    """Another origin (another port): it records what it gets and must never see the key."""
    server = HostileServer()
    yield server
    server.close()
    for request in server.seen:
        assert KEY not in request.raw.decode("latin-1"), f"the key reached another origin: {request.target}"


@pytest.fixture
def engine_run(tmp_path: Path, service: HostileServer) -> Iterator[Callable[..., EngineRun]]:
    runs: list[EngineRun] = []

    def make(**client_options: Any) -> EngineRun:
        run = EngineRun(tmp_path, service, **client_options)
        runs.append(run)
        return run

    yield make
    for run in runs:
        run.close()
