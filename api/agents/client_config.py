"""The configuration MCP clients take to reach Kiln's agent server, as the Copy Client Config button
copies it and docs/agents.md shows it.

* Clients that speak Streamable HTTP (Claude Code's ``.mcp.json``, Cursor's ``mcp.json``, Windsurf
  and most others): ``{"mcpServers": {"kiln": {"type": "http", "url": …, "headers": {…}}}}``.
* VS Code's ``mcp.json`` names the table ``servers``.
* Clients that start only local (stdio) servers, such as Claude Desktop's config file: the
  ``mcp-remote`` bridge, run by ``npx``, which forwards stdio to the URL with the header. The header
  is passed through an environment variable and written without a space after the colon, as its
  README advises for clients that split arguments at spaces (Cursor, Claude Desktop on Windows).

Each holds the token, so each is as secret as the token: the button copies it to the clipboard and
Kiln never writes it to a file or a log.
"""

from __future__ import annotations

import json
from typing import Any

SERVER_NAME = "kiln"
BRIDGE_PACKAGE = "mcp-remote"
BRIDGE_VARIABLE = "KILN_AUTHORIZATION"


def _authorization(token: str) -> str:
    return f"Bearer {token}"


def http_config(url: str, token: str) -> dict[str, Any]:
    entry = {"type": "http", "url": url, "headers": {"Authorization": _authorization(token)}}
    return {"mcpServers": {SERVER_NAME: entry}}


def vscode_config(url: str, token: str) -> dict[str, Any]:
    entry = {"type": "http", "url": url, "headers": {"Authorization": _authorization(token)}}
    return {"servers": {SERVER_NAME: entry}}


def bridge_config(url: str, token: str) -> dict[str, Any]:
    entry = {
        "command": "npx",
        "args": ["-y", BRIDGE_PACKAGE, url, "--header", f"Authorization:${{{BRIDGE_VARIABLE}}}"],
        "env": {BRIDGE_VARIABLE: _authorization(token)},
    }
    return {"mcpServers": {SERVER_NAME: entry}}


def claude_code_command(url: str, token: str) -> str:
    """The one line that adds Kiln to Claude Code."""
    header = f"Authorization: {_authorization(token)}"
    return f'claude mcp add --transport http {SERVER_NAME} {url} --header "{header}"'


def render(config: dict[str, Any]) -> str:
    return json.dumps(config, indent=2) + "\n"
