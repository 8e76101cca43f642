"""Kiln's agent server driven by the official MCP Python SDK's client over real HTTP on loopback.

The client negotiates as it would with any server (its 2026 ``server/discover`` probe first, then
the handshake), checks every successful tool result against the tool's output schema itself, and
receives progress notifications through its own callback.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from agent_client import TOOL_NAMES, with_client
from agent_stand_in import StandInHost
from concepts import CONCEPTS
from mcp import Client

from api.agents import AgentServer
from api.jobs import JobRequest


def text_of(result: mcp_types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, mcp_types.TextContent)
    return first.text


def structured(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.filterwarnings("ignore:ping is removed as of 2026-07-28")  # Kiln speaks the handshake era
def test_the_handshake_names_kiln_and_the_newest_version_the_client_offers(
    server: AgentServer, token: str
) -> None:
    async def scenario(client: Client) -> None:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("kiln", "9.9.9")
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.resources is None and client.server_capabilities.prompts is None
        await client.send_ping()

    with_client(server.url, token, scenario)
    assert [session.agent for session in server.sessions()] == []  # the client ended its session (DELETE)


def test_tools_list_names_the_tools_with_closed_bounded_schemas(server: AgentServer, token: str) -> None:
    async def scenario(client: Client) -> list[mcp_types.Tool]:
        return (await client.list_tools()).tools

    tools = with_client(server.url, token, scenario)
    assert [tool.name for tool in tools] == TOOL_NAMES
    for tool in tools:
        assert tool.description and tool.output_schema
        assert tool.input_schema["additionalProperties"] is False
        for name, field in tool.input_schema["properties"].items():
            bounded = {"maxLength", "enum", "maximum"} & set(field)
            assert bounded, f"{tool.name}.{name} is unbounded"


def test_a_text_job_from_start_to_scene_with_progress_and_a_preview(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def scenario(
        client: Client,
    ) -> tuple[dict[str, Any], list[dict[str, Any]], mcp_types.CallToolResult]:
        started = structured(await client.call_tool("generate_from_text", {"prompt": "a red wooden chair"}))
        job_id = started["job"]["job_id"]
        steps = []
        for _ in range(10):
            result = await client.call_tool(
                "get_job", {"job_id": job_id, "wait_seconds": 1.5}, progress_callback=on_progress
            )
            steps.append(structured(result)["job"])
            if steps[-1]["settled"]:
                break
        preview = await client.call_tool("get_preview", {"job_id": job_id})
        return started, steps, preview

    started, steps, preview = with_client(server.url, token, scenario)
    assert started["status"] == "started" and started["job"]["state"] == "queued"
    assert started["budget"] == {
        "credits_spent": 0, "credits_limit": 20, "jobs_spent": 1, "jobs_limit": 10, "unpriced_jobs": 1,
    }  # fmt: skip
    assert len(steps) >= 2, "the job was waited on in several bounded steps"
    final = steps[-1]
    assert final["state"] == "imported" and final["objects"] == ["a red wooden chair"]
    assert final["triangles"] == 12_345 and final["quality"] == {"verdict": "ready", "reasons": []}
    values = [value for value, _total, _message in progress]
    assert len(values) >= 3 and values == sorted(values) and len(set(values)) == len(values)
    assert all(total == 100.0 and message for _value, total, message in progress)
    assert [ask.request.prompt for ask in host.submitted] == ["a red wooden chair"]

    assert not preview.is_error
    images = [item for item in preview.content if isinstance(item, mcp_types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data) == (CONCEPTS / "teapot.png").read_bytes()


def test_a_generate_call_answers_with_the_job_while_the_job_is_still_queued(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    host.job_seconds = 60.0

    async def scenario(client: Client) -> dict[str, Any]:
        return structured(
            await client.call_tool("generate_from_text", {"prompt": "a lantern", "name": "Lantern"})
        )

    started = with_client(server.url, token, scenario)
    assert started["job"]["state"] == "queued" and started["job"]["label"] == "Lantern"


def test_an_image_job_from_base64_data_and_from_an_allowed_folder(
    server: AgentServer, token: str, host: StandInHost, allowed: Path
) -> None:
    png = (CONCEPTS / "chair.png").read_bytes()

    async def scenario(client: Client) -> list[dict[str, Any]]:
        by_data = await client.call_tool(
            "generate_from_image", {"image_base64": base64.b64encode(png).decode(), "resolution": "1024"}
        )
        as_data_url = "data:image/png;base64," + base64.b64encode(png).decode()
        by_url_form = await client.call_tool(
            "generate_from_image", {"image_base64": as_data_url, "reuse": "never"}
        )
        by_path = await client.call_tool(
            "generate_from_image", {"image_path": str(allowed / "sub" / ".." / "chair.png"), "reuse": "never"}
        )
        by_address = await client.call_tool(
            "generate_from_image", {"image_url": "https://example.com/chair.png"}
        )
        return [structured(result) for result in (by_data, by_url_form, by_path, by_address)]

    answers = with_client(server.url, token, scenario)
    assert [answer["status"] for answer in answers] == ["started"] * 4
    assert [answer["budget"]["credits_spent"] for answer in answers] == [2, 6, 10, 14]
    sent = host.submitted
    assert [ask.image for ask in sent[:3]] == [png, png, png]
    assert [ask.request.resolution for ask in sent] == [1024, 1536, 1536, 1536]
    assert sent[3].image is None and sent[3].request.image_url == "https://example.com/chair.png"


def test_the_library_is_offered_before_anything_costs_credits(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    host.add_to_library(JobRequest(kind="text", prompt="a blue teapot"), None, "Blue teapot")

    async def scenario(client: Client) -> list[dict[str, Any]]:
        asked = await client.call_tool("generate_from_text", {"prompt": "A  blue teapot"})
        estimate = await client.call_tool("estimate_cost", {"prompt": "a blue teapot"})
        always = await client.call_tool("generate_from_text", {"prompt": "a blue teapot", "reuse": "always"})
        never = await client.call_tool("generate_from_text", {"prompt": "a blue teapot", "reuse": "never"})
        return [structured(result) for result in (asked, estimate, always, never)]

    asked, estimate, always, never = with_client(server.url, token, scenario)
    assert asked["status"] == "in_library" and asked["library"] == {
        "label": "Blue teapot",
        "date": "2026-03-14",
    }
    assert asked["budget"]["jobs_spent"] == 0
    assert estimate["in_library"] is True
    assert always["status"] == "reused" and always["objects"] == ["Blue teapot.001"]
    assert always["budget"]["jobs_spent"] == 0 and len(host.reused) == 1
    assert never["status"] == "started" and never["budget"]["jobs_spent"] == 1
    assert [ask.request.prompt for ask in host.submitted] == ["a blue teapot"]


def test_estimate_cost_prices_images_and_says_when_text_has_no_price(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    async def scenario(client: Client) -> list[mcp_types.CallToolResult]:
        image = await client.call_tool(
            "estimate_cost", {"image_url": "https://example.com/a.png", "resolution": "1536", "count": 3}
        )
        text = await client.call_tool("estimate_cost", {"prompt": "a chair", "count": 2})
        host.price_of_text = 3
        priced = await client.call_tool("estimate_cost", {"prompt": "a chair", "count": 7})
        return [image, text, priced]

    image, text, priced = with_client(server.url, token, scenario)
    assert structured(image)["credits_total"] == 12 and structured(image)["fits_budget"] is True
    assert "3 jobs cost 12 credits (4 each)." in text_of(image)
    assert structured(text)["credits_per_job"] is None and structured(text)["fits_budget"] is True
    assert "not known" in text_of(text)
    assert structured(priced)["credits_total"] == 21 and structured(priced)["fits_budget"] is False
    assert "This would go over the agent budget: it needs 21 credits" in text_of(priced)
    assert host.submitted == []


def test_jobs_are_listed_cancelled_and_imported_and_the_artists_own_stay_hidden(
    server: AgentServer, token: str, host: StandInHost
) -> None:
    host.job_seconds = 60.0

    async def scenario(client: Client) -> dict[str, Any]:
        first = structured(await client.call_tool("generate_from_text", {"prompt": "a stool"}))["job"][
            "job_id"
        ]
        second = structured(await client.call_tool("generate_from_text", {"prompt": "a bench"}))["job"][
            "job_id"
        ]
        cancelled = structured(await client.call_tool("cancel_job", {"job_id": first}))["job"]
        imported = structured(await client.call_tool("import_job", {"job_id": second}))["job"]
        every = structured(await client.call_tool("list_jobs", {}))
        active = structured(await client.call_tool("list_jobs", {"state": "active"}))
        hidden = await client.call_tool("get_job", {"job_id": host.artist_job.id})
        return {
            **{"cancelled": cancelled, "imported": imported, "every": every, "active": active},
            **{"hidden": hidden, "ids": (first, second)},
        }

    seen = with_client(server.url, token, scenario)
    first, second = seen["ids"]
    assert seen["cancelled"]["state"] == "cancelled" and host.imported == [second]
    assert [job["job_id"] for job in seen["every"]["jobs"]] == [second, first]  # newest first; no artist job
    assert [job["job_id"] for job in seen["active"]["jobs"]] == [second]
    assert seen["hidden"].is_error and "no job" in text_of(seen["hidden"])


@pytest.mark.parametrize("wait", [0, 25])
def test_get_job_on_a_settled_job_answers_at_once(
    server: AgentServer, token: str, host: StandInHost, wait: int
) -> None:
    host.job_seconds = 0.0

    async def scenario(client: Client) -> dict[str, Any]:
        job_id = structured(await client.call_tool("generate_from_text", {"prompt": "a cup"}))["job"][
            "job_id"
        ]
        return structured(await client.call_tool("get_job", {"job_id": job_id, "wait_seconds": wait}))

    assert with_client(server.url, token, scenario)["job"]["state"] == "imported"
