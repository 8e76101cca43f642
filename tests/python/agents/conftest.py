"""Kiln's agent server on a free loopback port, with the stand-in host, for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_stand_in import StandInHost
from concepts import CONCEPTS

from api.agents import AgentServer, AgentSettings, BudgetLimits, new_token


@pytest.fixture
def token() -> str:
    return new_token()


@pytest.fixture
def allowed(tmp_path: Path) -> Path:
    """A folder the artist allowed, with a concept image in it."""
    folder = tmp_path / "allowed"
    folder.mkdir()
    (folder / "chair.png").write_bytes((CONCEPTS / "chair.png").read_bytes())
    return folder


@pytest.fixture
def host() -> Iterator[StandInHost]:
    stood = StandInHost(preview=CONCEPTS / "teapot.png", job_seconds=2.5)
    yield stood
    stood.close()
    assert stood.off_main_calls == 0, "host work ran off the (stand-in) main thread"


@pytest.fixture
def budget() -> BudgetLimits:
    return BudgetLimits()


@pytest.fixture
def server(host: StandInHost, token: str, allowed: Path, budget: BudgetLimits) -> Iterator[AgentServer]:
    running = AgentServer(
        host, AgentSettings(token=token, budget=budget, allowed_folders=(allowed,), version="9.9.9")
    )
    running.start()
    yield running
    running.stop(timeout=5)
