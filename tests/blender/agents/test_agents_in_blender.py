"""An agent drives real Kiln in Blender (the bpy module) with the official MCP SDK client: the
handshake, the tools, a text job from the call to the mesh in the scene, its preview; the Sidebar
shows the agent and what it spent, and marks its jobs.

The client runs on a thread; the test's main thread beats the watcher as Blender's timer does
(``conftest.Agents.beating``), so every call that needs Blender waits for a real beat, at the interval
Kiln itself asks for.
"""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import mcp_types
from agent_client import TOOL_NAMES, initialize, post
from agents_harness import Agents
from guards import main_thread_must_not_wait
from mcp import Client
from recording_layout import Recorder, draw

#: The agent as Claude Desktop names itself in ``initialize``.
CLIENT = mcp_types.Implementation(name="Claude Desktop", version="0.9.2")
AGENT = "Claude Desktop 0.9.2"
ROW = SimpleNamespace(layout_type="DEFAULT")


def structured(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def test_an_agent_generates_a_mesh_that_lands_in_the_scene_with_progress_and_a_preview(
    agents: Agents,
    blender: Any,
    sandbox_factory: Any,
    monkeypatch: Any,
    kiln_module: Any,
    record_property: Callable[[str, Any], None],
) -> None:
    sandbox = sandbox_factory(speed=2.0)  # a text job runs for a few seconds: progress to report
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def scenario(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {"version": client.protocol_version, "server": client.server_info}
        seen["tools"] = [tool.name for tool in (await client.list_tools()).tools]
        asked = time.perf_counter()
        started = await client.call_tool("generate_from_text", {"prompt": "a red wooden chair"})
        seen["answered_in"] = time.perf_counter() - asked
        seen["started"] = structured(started)
        job_id = seen["started"]["job"]["job_id"]
        steps = []
        for _ in range(20):
            result = await client.call_tool(
                "get_job", {"job_id": job_id, "wait_seconds": 2}, progress_callback=on_progress
            )
            steps.append(structured(result)["job"])
            if steps[-1]["settled"]:
                break
        seen["steps"] = steps
        seen["preview"] = await client.call_tool("get_preview", {"job_id": job_id})
        seen["listed"] = structured(await client.call_tool("list_jobs", {}))
        return seen

    with main_thread_must_not_wait() as offences:
        seen = agents.beating(scenario, client_info=CLIENT)

    record_property("generate_answered_in", round(seen["answered_in"], 3))
    record_property("progress_notifications", len(progress))
    assert offences == [], "the main thread waited on the network or slept"
    assert seen["version"] == "2025-11-25" and seen["server"].name == "kiln"
    assert seen["tools"] == TOOL_NAMES
    assert seen["answered_in"] < 1.0, f"generate_from_text took {seen['answered_in']:.2f} s"
    assert seen["started"]["status"] == "started"
    assert seen["started"]["job"]["state"] in ("submitting", "queued")
    steps = seen["steps"]
    assert len(steps) >= 2, "the job was waited on in several bounded steps"
    final = steps[-1]
    assert final["state"] == "imported" and final["objects"], final
    assert final["triangles"] and final["quality"]["verdict"], final
    values = [value for value, _total, _message in progress]
    assert len(values) >= 2 and values == sorted(values), progress
    assert all(total == 100.0 and message for _value, total, message in progress)
    assert sandbox.submit_count == 1

    objects = [blender.data.objects[name] for name in final["objects"]]
    assert all(obj["kiln_agent"] == AGENT and obj["kiln_prompt"] == "a red wooden chair" for obj in objects)
    assert all(obj.name in blender.data.collections["Kiln"].all_objects for obj in objects)
    job = kiln_module("session.runtime").engine().get(final["job_id"])
    assert job.request.agent == AGENT

    images = [item for item in seen["preview"].content if isinstance(item, mcp_types.ImageContent)]
    assert not seen["preview"].is_error and len(images) == 1
    assert base64.b64decode(images[0].data)[:8] == b"\x89PNG\r\n\x1a\n"
    assert [listed["job_id"] for listed in seen["listed"]["jobs"]] == [final["job_id"]]
    # While the agent was connected the watcher beat at the agents' pace (test_agents_pump holds
    # each interval exactly): most of these beats came a tenth of a second apart, none a second.
    quick = agents.beats.count(kiln_module("agents.serving").CONNECTED_SECONDS)
    assert quick > len(agents.beats) / 2 and max(agents.beats) < 1.0, agents.beats


def test_the_sidebar_shows_the_agent_and_what_it_spent_and_marks_its_jobs(
    agents: Agents, blender: Any, kiln_module: Any
) -> None:
    ui_jobs, ui_agents = kiln_module("panels.jobs"), kiln_module("panels.agents")
    port = kiln_module("api.agents.status").current.port
    assert draw(ui_agents.KILN_PT_agents, blender.context).labels() == [f"Waiting for agents on port {port}"]
    asked, drawn = threading.Event(), threading.Event()
    seen: dict[str, Recorder] = {}

    async def scenario(client: Client) -> list[str]:
        text = structured(await client.call_tool("generate_from_text", {"prompt": "a brass lantern"}))
        chair = str(agents.folder / "chair.png")
        image = structured(
            await client.call_tool("generate_from_image", {"image_path": chair, "resolution": "1024"})
        )
        assert image["job"]["label"] == "chair"
        asked.set()  # the Sidebar is drawn on the next beat, while this session is still open
        await asyncio.to_thread(drawn.wait, 30)
        return [text["job"]["job_id"], image["job"]["job_id"]]

    def look() -> None:
        if asked.is_set() and not drawn.is_set():
            seen["panel"] = draw(ui_agents.KILN_PT_agents, blender.context)
            drawn.set()

    job_ids = agents.beating(scenario, on_beat=look, client_info=CLIENT)

    panel = seen["panel"]
    assert panel.labels()[:2] == ["1 agent connected", AGENT]
    assert "Spent 2 of 20 credits" in panel.labels()
    assert "Started 2 of 10 jobs" in panel.labels()
    assert "1 job of unknown price" in panel.labels()
    assert panel.operators("kiln.disconnect_agents")
    assert ui_agents.KILN_PT_agents.poll(blender.context)
    # The SDK client ended its session as it left: nobody is connected any more.
    assert draw(ui_agents.KILN_PT_agents, blender.context).labels() == [f"Waiting for agents on port {port}"]

    engine = kiln_module("session.runtime").engine()
    wm = blender.context.window_manager
    kiln_module("session.job_rows").sync_rows(wm, engine.jobs())
    marks = {}
    for index, item in enumerate(wm.kiln_jobs):
        row = Recorder()
        ui_jobs.KILN_UL_jobs.draw_item(ROW, blender.context, row, wm, item, 0, wm, "kiln_job_index", index)
        marks[item.job_id] = [call.kwargs.get("icon") for call in row.of("label")]
    assert all("CONSOLE" in marks[job_id] for job_id in job_ids), marks
    details = Recorder()
    ui_jobs._draw_details(details, blender.context, engine.get(job_ids[0]))
    assert f"Asked for by an agent ({AGENT})" in details.text()


def test_the_artists_own_jobs_carry_no_mark_and_agents_do_not_see_them(
    agents: Agents, blender: Any, kiln_module: Any
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="the artist's own lamp", wait=False) == {"FINISHED"}
    engine = kiln_module("session.runtime").engine()
    (own,) = engine.jobs()
    assert own.request.agent == "" and kiln_module("panels.agents").mark(own) is None

    async def scenario(client: Client) -> tuple[dict[str, Any], mcp_types.CallToolResult]:
        listed = structured(await client.call_tool("list_jobs", {}))
        return listed, await client.call_tool("get_job", {"job_id": own.id})

    listed, hidden = agents.beating(scenario)
    assert listed["jobs"] == [] and hidden.is_error


def test_disconnect_ends_every_agent_session(agents: Agents, blender: Any) -> None:
    session = initialize(agents.url, agents.token)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(agents.url, ping, agents.token, Mcp_Session_Id=session).status == 200
    assert blender.ops.kiln.disconnect_agents() == {"FINISHED"}
    assert post(agents.url, ping, agents.token, Mcp_Session_Id=session).status == 404


def test_an_identical_request_in_the_library_is_offered_first_and_reused_free(
    agents: Agents, blender: Any, service: Any
) -> None:
    async def scenario(client: Client) -> list[dict[str, Any]]:
        first = structured(await client.call_tool("generate_from_text", {"prompt": "a green teapot"}))
        job_id = first["job"]["job_id"]
        for _ in range(30):
            job = structured(await client.call_tool("get_job", {"job_id": job_id, "wait_seconds": 2}))["job"]
            if job["settled"]:
                break
        asked = structured(await client.call_tool("generate_from_text", {"prompt": "A green  teapot"}))
        estimate = structured(await client.call_tool("estimate_cost", {"prompt": "a green teapot"}))
        reused = structured(
            await client.call_tool("generate_from_text", {"prompt": "a green teapot", "reuse": "always"})
        )
        return [job, asked, estimate, reused]

    landed, asked, estimate, reused = agents.beating(scenario, client_info=CLIENT)
    assert landed["state"] == "imported"
    assert asked["status"] == "in_library" and asked["library"]["label"] == "a green teapot"
    assert asked["budget"]["jobs_spent"] == 1 and estimate["in_library"] is True
    assert reused["status"] == "reused" and reused["objects"] and reused["budget"]["jobs_spent"] == 1
    placed = [blender.data.objects[name] for name in reused["objects"]]
    assert all(obj["kiln_agent"] == AGENT and "kiln_reused" in obj for obj in placed)
    assert service.submit_count == 1
