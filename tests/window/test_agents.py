"""An agent drives Kiln in Debian's Blender program with a window: the official MCP SDK client on this
machine reaches the program's agent server on 127.0.0.1 (the chroot shares the network), generates a
mesh that lands in the open scene, and while it waits on the job the window keeps its rhythm.

The rhythm is the 10 ms timer of ``agent.py``'s gap meter, measured three times: idle; while a job
the artist clicked runs (no agent); and while the agent waits in ``get_job`` on its own job. Under
Xvfb and software OpenGL every Sidebar redraw a job's progress asks for stalls the window for a few
hundred milliseconds, agent or not, so the agent's wait is held to the clicked job's, and Kiln's own
main-thread work for the agent (the agents' duty on each beat, the job's start) is timed directly.
The numbers go to ``out/agent-gaps.json``. The Sidebar shows the connected agent
(``out/sidebar-agent.png``), and Copy Client Config puts what a client needs on the clipboard. The
MCP conformance suite's scenarios pass against the same real Kiln.

The server is started as a studio's launcher would start it: ``KILN_AGENT_PORT`` and
``KILN_AGENT_TOKEN`` in Blender's environment.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import mcp_types
import pytest
from agent_client import post, with_client
from bearer_proxy import BearerProxy
from conformance import SCENARIOS, failed_checks, npm_env
from conftest import SHOTS, shot
from mcp import Client
from program import Program, Window
from sidebar import open_kiln_tab

from sandbox.server import Sandbox

#: How long each measure of the gaps lasts (a job runs longer than this).
MEASURE_SECONDS = 6.0
#: Behaviour bounds, not speed targets (those are `make bench`): the window's usual beat is as it
#: was idle, the long stalls no more than a clicked job's, and Kiln's own work for an agent on the
#: main thread at most a few hundredths of a second of its CPU in any beat (measured here: about
#: 1 ms a beat; in wall time once 21 ms alone, and 166 ms in make test, the machine busy with the
#: other runs: the report keeps both).
EXTRA_P50_MS = 2.0
EXTRA_STALLS = 2
KILN_AGENT_MS = 50.0
CLIENT = mcp_types.Implementation(name="Claude Desktop", version="0.9.2")
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
IN_VIEW3D = "with in_view3d('WINDOW'):\n    "


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def agent_door() -> tuple[int, str]:
    """The port and token a launcher gives Kiln (``KILN_AGENT_PORT``, ``KILN_AGENT_TOKEN``)."""
    return free_port(), secrets.token_urlsafe(32)


@pytest.fixture
def kiln_window(
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
    agent_door: tuple[int, str],
) -> Iterator[tuple[Window, Sandbox, str]]:
    """Kiln in the program with its agent server on, the sandbox as the service; yields the URL."""
    port, token = agent_door
    sandbox = sandbox_factory(speed=0.4)  # a text job runs for about ten seconds
    env = {
        "KILN_BASE_URL": sandbox.base_url,
        "KILN_API_KEY": sandbox_key,
        "KILN_AGENT_PORT": str(port),
        "KILN_AGENT_TOKEN": token,
    }
    window = open_window(env=env)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while not _asks_for_the_token(url):  # listening: it asks for the token
        assert time.monotonic() < deadline, "Kiln's agent server did not start in the window"
        time.sleep(0.2)
    yield window, sandbox, url


def _asks_for_the_token(url: str) -> bool:
    """Whether Kiln's agent server answers yet (a loaded machine starts the window slowly)."""
    try:
        return post(url, PING, None).status == 401
    except OSError:  # not listening yet
        return False


