"""``bpy.ops.kiln.serve_agents``: the agent server for scripts and farms, in background mode (the bpy
module is one), serving until it is stopped: its stop file, its time limit, or a termination signal.

The operator's own loop is Blender's main thread here (no timers fire): it beats the watcher, so
an agent's job lands in the scene while it serves, and runs the agents' calls as they come.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from agent_client import initialize, with_client
from mcp import Client
from recording_layout import wait_for

TOKEN = "serve-token-" + "0123456789abcdefghijklmnopqrstuvwxyz"


def test_serve_agents_serves_until_its_stop_file_and_the_job_lands(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    serving = kiln_module("agents.serving")
    assert kiln_module("preferences").get().allow_agents is False
    stop_file = tmp_path / "stop-serving"
    outcome: dict[str, Any] = {}

    async def scenario(client: Client) -> dict[str, Any]:
        started = await client.call_tool("generate_from_text", {"prompt": "a farm stool"})
        assert started.structured_content is not None, started.content
        job_id = started.structured_content["job"]["job_id"]
        for _ in range(30):
            result = await client.call_tool("get_job", {"job_id": job_id, "wait_seconds": 2})
            assert result.structured_content is not None, result.content
            job = result.structured_content["job"]
            if job["settled"]:
                return dict(job)
        raise AssertionError("the job never settled")

    def agent() -> None:
        try:
            url = wait_for(serving.url, what="the server to listen")
            outcome["job"] = with_client(url, TOKEN, scenario)
        except BaseException as exc:
            outcome["failure"] = exc
        finally:
            stop_file.touch()

    thread = threading.Thread(target=agent)
    thread.start()
    done = blender.ops.kiln.serve_agents(port=0, token=TOKEN, seconds=120, stop_file=str(stop_file))
    thread.join(10)
    assert done == {"FINISHED"}
    assert "failure" not in outcome, outcome
    job = outcome["job"]
    assert job["state"] == "imported" and job["objects"]
    assert all(blender.data.objects[name]["kiln_agent"] for name in job["objects"])
    assert serving.url() == "", "the server stops with the loop (Allow Agents is off)"


def test_serve_agents_stops_on_a_termination_signal(blender: Any, fresh_jobs: Path, kiln_module: Any) -> None:
    serving = kiln_module("agents.serving")
    reached: list[int] = []

    def agent_then_signal() -> None:
        url = wait_for(serving.url, what="the server to listen")
        reached.append(len(initialize(url, TOKEN)))
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=agent_then_signal)
    thread.start()
    started = time.monotonic()
    assert blender.ops.kiln.serve_agents(port=0, token=TOKEN, seconds=60) == {"FINISHED"}
    thread.join(10)
    assert reached and time.monotonic() - started < 30
    assert signal.getsignal(signal.SIGTERM) == before, "the handler Blender had is put back"
    assert serving.url() == ""


def test_serve_agents_refuses_a_guessable_token_and_says_a_taken_port(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    with pytest.raises(RuntimeError, match="at least 32 letters, digits"):
        blender.ops.kiln.serve_agents(port=0, token="secret")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"Port {port} is taken by another program"):
            blender.ops.kiln.serve_agents(port=port, token=TOKEN, seconds=5)
    assert kiln_module("agents.serving").url() == ""


def test_a_call_waiting_for_the_main_thread_is_answered_between_beats(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path
) -> None:
    """The loop waits on the bridge, not on a clock: a call is answered long before the next beat."""
    serving, background = kiln_module("agents.serving"), kiln_module("agents.background")
    stop_file = tmp_path / "stop"
    took: list[float] = []

    async def scenario(client: Client) -> None:
        for _ in range(5):
            asked = time.perf_counter()
            result: mcp_types.CallToolResult = await client.call_tool("list_jobs", {})
            took.append(time.perf_counter() - asked)
            assert not result.is_error

    def agent() -> None:
        try:
            with_client(wait_for(serving.url, what="the server"), TOKEN, scenario)
        finally:
            stop_file.touch()

    thread = threading.Thread(target=agent)
    thread.start()
    blender.ops.kiln.serve_agents(port=0, token=TOKEN, seconds=60, stop_file=str(stop_file))
    thread.join(10)
    assert len(took) == 5 and sorted(took)[2] < background.SERVE_WAIT, took
