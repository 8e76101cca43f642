"""Real Kiln's agent server in the bpy module: Allow Agents on, the sandbox as the service
(``agents_harness`` beats the watcher on the test's main thread)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents_harness import Agents
from concepts import CONCEPTS


@pytest.fixture
def allowed(tmp_path: Path) -> Path:
    """A folder the artist allowed, with a concept image and a text file that claims to be one."""
    folder = tmp_path / "allowed"
    folder.mkdir()
    (folder / "chair.png").write_bytes((CONCEPTS / "chair.png").read_bytes())
    (folder / "notes.png").write_text("just words, not a picture")
    return folder


@pytest.fixture
def agents(service: Any, kiln_module: Any, allowed: Path) -> Iterator[Agents]:
    """Allow Agents on (port 0: any free one), one allowed folder; the server started by a beat."""
    prefs = kiln_module("preferences").get()
    watcher, serving = kiln_module("session.watcher"), kiln_module("agents.serving")
    prefs.agent_port, prefs.agent_credits, prefs.agent_jobs = 0, 20, 10
    prefs.agent_folder_1 = str(allowed)
    prefs.allow_agents = True
    watcher.beat()
    assert serving.url(), kiln_module("api.agents.status").current
    made = Agents(serving.url(), serving.token(), watcher, serving, prefs, allowed)
    yield made
    # Through ``made``: a test that enabled Kiln anew put the new modules and preferences there.
    made.prefs.allow_agents = False
    made.prefs.agent_folder_1 = ""
    made.watcher.beat()
    assert made.serving.url() == ""
