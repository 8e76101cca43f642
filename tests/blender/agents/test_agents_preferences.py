"""Preferences ▸ Kiln ▸ Agents, its buttons, and the token's keeping: where agents reach Kiln or why
not, the client configuration copied, the token in no saved file, the server gone with Kiln."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest
from agents_harness import Agents
from recording_layout import ADDON_MODULE, Recorder, draw_preferences, wait_for


def draw_prefs(kiln_module: Any) -> Recorder:
    return draw_preferences(kiln_module("preferences"))


def test_the_agents_section_says_where_agents_reach_kiln_and_which_folder_is_missing(
    agents: Agents, kiln_module: Any, tmp_path: Path
) -> None:
    text = draw_prefs(kiln_module).text()
    assert f"Agents can reach Kiln at {agents.url}" in text
    agents.prefs.agent_folder_2 = str(tmp_path / "no such folder")
    try:
        text = draw_prefs(kiln_module).text()
    finally:
        agents.prefs.agent_folder_2 = ""
    assert "no such folder is not a folder: agents cannot name images in it" in text
    assert kiln_module("preferences").agent_folders() == (agents.folder,)


def test_nothing_is_said_while_agents_are_not_allowed(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    kiln_module("session.watcher").beat()
    layout = draw_prefs(kiln_module)
    assert "Agents can reach Kiln" not in layout.text()
    assert {"kiln.copy_agent_config", "kiln.new_agent_token"} <= set(layout.operator_ids())
    with pytest.raises(RuntimeError, match="turn on Allow Agents"):
        blender.ops.kiln.copy_agent_config()


def test_copy_client_config_says_so_and_logs_no_token(
    agents: Agents, blender: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """What lands on the clipboard is checked in the window suite: the bpy module has no clipboard."""
    caplog.set_level(logging.DEBUG)
    for client in ("HTTP", "VSCODE", "BRIDGE", "COMMAND"):
        assert blender.ops.kiln.copy_agent_config(client=client) == {"FINISHED"}
    assert all(agents.token not in record.getMessage() for record in caplog.records)


def test_the_token_is_in_no_saved_file(agents: Agents, blender: Any, tmp_path: Path) -> None:
    scene = tmp_path / "scene.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(scene))
    blender.ops.wm.save_userpref()
    userpref = Path(blender.utils.resource_path("USER")) / "config" / "userpref.blend"
    token = agents.token.encode()
    assert token not in scene.read_bytes()
    assert userpref.is_file() and token not in userpref.read_bytes()
    assert not hasattr(agents.prefs, "agent_token")


def test_disabling_kiln_stops_the_server_and_enabling_it_with_agents_allowed_starts_it(
    agents: Agents, blender: Any, kiln_module: Any
) -> None:
    assert blender.ops.kiln.new_agent_token() == {"FINISHED"}  # kept on disk, not only in memory
    made = agents.serving.token()
    port = int(agents.serving.url().split(":")[2].split("/")[0])
    blender.ops.preferences.addon_disable(module=ADDON_MODULE)
    try:
        assert not kiln_module("api.agents.status").current.running
        wait_for(lambda: not _listening(port), timeout=5, what="the port closed (on a thread of its own)")
    finally:
        blender.ops.preferences.addon_enable(module=ADDON_MODULE)
        logging.getLogger(ADDON_MODULE).setLevel(logging.DEBUG)
    prefs = kiln_module("preferences").get()  # Kiln anew: its preferences are a new object
    prefs.agent_port, prefs.allow_agents = 0, True
    serving = kiln_module("agents.serving")
    kiln_module("session.watcher").beat()
    try:
        kept = serving.token() == made
        assert serving.url() and kept, "the token was made anew, not read back from where Kiln keeps it"
    finally:
        prefs.allow_agents = False
        kiln_module("session.watcher").beat()
    agents.prefs = prefs
    agents.watcher, agents.serving = kiln_module("session.watcher"), serving


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