def test_an_agent_generates_into_the_window_which_keeps_its_rhythm_while_the_agent_waits(
    program: Program,
    kiln_window: tuple[Window, Sandbox, str],
    agent_door: tuple[int, str],
    record_property: Callable[[str, Any], None],
) -> None:
    window, sandbox, url = kiln_window
    _port, token = agent_door
    open_kiln_tab(window)
    idle = measure(window)
    clicked = measure_a_clicked_job(window)
    window.call(TIME_THE_AGENTS_WORK)

    waiting, landed, shown = threading.Event(), threading.Event(), threading.Event()
    progress: list[float] = []

    async def on_progress(value: float, _total: float | None, _message: str | None) -> None:
        progress.append(value)

    async def scenario(client: Client) -> dict[str, Any]:
        await client.list_tools()  # as agents do first
        await client.call_tool("list_jobs", {})
        asked = time.perf_counter()
        started = await client.call_tool(
            "generate_from_text", {"prompt": "an old sea chest", "resolution": "1024"}
        )
        answered_in = time.perf_counter() - asked
        assert started.structured_content is not None, started.content
        job_id = started.structured_content["job"]["job_id"]
        waiting.set()
        steps = 0
        while True:
            steps += 1
            result = await client.call_tool(
                "get_job", {"job_id": job_id, "wait_seconds": 25}, progress_callback=on_progress
            )
            assert result.structured_content is not None, result.content
            job = dict(result.structured_content["job"])
            if job["settled"] or steps > 10:
                break
        landed.set()
        await asyncio.to_thread(shown.wait, 60)  # connected while the Sidebar is photographed
        return {"job": job, "answered_in": answered_in, "steps": steps}

    outcome: dict[str, Any] = {}

    def agent() -> None:
        try:
            outcome.update(with_client(url, token, scenario, client_info=CLIENT))
        except BaseException as exc:
            outcome["failure"] = exc
        finally:
            waiting.set()
            landed.set()

    thread = threading.Thread(target=agent, name="agent")
    thread.start()
    try:
        assert waiting.wait(60)
        # Measured as the clicked job was: once the job runs (the agent waits in get_job meanwhile).
        running = "[j for j in kiln_jobs() if j['prompt'] == 'an old sea chest' and j['state'] == 'running']"
        window.wait_for(running, timeout=60)
        during = measure(window)
        still = window.call(f"result = {running}")
        assert landed.wait(120), "the job did not settle"
        window.wait_for("kiln_objects()", timeout=30)
        _show_the_agents_panel(window)
        picture = shot(window.display, "sidebar-agent", window.call("result = sidebar()"))
        panel = window.call(
            "import sys\n"
            "serving = sys.modules[MODULE + '.agents.serving']\n"
            "result = [[s.agent, s.spending.jobs, s.spending.limits.jobs] for s in serving.sessions()]"
        )
        copied = window.call(COPY_CONFIG)
    finally:
        shown.set()
        thread.join(60)
    assert "failure" not in outcome, outcome.get("failure")
    entry = json.loads(copied)["mcpServers"]["kiln"]
    reaches_kiln = entry == {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}
    assert reaches_kiln, "Copy Client Config did not put Kiln's address and token on the clipboard"

    job = outcome["job"]
    assert job["state"] == "imported" and job["objects"], job
    objects = window.call("result = kiln_objects()")
    assert {obj["task_id"] for obj in objects} and len(objects) >= 1
    agents_of = window.call(f"result = [bpy.data.objects[n].get('kiln_agent') for n in {job['objects']!r}]")
    assert set(agents_of) == {"Claude Desktop 0.9.2"}
    assert panel == [["Claude Desktop 0.9.2", 1, 10]]
    assert still, "the agent's job ended before it was measured"
    assert progress and progress == sorted(progress)
    assert sandbox.submit_count == 2  # the clicked job, and the agent's
    kiln = window.call("result = call_timer.longest()")
    kiln_cpu = window.call("result = call_timer.longest(cpu=True)")
    report = {
        "idle": idle,
        "during_clicked_job": clicked,
        "during_agent_wait": during,
        "generate_answered_in_s": round(outcome["answered_in"], 3),
        "get_job_calls": outcome["steps"],
        "progress_notifications": len(progress),
        "kiln_main_thread_ms": kiln,
        "kiln_main_thread_cpu_ms": kiln_cpu,
        "screenshot": str(picture.relative_to(SHOTS.parent)),
    }
    (SHOTS / "agent-gaps.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    record_property("agent_gaps", report)
    assert outcome["answered_in"] < 1.0, report
    assert during["p50"] <= idle["p50"] + EXTRA_P50_MS, report
    assert during["over_100"] <= clicked["over_100"] + EXTRA_STALLS, report
    assert max(kiln_cpu.values()) <= KILN_AGENT_MS, report


COPY_CONFIG = (
    IN_VIEW3D + "bpy.ops.kiln.copy_agent_config(client='HTTP')\nresult = bpy.context.window_manager.clipboard"
)
TIME_THE_AGENTS_WORK = """
watcher = sys.modules[MODULE + '.session.watcher']
serving = sys.modules[MODULE + '.agents.serving']
watcher.remove_duty(serving.beat)
call_timer.wrap('agents.serving', 'beat')
watcher.add_duty(serving.beat)
call_timer.wrap('agents.actions', 'start_job')
call_timer.wrap('agents.views', 'of_id')
"""


def measure(window: Window) -> dict[str, float]:
    window.call("gap_meter.start()")
    time.sleep(MEASURE_SECONDS)
    return dict(window.call("result = gap_meter.stop()"))


def measure_a_clicked_job(window: Window) -> dict[str, float]:
    """The gaps while a job the artist clicked runs (no agent), then that job cancelled."""
    prompt = "a clicked brass bell"
    window.call(IN_VIEW3D + f"bpy.ops.kiln.generate_from_text(prompt={prompt!r}, resolution='1024')")
    running = f"[j for j in kiln_jobs() if j['prompt'] == {prompt!r} and j['state'] == 'running']"
    job = window.wait_for(running, timeout=60)[0]
    gaps = measure(window)
    assert window.call(f"result = {running}"), "the clicked job ended before it was measured"
    window.call(IN_VIEW3D + f"bpy.ops.kiln.cancel_job(job_id={job['id']!r})")
    return gaps


def _show_the_agents_panel(window: Window) -> None:
    """Scroll the Kiln tab down to its last panel, Agents, as an artist would with the wheel."""
    bar = window.call("result = sidebar()")
    display = window.display
    display.xdotool("mousemove", "--sync", bar["x"] + bar["width"] // 2, bar["y"] + bar["height"] // 2)
    for _ in range(30):
        display.xdotool("click", "5")
    time.sleep(0.5)


def test_the_conformance_scenarios_pass_against_kiln_in_the_program(
    program: Program, kiln_window: tuple[Window, Sandbox, str], agent_door: tuple[int, str]
) -> None:
    _window, _sandbox, url = kiln_window
    env = npm_env(program)
    with BearerProxy(url, agent_door[1]) as proxy:
        failed = {scenario: failed_checks(program, env, proxy.url, scenario) for scenario in SCENARIOS}
    assert not any(failed.values()), json.dumps(failed, indent=2)
