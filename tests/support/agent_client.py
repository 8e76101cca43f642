"""Reaching Kiln's agent server as agents do: the official MCP Python SDK's client, and raw HTTP.

``with_client(url, token, scenario)`` runs ``scenario(client)`` against the server with the SDK's
own ``Client`` over its own Streamable HTTP transport (``mcp`` from PyPI, ``requirements/dev.txt``),
the token in the header its ``httpx2`` client sends. ``post``/``send`` speak HTTP by hand, for what
no well-behaved client would send (a foreign Host, a wrong token, a body too large).
"""

from __future__ import annotations

import asyncio
import http.client
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

T = TypeVar("T")

#: The tools, by the names the issue gives them, in the order tools/list names them.
TOOL_NAMES = [
    "estimate_cost",
    "generate_from_text",
    "generate_from_image",
    "get_job",
    "list_jobs",
    "cancel_job",
    "import_job",
    "get_preview",
]


def with_client(url: str, token: str, scenario: Callable[[Client], Awaitable[T]], **options: Any) -> T:
    """``options``: the SDK ``Client``'s own (``client_info`` names the agent, as Claude Desktop would)."""

    async def run() -> T:
        headers = {"Authorization": f"Bearer {token}"}
        timeout = httpx2.Timeout(30.0, read=60.0)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
            Client(streamable_http_client(url, http_client=http), **options) as client,
        ):
            return await scenario(client)

    return asyncio.run(run())


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error_message(self) -> str:
        return str(self.json()["error"]["message"])


def send(
    url: str, method: str = "POST", body: bytes | None = None, headers: dict[str, str] | None = None
) -> Answer:
    """One request as given (a ``Host`` in ``headers`` replaces the real one)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request(method, parts.path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()


def post(url: str, message: dict[str, Any] | bytes, token: str | None, **headers: str) -> Answer:
    """POST one message with the headers a client sends (``token`` None: no Authorization)."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent.update({name.replace("_", "-"): value for name, value in headers.items()})
    return send(url, "POST", body, sent)


def initialize(url: str, token: str, version: str = "2025-11-25") -> str:
    """A new session's id, by hand."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    answer = post(url, message, token)
    assert answer.status == 200, answer
    return answer.headers["mcp-session-id"]
