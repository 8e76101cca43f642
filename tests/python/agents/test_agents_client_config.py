"""What the Copy Client Config button gives MCP clients: the URL, the header, the stdio bridge."""

from __future__ import annotations

import json

from api.agents.client_config import bridge_config, claude_code_command, http_config, render, vscode_config

URL = "http://127.0.0.1:8765/mcp"
TOKEN = "abc-DEF_123"


def test_http_clients_get_the_url_and_the_header() -> None:
    assert json.loads(render(http_config(URL, TOKEN))) == {
        "mcpServers": {"kiln": {"type": "http", "url": URL, "headers": {"Authorization": f"Bearer {TOKEN}"}}}
    }
    assert vscode_config(URL, TOKEN)["servers"]["kiln"] == http_config(URL, TOKEN)["mcpServers"]["kiln"]
    assert claude_code_command(URL, TOKEN) == (
        f'claude mcp add --transport http kiln {URL} --header "Authorization: Bearer {TOKEN}"'
    )


def test_stdio_only_clients_get_mcp_remote_with_the_header_from_the_environment() -> None:
    entry = bridge_config(URL, TOKEN)["mcpServers"]["kiln"]
    assert entry["command"] == "npx"
    assert entry["args"] == ["-y", "mcp-remote", URL, "--header", "Authorization:${KILN_AUTHORIZATION}"]
    assert entry["env"] == {"KILN_AUTHORIZATION": f"Bearer {TOKEN}"}
    assert not any(" " in arg for arg in entry["args"])  # clients that split at spaces keep it whole
