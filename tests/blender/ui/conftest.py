"""Fixtures for the UI tests: the add-on's UI modules and jobs in known states."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest


@pytest.fixture
def ui(kiln_module: Any) -> SimpleNamespace:
    """The add-on's UI modules."""
    return SimpleNamespace(
        panels=kiln_module("panels"),
        generate=kiln_module("panels.generate"),
        jobs=kiln_module("panels.jobs"),
        thumbnails=kiln_module("panels.thumbnails"),
        preferences=kiln_module("preferences"),
        runtime=kiln_module("session.runtime"),
        watcher=kiln_module("session.watcher"),
        messenger=kiln_module("session.messenger"),
        announce=kiln_module("operators.announce"),
        main_thread=kiln_module("main_thread"),
        prefs_actions=kiln_module("operators.prefs_actions"),
        spending=kiln_module("session.spending"),
    )


@pytest.fixture
def no_key(blender: Any, fresh_jobs: Path, ui: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A service URL but no key anywhere (preferences or environment)."""
    monkeypatch.delenv("KILN_API_KEY", raising=False)
    monkeypatch.setenv("KILN_BASE_URL", "https://kiln.example.com")
    ui.preferences.get().api_key = ""
    ui.preferences.finish_key_saves()
    return blender


@pytest.fixture
def slow_service(
    blender: Any, fresh_jobs: Path, sandbox_factory: Any, sandbox_key: str, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """Kiln pointed at a sandbox slow enough that a text job is queued, then running, for seconds."""
    server = sandbox_factory(speed=0.5)
    monkeypatch.setenv("KILN_BASE_URL", server.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    return server
