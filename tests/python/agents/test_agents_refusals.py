"""What Kiln's agent server refuses, and how: at the door (HTTP status), in the protocol (JSON-RPC
errors), and in the tools (a tool error with a sentence, nothing sent to the service)."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from agent_client import Answer, initialize, post, send, with_client
from agent_stand_in import KEY, StandInHost
from concepts import CONCEPTS
from mcp import Client

from api.agents import AgentServer, AgentSettings, BudgetLimits
from api.agents.transport import BODY_LIMIT

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


def tool_error(server: AgentServer, token: str, name: str, arguments: dict[str, Any]) -> str:
    """The sentence of the tool error ``name`` answers with (fails when it succeeds)."""

    async def scenario(client: Client) -> mcp_types.CallToolResult:
        return await client.call_tool(name, arguments)

    result = with_client(server.url, token, scenario)
    assert result.is_error, result
    assert result.structured_content is None
    first = result.content[0]
    assert isinstance(first, mcp_types.TextContent)
    assert first.text.endswith(".") and "Traceback" not in first.text
    return first.text


# --- the door ------------------------------------------------------------------------------------
def test_no_token_or_a_wrong_one_is_401_with_a_challenge(server: AgentServer, token: str) -> None:
    missing = post(server.url, PING, None)
    wrong = post(server.url, PING, token[:-1] + ("A" if token[-1] != "A" else "B"))
    other_scheme = send(server.url, "POST", b"{}", {"Authorization": f"Basic {token}"})
    for answer in (missing, wrong, other_scheme):
        assert answer.status == 401
        assert answer.headers["www-authenticate"].startswith('Bearer realm="kiln"')
    assert "Authorization: Bearer TOKEN" in missing.error_message
    assert "not the one" in wrong.error_message


def test_a_foreign_host_or_origin_is_403_even_with_the_token(server: AgentServer, token: str) -> None:
    port = server.port
    for host in (
        "evil.example.com",
        f"evil.example.com:{port}",
        "127.0.0.1:1",
        f"127.0.0.1.evil.example:{port}",
    ):
        assert post(server.url, PING, token, Host=host).status == 403, host
    for origin in (
        "http://evil.example.com",
        "null",
        "http://localhost.evil.example",
        "http://user@127.0.0.1",
    ):
        answer = post(server.url, PING, token, Origin=origin)
        assert answer.status == 403, origin
        assert "web pages from other sites" in answer.error_message
    # Browsers on this computer may call it (with the token); so may any loopback spelling of the Host.
    assert post(server.url, PING, token, Origin="http://localhost:5173").status == 400  # no session yet
    assert post(server.url, PING, token, Host=f"localhost:{port}").status == 400


def test_the_gate_comes_before_the_path_and_every_method(server: AgentServer, token: str) -> None:
    base = server.url.removesuffix("/mcp")
    assert send(base + "/other", "GET").status == 401
    assert send(base + "/other", "GET", headers={"Authorization": f"Bearer {token}"}).status == 404
    for method in ("GET", "PUT", "OPTIONS"):
        assert send(server.url, method).status == 401
        answer = send(server.url, method, headers={"Authorization": f"Bearer {token}"})
        assert answer.status == 405 and answer.headers["allow"] == "POST, DELETE"


def test_a_body_over_the_cap_is_413_before_it_is_read(server: AgentServer, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Content-Length": str(BODY_LIMIT + 1)}  # fmt: skip
    answer = send(server.url, "POST", None, headers)
    assert answer.status == 413 and "96 MB" in answer.error_message
    assert answer.headers["connection"] == "close"


def test_bad_json_and_bad_messages_are_json_rpc_errors(server: AgentServer, token: str) -> None:
    session = initialize(server.url, token)
    cases = {
        b"{not json": -32700,
        b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]': -32600,
        b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}': -32600,
        b'{"jsonrpc": "2.0", "id": null, "method": "ping"}': -32600,
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}': -32602,
        b"[" * 100_000: -32700,
    }
    for body, code in cases.items():
        answer = post(server.url, body, token, Mcp_Session_Id=session)
        assert answer.status == 400 and answer.json()["error"]["code"] == code, body[:40]
    unknown = post(
        server.url, {"jsonrpc": "2.0", "id": 3, "method": "resources/list"}, token, Mcp_Session_Id=session
    )
    assert unknown.status == 200 and unknown.json()["error"]["code"] == -32601
    call = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "run_python", "arguments": {}},
    }
    no_tool = post(server.url, call, token, Mcp_Session_Id=session)
    assert no_tool.json()["error"]["code"] == -32602 and "no tool" in no_tool.error_message
    assert post(server.url, b"ping", token, Content_Type="text/plain", Mcp_Session_Id=session).status == 415


def test_sessions_are_needed_known_and_ended_by_delete(server: AgentServer, token: str) -> None:
    assert post(server.url, PING, token).status == 400  # no session
    assert post(server.url, PING, token, Mcp_Session_Id="made-up").status == 404
    session = initialize(server.url, token)
    assert post(server.url, PING, token, Mcp_Session_Id=session).json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {},
    }
    notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(server.url, notice, token, Mcp_Session_Id=session).status == 202
    again = post(server.url, {**PING, "method": "initialize", "params": {}}, token, Mcp_Session_Id=session)
    assert again.status == 400
    auth = {"Authorization": f"Bearer {token}"}
    assert send(server.url, "DELETE", headers={**auth, "Mcp-Session-Id": session}).status == 200
    assert post(server.url, PING, token, Mcp_Session_Id=session).status == 404
    assert send(server.url, "DELETE", headers={**auth, "Mcp-Session-Id": session}).status == 404


def test_protocol_versions_are_negotiated_and_the_header_checked(server: AgentServer, token: str) -> None:
    def offered(version: str) -> str:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "x"}}
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        return str(post(server.url, message, token).json()["result"]["protocolVersion"])

    assert [offered(v) for v in ("2025-11-25", "2025-06-18", "2025-03-26")] == [
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
    ]
    assert offered("2099-01-01") == "2025-11-25"
    session = initialize(server.url, token, "2025-06-18")
    answer = post(server.url, PING, token, Mcp_Session_Id=session, MCP_Protocol_Version="2026-07-28")
    assert answer.status == 400
    error = answer.json()["error"]
    assert error["code"] == -32022 and error["data"]["supported"] == [
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
    ]
    assert (
        post(server.url, PING, token, Mcp_Session_Id=session, MCP_Protocol_Version="2025-06-18").status == 200
    )


def test_a_request_with_a_progress_token_is_answered_as_an_event_stream(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    session = initialize(server.url, token)
    job = host.artist_job.id
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "list_jobs", "arguments": {}, "_meta": {"progressToken": "p1"}}}  # fmt: skip
    answer = post(server.url, call, token, Mcp_Session_Id=session)
    assert answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    events = [json.loads(line[6:]) for line in answer.body.decode().splitlines() if line.startswith("data: ")]
    assert events[-1]["id"] == 9 and events[-1]["result"]["structuredContent"]["total"] == 0
    json_only = post(server.url, call, token, Mcp_Session_Id=session, Accept="application/json")
    assert json_only.headers["content-type"] == "application/json" and job not in json_only.body.decode()


# --- the tools -----------------------------------------------------------------------------------
def test_a_path_outside_the_allowed_folders_is_refused_however_it_is_spelled(
    server: AgentServer, token: str, host: StandInHost, allowed: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "private.png"
    outside.write_bytes((CONCEPTS / "chair.png").read_bytes())
    link = allowed / "link.png"
    link.symlink_to(outside)
    spellings = [
        str(outside),
        str(allowed / ".." / "private.png"),
        str(link),
        str(tmp_path / "allowed-not" / "x.png"),
        str(tmp_path / "no-such-file.png"),
        "/etc/passwd",
    ]
    for spelling in spellings:
        said = tool_error(server, token, "generate_from_image", {"image_path": spelling})
        assert "not inside one" in said, spelling
    relative = tool_error(server, token, "generate_from_image", {"image_path": "chair.png"})
    assert "full path" in relative
    assert host.submitted == []


def test_no_path_is_read_when_no_folder_is_allowed(host: StandInHost, token: str) -> None:
    bare = AgentServer(host, AgentSettings(token=token))
    bare.start()
    try:
        said = tool_error(bare, token, "generate_from_image", {"image_path": str(CONCEPTS / "chair.png")})
    finally:
        bare.stop(timeout=5)
    assert "none is allowed" in said and host.submitted == []


def test_a_50_mb_base64_image_is_refused_by_its_length(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    """A 50 MB picture is 70 MB of base64: under the body cap, so the tool itself says why not."""
    picture = (CONCEPTS / "chair.png").read_bytes()
    huge = base64.b64encode(picture + bytes(50 * 1024 * 1024 - len(picture))).decode()
    said = tool_error(server, token, "generate_from_image", {"image_base64": huge})
    assert said == "The image is 52.4 MB; the limit is 21 MB."
    assert host.submitted == []


def test_bytes_that_are_not_an_image_are_refused(
    server: AgentServer, token: str, host: StandInHost, allowed: Path
) -> None:
    text = base64.b64encode(b"%PDF-1.7 not a picture at all").decode()
    assert "is not a PNG, JPEG or WebP image" in tool_error(
        server, token, "generate_from_image", {"image_base64": text}
    )
    (allowed / "notes.png").write_text("just words")
    said = tool_error(server, token, "generate_from_image", {"image_path": str(allowed / "notes.png")})
    assert "is not a PNG, JPEG or WebP image" in said
    assert "not valid base64" in tool_error(server, token, "generate_from_image", {"image_base64": "@@@@"})
    said = tool_error(server, token, "generate_from_image", {"image_url": "http://example.com/a.png"})
    assert "https" in said
    assert host.submitted == []


@pytest.mark.parametrize("budget", [BudgetLimits(credits=5, jobs=10)])
def test_a_call_over_the_credit_budget_sends_nothing(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    url = "https://example.com/a.png"

    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        first = await client.call_tool("generate_from_image", {"image_url": url})
        second = await client.call_tool("generate_from_image", {"image_url": url, "reuse": "never"})
        cheap = await client.call_tool("generate_from_image", {"image_url": url, "resolution": "1024"})
        return [first, second, cheap]

    first, second, cheap = with_client(server.url, token, scenario)
    assert not first.is_error and second.is_error and cheap.is_error
    said = second.content[0]
    assert isinstance(said, mcp_types.TextContent)
    assert said.text.startswith(
        "This would go over the agent budget: it needs 4 credits, and this session has 1 credit of 5 left."
    )
    assert len(host.submitted) == 1


@pytest.mark.parametrize("budget", [BudgetLimits(credits=20, jobs=2)])
def test_jobs_of_unknown_price_count_against_the_job_limit(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        return [await client.call_tool("generate_from_text", {"prompt": f"a chair {n}"}) for n in range(3)]

    results = with_client(server.url, token, scenario)
    assert [result.is_error for result in results] == [False, False, True]
    assert results[1].structured_content is not None
    assert results[1].structured_content["budget"] == {
        "credits_spent": 0, "credits_limit": 20, "jobs_spent": 2, "jobs_limit": 2, "unpriced_jobs": 2,
    }  # fmt: skip
    said = results[2].content[0]
    assert (
        isinstance(said, mcp_types.TextContent)
        and "it needs 1 job, and this session has 0 jobs of 2 left" in said.text
    )
    assert len(host.submitted) == 2


def test_a_refused_submit_gives_the_budget_back(server: AgentServer, token: str, host: StandInHost) -> None:
    host.refuse_submit = "Kiln has no API key yet. Paste it in Kiln's preferences."

    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        refused = await client.call_tool("generate_from_image", {"image_url": "https://example.com/a.png"})
        estimate = await client.call_tool("estimate_cost", {"prompt": "a chair"})
        return [refused, estimate]

    refused, estimate = with_client(server.url, token, scenario)
    assert refused.is_error and refused.content[0].text == host.refuse_submit  # type: ignore[union-attr]
    assert estimate.structured_content is not None
    assert estimate.structured_content["budget"]["credits_spent"] == 0


def test_arguments_are_held_to_the_schema_and_the_sidebars_rules(server: AgentServer, token: str) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("generate_from_text", {"prompt": "a chair", "code": "import os"}, "takes no argument 'code'"),
        ("generate_from_text", {}, "needs the argument prompt"),
        ("generate_from_text", {"prompt": 42}, "prompt must be text"),
        ("generate_from_text", {"prompt": "x" * 4001}, "Kiln sends at most 4,000"),
        ("generate_from_text", {"prompt": "a \x00 chair"}, "invisible control character (U+0000)"),
        ("generate_from_text", {"prompt": "a chair", "resolution": "4k"}, "must be one of auto, 1024, 1536"),
        ("get_job", {"job_id": "../../etc"}, "not in the expected form"),
        ("get_job", {"job_id": "abc", "wait_seconds": 600}, "between 0 and 25"),
        ("generate_from_image", {}, "exactly one of them"),
        ("estimate_cost", {"prompt": "a chair", "image_url": "https://example.com/a.png"}, "not both"),
        ("generate_from_image", {"image_url": "https://user@example.com/a.png"}, "user name or password"),
    ]
    for name, arguments, expected in cases:
        assert expected in tool_error(server, token, name, arguments), (name, arguments)


def test_neither_token_nor_key_leaves_in_a_response_or_a_log_line(
    server: AgentServer, token: str, host: StandInHost, caplog: pytest.LogCaptureFixture
) -> None:
    host.refuse_submit = f"The service rejected the key {KEY} (it said so)."
    caplog.set_level(logging.DEBUG)
    answers: list[Answer] = [
        post(server.url, PING, None),
        post(server.url, PING, token + "x"),
        post(server.url, PING, token, Host="evil.example.com"),
        send(
            server.url.removesuffix("/mcp") + f"/mcp?token={token}",
            "GET",
            headers={"Authorization": f"Bearer {token}"},
        ),
    ]
    session = initialize(server.url, token)
    for name, arguments in [
        ("generate_from_text", {"prompt": f"a chair {token}"}),
        ("generate_from_text", {"prompt": f"a chair {KEY}"}),
        ("generate_from_image", {"image_url": f"https://example.com/{token}.png"}),
        ("get_job", {"job_id": token[:43]}),
    ]:
        call = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        answers.append(post(server.url, call, token, Mcp_Session_Id=session))
    said = [answer.body.decode() + json.dumps(answer.headers) for answer in answers]
    said += [record.getMessage() for record in caplog.records]
    said += [logging.Formatter().formatException(r.exc_info) for r in caplog.records if r.exc_info]
    assert len(said) > len(answers)
    for text in said:
        assert token not in text and KEY not in text
    assert any("***" in answer.body.decode() for answer in answers), "the test reached no masking"


def test_the_token_is_masked_in_the_rooms_log_lines(
    server: AgentServer, token: str, caplog: pytest.LogCaptureFixture
) -> None:
    from api.agents.logs import log

    caplog.set_level(logging.DEBUG)
    log.warning("a line that quotes %s and %s", token, KEY)
    assert caplog.records[-1].getMessage() == "a line that quotes *** and ***"
