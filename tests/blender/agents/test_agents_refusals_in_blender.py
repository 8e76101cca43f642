"""What real Kiln refuses an agent, and that nothing reaches the service then: at the door (401,
403), and in the tools (a path outside the allowed folders, a 50 MB image, a file that is no image,
a call over the budget, a request carrying a secret); neither the key nor the token in any answer
or log line."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import socket
import threading
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from agent_client import Answer, initialize, post, send
from agents_harness import Agents
from concepts import CONCEPTS
from mcp import Client
from recording_layout import ADDON_MODULE, wait_for

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
#: Loggers of the agent's side (the SDK client sends the token, and logs what it sends) and of the
#: service, which legitimately sees the key.
NOT_KILNS = ("mcp", "httpx", "httpcore", "sandbox", "uvicorn", "fastapi")


def sentence(result: mcp_types.CallToolResult) -> str:
    assert result.is_error and result.structured_content is None, result
    first = result.content[0]
    assert isinstance(first, mcp_types.TextContent)
    assert "Traceback" not in first.text
    return first.text


def test_no_token_a_wrong_one_or_a_foreign_host_or_origin_is_refused_at_the_door(agents: Agents) -> None:
    assert post(agents.url, PING, None).status == 401
    assert post(agents.url, PING, agents.token[:-2] + "xy").status == 401
    assert post(agents.url, PING, agents.token, Host="evil.example.com").status == 403
    assert post(agents.url, PING, agents.token, Origin="https://evil.example.com").status == 403
    past_the_gate = post(agents.url, PING, agents.token, Origin="http://localhost:3000")
    assert past_the_gate.status == 400 and "Start with initialize" in past_the_gate.error_message


def test_tool_refusals_say_why_and_send_nothing(
    agents: Agents, service: Any, tmp_path: Path, kiln_module: Any
) -> None:
    outside = tmp_path / "private.png"
    outside.write_bytes((CONCEPTS / "chair.png").read_bytes())
    picture = (CONCEPTS / "chair.png").read_bytes()
    huge = base64.b64encode(picture + bytes(50 * 1024 * 1024 - len(picture))).decode()
    not_an_image = base64.b64encode(b"%PDF-1.7 not a picture at all").decode()

    async def scenario(client: Client) -> dict[str, str]:
        calls = {
            "outside": {"image_path": str(outside)},
            "climbing out": {"image_path": str(agents.folder / ".." / "private.png")},
            "huge": {"image_base64": huge},
            "not an image": {"image_base64": not_an_image},
            "a text file": {"image_path": str(agents.folder / "notes.png")},
        }
        return {
            what: sentence(await client.call_tool("generate_from_image", args))
            for what, args in calls.items()
        }

    said = agents.beating(scenario)
    assert "not inside one" in said["outside"] and "not inside one" in said["climbing out"]
    assert str(agents.folder) in said["outside"]  # the sentence names the folders the artist allowed
    assert said["huge"] == "The image is 52.4 MB; the limit is 21 MB."
    assert "is not a PNG, JPEG or WebP image" in said["not an image"]
    assert "is not a PNG, JPEG or WebP image" in said["a text file"]
    assert service.submit_attempts == 0
    assert kiln_module("session.runtime").engine().jobs() == []


def test_a_call_over_the_budget_is_refused_before_anything_is_sent(agents: Agents, service: Any) -> None:
    agents.prefs.agent_credits, agents.prefs.agent_jobs = 5, 2

    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        url = "https://example.com/concept.png"
        return [
            await client.call_tool("generate_from_image", {"image_url": url}),  # 4 credits of 5
            await client.call_tool("generate_from_image", {"image_url": url, "reuse": "never"}),
            await client.call_tool("generate_from_text", {"prompt": "a stool"}),  # price unknown: a job
            await client.call_tool("generate_from_text", {"prompt": "a bench"}),  # no job left
        ]

    first, over_credits, stool, over_jobs = agents.beating(scenario)
    assert not first.is_error and not stool.is_error
    assert sentence(over_credits).startswith(
        "This would go over the agent budget: it needs 4 credits, and this session has 1 credit of 5 left."
    )
    assert "it needs 1 job, and this session has 0 jobs of 2 left" in sentence(over_jobs)
    wait_for(lambda: service.submit_attempts == 2, what="both jobs sent")


def test_raising_the_budget_lets_a_connected_agent_go_on(agents: Agents, service: Any) -> None:
    agents.prefs.agent_jobs = 1
    refused_once, raised = threading.Event(), threading.Event()

    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        first = await client.call_tool("generate_from_text", {"prompt": "a stool"})
        refused = await client.call_tool("generate_from_text", {"prompt": "a bench"})
        refused_once.set()
        await asyncio.to_thread(raised.wait, 10)
        again = await client.call_tool("generate_from_text", {"prompt": "a bench"})
        return [first, refused, again]

    def raise_it() -> None:
        """The artist raises the budget; the beat after that one applies it, then the agent goes on."""
        if not refused_once.is_set() or raised.is_set():
            return
        if agents.prefs.agent_jobs == 3:
            raised.set()
        agents.prefs.agent_jobs = 3

    first, refused, again = agents.beating(scenario, on_beat=raise_it)
    assert not first.is_error and refused.is_error and not again.is_error, again
    assert again.structured_content is not None
    assert again.structured_content["budget"]["jobs_limit"] == 3
    wait_for(lambda: service.submit_attempts == 2, what="both jobs sent")


def test_the_server_follows_the_preferences_and_a_taken_port_is_said(
    agents: Agents, blender: Any, kiln_module: Any
) -> None:
    status = kiln_module("api.agents.status")
    language = kiln_module("language")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        agents.prefs.agent_port = port
        agents.watcher.beat()
        assert agents.serving.url() == ""
        problem = status.current.problem
        assert problem is not None
        said = language.said(problem)
        assert said.startswith(f"Port {port} is taken by another program")
        agents.watcher.beat()  # not tried again, nor said again, until the port changes
        assert status.current.problem == problem
    agents.prefs.agent_port = 0
    agents.watcher.beat()
    assert agents.serving.url() and status.current.problem is None
    agents.prefs.allow_agents = False
    agents.watcher.beat()
    assert agents.serving.url() == "" and not status.current.running
    agents.prefs.allow_agents = True
    agents.watcher.beat()


def test_the_environment_starts_the_server_with_allow_agents_off(
    agents: Agents, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, status = kiln_module("agents.settings"), kiln_module("api.agents.status")
    token = "env-token-" + "0123456789abcdefghijklmnopqrstuvwxyz"
    monkeypatch.setenv("KILN_AGENT_PORT", "0")
    monkeypatch.setenv("KILN_AGENT_TOKEN", token)
    settings.read_environment()  # as Kiln reads it when it is enabled
    agents.prefs.allow_agents = False
    try:
        agents.watcher.beat()
        url = agents.serving.url()
        assert url and status.current.from_environment
        assert post(url, PING, agents.token).status == 401  # Kiln's own token is not this server's
        session = initialize(url, token)
        assert post(url, PING, token, Mcp_Session_Id=session).status == 200
        monkeypatch.setenv("KILN_AGENT_TOKEN", "short")
        settings.read_environment()
        agents.watcher.beat()
        assert agents.serving.url() == "" and status.current.problem is not None
        assert "KILN_AGENT_TOKEN" in kiln_module("language").said(status.current.problem)
    finally:
        monkeypatch.delenv("KILN_AGENT_PORT")
        monkeypatch.delenv("KILN_AGENT_TOKEN")
        settings.read_environment()
        agents.prefs.allow_agents = True
        agents.watcher.beat()


def test_a_new_token_locks_the_old_one_out(agents: Agents, blender: Any) -> None:
    assert blender.ops.kiln.new_agent_token() == {"FINISHED"}
    serving = agents.serving
    assert serving.token() != agents.token and serving.url()
    assert post(serving.url(), PING, agents.token).status == 401
    assert initialize(serving.url(), serving.token())


def test_neither_the_key_nor_the_token_reaches_an_answer_or_a_log_line(
    agents: Agents, service: Any, sandbox_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # The agent here is hostile and puts the key in its own messages: its client's log of what it
    # sends is the agent's, not Kiln's (the suite's key watch would see it there).
    caplog.set_level(logging.INFO, logger="mcp")
    token = agents.token
    answers: list[Answer] = [
        post(agents.url, PING, None),
        post(agents.url, PING, token + "x"),
        post(agents.url, PING, token, Host="evil.example.com"),
        send(agents.url + f"?token={token}", "GET", headers={"Authorization": f"Bearer {token}"}),
    ]

    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        return [
            await client.call_tool("generate_from_text", {"prompt": f"a chair {token}"}),
            await client.call_tool("generate_from_text", {"prompt": f"a chair {sandbox_key}"}),
            await client.call_tool("generate_from_image", {"image_url": f"https://example.com/{token}.png"}),
            await client.call_tool("estimate_cost", {"prompt": f"a lamp named {sandbox_key}"}),
            await client.call_tool("generate_from_text", {"prompt": "a plain chair"}),
        ]

    results = agents.beating(scenario)
    assert [result.is_error for result in results] == [True, True, True, True, False]
    assert "access token or the artist's API key" in sentence(results[0])
    wait_for(lambda: service.submit_attempts == 1, what="the plain chair sent")
    said = [answer.body.decode() + json.dumps(answer.headers) for answer in answers]
    said += [json.dumps(result.model_dump(mode="json")) for result in results]
    kilns = [record for record in caplog.records if not record.name.startswith(NOT_KILNS)]
    assert any(record.name.startswith(ADDON_MODULE) for record in kilns)
    said += [record.getMessage() for record in kilns]
    said += [logging.Formatter().formatException(r.exc_info) for r in kilns if r.exc_info]
    for text in said:
        assert token not in text and sandbox_key not in text, text[:300]
