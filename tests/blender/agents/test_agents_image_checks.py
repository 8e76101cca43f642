"""An agent's image job: checked before a credit is spent (a refusal sends nothing), prepared, and
its fidelity given by get_job."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

import mcp_types
from agents_harness import Agents
from mcp import Client

from fixtures.concept_images import write_case

CASES = Path(tempfile.mkdtemp(prefix="kiln-agent-cases-"))
CLIENT = mcp_types.Implementation(name="Claude Desktop", version="0.9.2")


def _data(case: str) -> str:
    return base64.b64encode(write_case(CASES, case).read_bytes()).decode()


def test_an_agent_image_is_checked_prepared_and_measured(agents: Agents, service: Any) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        refused = await client.call_tool("generate_from_image", {"image_base64": _data("single_colour")})
        started = await client.call_tool("generate_from_image", {"image_base64": _data("off_centre")})
        assert not started.is_error, started.content
        job_id = started.structured_content["job"]["job_id"]  # type: ignore[index]
        final: dict[str, Any] = {}
        for _ in range(20):
            result = await client.call_tool("get_job", {"job_id": job_id, "wait_seconds": 2})
            final = result.structured_content["job"]  # type: ignore[index]
            if final["settled"]:
                break
        return {"refused": refused, "started": started.structured_content, "final": final}

    seen = agents.beating(scenario, client_info=CLIENT)
    assert seen["refused"].is_error and "single colour" in seen["refused"].content[0].text
    check = seen["started"]["job"]["image_check"]
    assert check["prepared"] and check["findings"] == ["subject_small"] and check["said"]
    final = seen["final"]
    assert final["state"] == "imported" and final["fidelity"] >= 0.75, final
    assert service.submit_attempts == 1
