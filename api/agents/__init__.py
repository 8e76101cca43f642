"""Kiln for agents: an MCP server in the artist's Blender, without Blender (the protocol layer).

An LLM agent reaches Kiln through MCP's Streamable HTTP transport at ``http://127.0.0.1:PORT/mcp``
with ``Authorization: Bearer TOKEN``, and gets eight tools (``estimate_cost``,
``generate_from_text``, ``generate_from_image``, ``get_job``, ``list_jobs``, ``cancel_job``,
``import_job``, ``get_preview``). No tool runs code or reads a path outside the folders the artist
allowed; every argument is checked as the Sidebar checks its input; each session spends within a
budget; a generate call answers at once and long work is waited on in short steps.

Why a small implementation and not the official MCP SDK inside the extension: the SDK needs
pydantic, whose pydantic-core is compiled per Python version and platform, plus starlette, anyio,
httpx, uvicorn and sse-starlette. Kiln runs on Blender 4.2 to 5.2 (Python 3.11 to 3.13, and Debian's
system Python 3.14) on Windows, macOS (arm64 and x86_64) and Linux, so every zip would carry about
twenty platform wheels and their pure dependencies, and a Blender on a Python no wheel was built for
could not enable Kiln at all. What Kiln needs of MCP is small (the handshake, ping, tools, progress,
one endpoint), and Python's standard library serves it (``http.server``, ``json``). It is held to
the official SDK's own client and to the MCP conformance suite in tests
(``tests/python/agents``, ``tests/window/test_agents_conformance.py``).

Modules, one job each: ``security`` (the gate: Host, Origin, token), ``transport`` (HTTP: the
endpoint, bodies, sessions' headers, event streams), ``jsonrpc`` (messages), ``protocol`` (the
handshake and the methods), ``sessions`` and ``budget`` (who is connected, what each may spend;
``limits`` its defaults), ``tools`` (the catalogue) with ``generate`` and ``job_tools`` (what each
tool does), ``arguments`` and ``images`` (checking what an agent sends), ``results`` (what a tool
answers), ``host`` (what the Blender side provides), ``bridge`` (the hand-off to Blender's main
thread), ``calls`` (one call's surroundings), ``server`` (start, show, stop), ``status`` (what the
artist is shown of the server in their Blender), ``environment`` (``KILN_AGENT_PORT`` and
``KILN_AGENT_TOKEN``), ``client_config`` (what clients are given), ``logs`` (the room's logger, with
secrets masked) and ``words`` (the sentences).

This is the top room of ``api/``: it may use every room below it; nothing in ``api/`` uses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .bridge import BridgeClosed, HostBusy, MainThreadBridge
    from .budget import BudgetLimits, Spending
    from .host import AgentHost, AgentRequest, JobView, LibraryMatch
    from .security import new_token
    from .server import AgentServer, AgentServerError, AgentSettings
    from .sessions import SessionView

#: Each name's module, loaded on first use: the server (HTTP, the protocol, the tools) is not needed
#: to register the add-on, and most Blenders never serve agents.
_LAZY = {
    "BridgeClosed": ".bridge",
    "HostBusy": ".bridge",
    "MainThreadBridge": ".bridge",
    "BudgetLimits": ".budget",
    "Spending": ".budget",
    "AgentHost": ".host",
    "AgentRequest": ".host",
    "JobView": ".host",
    "LibraryMatch": ".host",
    "new_token": ".security",
    "AgentServer": ".server",
    "AgentServerError": ".server",
    "AgentSettings": ".server",
    "SessionView": ".sessions",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "AgentHost",
    "AgentRequest",
    "AgentServer",
    "AgentServerError",
    "AgentSettings",
    "BridgeClosed",
    "BudgetLimits",
    "HostBusy",
    "JobView",
    "LibraryMatch",
    "MainThreadBridge",
    "SessionView",
    "Spending",
    "new_token",
]
