"""Fixtures for the game-ready tests: an engine whose helper is this Python running the real child script."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def quality_engine(service: Any, sandbox_key: str, kiln_module: Any, tmp_path: Path) -> Iterator[Any]:
    """A started engine on the sandbox, every mesh through the real helper (``helper_blender``)."""
    jobs = kiln_module("api.jobs")
    isolation = kiln_module("api.isolation")
    config = jobs.ServiceConfig(
        base_url=service.base_url,
        api_key=sandbox_key,
        poll_interval=0.2,
        timeout_seconds=120.0,
        helper_command=isolation.module_helper_command(),
    )
    engine = jobs.JobEngine(tmp_path / "state", workers=2)
    engine.start(config)
    yield engine
    engine.shutdown()
