"""The MCP conformance suite (npm's ``@modelcontextprotocol/conformance``) against Kiln's agent server
with the layer's stand-in host (``conformance`` says which scenarios and how they run;
``test_agents.py`` runs them against real Kiln in the Blender program too).

The suite's client cannot send a header, and Kiln answers nobody without its token; a proxy
(``bearer_proxy``) adds the header as an artist's client configuration does and passes everything
else as sent, so the DNS-rebinding scenario's foreign Host still reaches Kiln's gate unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from agent_stand_in import StandInHost
from bearer_proxy import BearerProxy
from concepts import CONCEPTS
from conformance import SCENARIOS, failed_checks, npm_env
from program import Program

from api.agents import AgentServer, AgentSettings, new_token


@pytest.fixture(scope="module")
def npm(program: Program) -> dict[str, str]:
    return npm_env(program)


@pytest.fixture
def kiln_behind_the_header() -> Iterator[str]:
    """Kiln's agent server (the stand-in host), reached through the proxy that adds its token."""
    host = StandInHost(preview=CONCEPTS / "teapot.png")
    token = new_token()
    server = AgentServer(host, AgentSettings(token=token))
    server.start()
    try:
        with BearerProxy(server.url, token) as proxy:
            yield proxy.url
    finally:
        server.stop(timeout=5)
        host.close()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(
    program: Program, npm: dict[str, str], kiln_behind_the_header: str, scenario: str
) -> None:
    failed = failed_checks(program, npm, kiln_behind_the_header, scenario)
    assert failed == [], json.dumps(failed, indent=2)
