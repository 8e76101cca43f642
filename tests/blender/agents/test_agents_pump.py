"""The watcher's pump carries the agents' calls: rooms above it give it duties, and a duty sets how
soon the next beat comes; the agent server asks for beats often only while it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_client import initialize
from agents_harness import Agents


def test_a_duty_runs_each_beat_and_may_ask_for_the_next_one_sooner(
    blender: Any, fresh_jobs: Path, kiln_module: Any, caplog: pytest.LogCaptureFixture
) -> None:
    watcher = kiln_module("session.watcher")
    ran: list[str] = []

    def soon() -> float:
        ran.append("soon")
        return 0.05

    def broken() -> float:
        raise RuntimeError("a bug in a duty")

    watcher.add_duty(soon)
    watcher.add_duty(broken)
    try:
        assert watcher.beat() == 0.05
        assert ran == ["soon"] and "a bug in a duty" in caplog.text  # logged, and the beat went on
    finally:
        watcher.remove_duty(soon)
        watcher.remove_duty(broken)
    assert watcher.beat() == watcher.IDLE_SECONDS


def test_the_agents_duty_asks_for_quick_beats_only_while_serving(agents: Agents, kiln_module: Any) -> None:
    serving = agents.serving
    assert agents.watcher.beat() == serving.LISTENING_SECONDS
    initialize(agents.url, agents.token)
    assert agents.watcher.beat() == serving.CONNECTED_SECONDS
    agents.prefs.allow_agents = False
    assert agents.watcher.beat() == agents.watcher.IDLE_SECONDS
    agents.prefs.allow_agents = True
    agents.watcher.beat()
