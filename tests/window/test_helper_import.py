"""The helper Blender program opens every mesh: a 1.2M-triangle textured result lands while the
UI thread keeps its rhythm (a 10 ms timer in the same window, idle first, then during the job)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SHOTS
from program import Program, Window
from sidebar import open_kiln_tab

from sandbox.server import Sandbox

TRIANGLES = 1_200_000
IDLE_SECONDS = 6.0
#: A behaviour bound, not a speed target (that is `make bench`): opening 1.2M triangles with the
#: glTF importer in this process stalls its UI thread for seconds, and writing the library's copy
#: here about half a second; the helper leaves it the append (measured here: about 0.1 s). On a
#: machine busy with other runs the append itself takes longer: Kiln's tick may then take up to
#: KILN_TICK_APPENDS times the same append done by hand in the same window (a tick of 496 ms beside
#: the other runs of make test, while its by-hand append's frames took 2-2.7 s).
KILN_TICK_MS, KILN_TICK_APPENDS = 400.0, 2.0
LIBRARY_COPY = "library_copy(sys.modules[MODULE + '.api.jobs'].JobRequest(kind='text', prompt={prompt!r}))"
APPEND_BY_HAND = (
    "import time\n"
    "started = time.perf_counter()\n"
    "with bpy.data.libraries.load({path!r}) as (source, target):\n"
    "    target.objects = list(source.objects)\n"
    "for obj in target.objects:\n"
    "    bpy.context.scene.collection.objects.link(obj)\n"
    "result = (time.perf_counter() - started) * 1000\n"
)
ASSETS_IN = (
    "with bpy.data.libraries.load({path!r}, assets_only=True) as (source, target):\n"
    "    result = [list(source.objects), list(source.collections)]"
)


def helper_processes(program: Program, user: Path) -> set[str]:
    """Command lines of this window's helper Blender programs (the Kiln installed in ``user``)."""
    listing = program.run(["ps", "-eo", "args="]).stdout.splitlines()
    mine = program.inside(user)
    return {line.strip() for line in listing if "helper_blender/main.py" in line and mine in line}


def test_a_large_textured_mesh_goes_through_the_helper_program_without_freezing_the_window(
    program: Program,
    user: Path,
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
    record_property: Callable[[str, Any], None],
) -> None:
    sandbox = sandbox_factory(speed=5.0)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    open_kiln_tab(window)

    window.call("gap_meter.start()")
    time.sleep(IDLE_SECONDS)
    idle = window.call("result = gap_meter.stop()")

    window.call("call_timer.wrap('session.watcher', 'tick')")
    window.call("call_timer.wrap('session.scene_import', '_append_prepared')")
    window.call("call_timer.wrap('session.library_store', 'store')")
    window.call("gap_meter.start()")
    prompt = f"textured test grid of {TRIANGLES} triangles"
    window.call(f"with in_view3d('WINDOW'):\n    bpy.ops.kiln.generate_from_text(prompt={prompt!r})")
    helpers: set[str] = set()
    deadline = time.monotonic() + 300
    while not window.call("result = [j for j in kiln_jobs() if j['state'] == 'imported']"):
        assert time.monotonic() < deadline, "the large mesh did not land within 300 s"
        helpers |= helper_processes(program, user)
        time.sleep(0.5)
    busy = window.call("result = gap_meter.stop()")

    assert helpers, "no helper Blender program (blender -b ... helper_blender/main.py) ran during the job"
    assert all(line.startswith("/usr/bin/blender -b --factory-startup") for line in helpers), helpers
    triangles = window.call(
        "result = sum(len(o.data.polygons) for o in bpy.data.objects if o.type == 'MESH')"
    )
    assert triangles >= TRIANGLES
    kiln = window.call("result = call_timer.longest()")
    # The library's copy is written by the helper meanwhile: an asset in a .blend of its own.
    copy = window.wait_for(LIBRARY_COPY.format(prompt=prompt), timeout=300)
    objects, collections = window.call(ASSETS_IN.format(path=copy))
    assert objects or collections, f"{copy} holds no asset"
    # For comparison, no Kiln involved: the same mesh appended by hand in this window. Its gaps are
    # what a 1.2M-triangle arrival costs Blender itself (the append, then drawing the new mesh).
    window.call("gap_meter.start()")
    appended_ms = window.call(APPEND_BY_HAND.format(path=copy))
    time.sleep(IDLE_SECONDS)
    by_hand = window.call("result = gap_meter.stop()")
    report = {
        "triangles": TRIANGLES,
        "idle": idle,
        "during_job": busy,
        "append_by_hand": by_hand,
        "append_by_hand_ms": appended_ms,
        "kiln_main_thread_ms": kiln,
    }
    (SHOTS / "helper-gaps.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    record_property("ui_gaps", report)
    # The gaps include Blender's own redraws, which software OpenGL makes slow here (a 1.2M-triangle
    # viewport, the status bar's report): reported, and Kiln's share is what the test holds.
    assert kiln["session.watcher.tick"] <= max(KILN_TICK_MS, KILN_TICK_APPENDS * appended_ms), report


#: Issue 47's bound on two cores: while a job runs and its mesh is opened by the helper, the 10 ms
#: timer's p99 gap stays within twice its idle p99 plus 20 ms (the helper runs at a lower priority).
RHYTHM_FACTOR, RHYTHM_SLACK_MS = 2.0, 20.0
RHYTHM_TRIANGLES = 400_000
#: Blender's own work after a start is over once its downloader processes are gone (the suite shows
#: assets on disk only, so 5.2 fetches no online library: ``program.FIRST_START_PREFERENCES``; any
#: other download Blender starts ends the same way) and a stretch this long passes with no gap over
#: QUIET_GAP_MS.
QUIET_SECONDS, QUIET_GAP_MS, SETTLE_SECONDS = 2.0, 50.0, 60.0
#: The Sidebar's frames while a job runs: Kiln asks for one at most every 2 s for what jobs did
#: (``session.watcher.REDRAW_SECONDS``); a few more come with the click, the new row and the ready
#: job's sentence. Each costs the window a frame: in this software-drawn window about 60-100 ms,
#: almost all of it the window's swap (the Sidebar's own drawing: about 2.5 ms, measured here).
FRAMES_PER_SECOND, EXTRA_FRAMES = 0.5, 8


def _settle(window: Window) -> None:
    """Wait until Blender's start-up work is over, so the idle rhythm is Blender's at rest."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        if window.call("import multiprocessing\nresult = bool(multiprocessing.active_children())"):
            time.sleep(0.5)
            continue
        window.call("gap_meter.start()")
        time.sleep(QUIET_SECONDS)
        if window.call("result = gap_meter.stop()")["max"] <= QUIET_GAP_MS:
            return
    pytest.fail(f"the window never had {QUIET_SECONDS} s without a gap over {QUIET_GAP_MS} ms")


def _watch(program: Program, user: Path, window: Window, seconds: float) -> set[str]:
    """What the test does while the meter runs, the same in both phases (its calls run on the UI
    thread too): every half second, ask the window whether the meter's phase ended and list the
    helper programs; at most ``seconds``."""
    helpers: set[str] = set()
    deadline = time.monotonic() + seconds
    while window.call("result = gap_meter.ended_at") is None:
        if time.monotonic() >= deadline:
            break
        helpers |= helper_processes(program, user)
        time.sleep(0.5)
    return helpers


def test_the_window_keeps_its_rhythm_while_the_helper_opens_a_mesh(
    program: Program,
    user: Path,
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
    record_property: Callable[[str, Any], None],
) -> None:
    """Measured while the job runs: from the service having it (queued) until the mesh is ready to
    import, the polls, the download and the helper's conversion. The click's own frame (its new
    row, before the job is queued) answers the artist's click and is not the job running: it is in
    the report (``frames_at``) but not measured. Counted from Generate, the click's frames were a
    fixed cost that made p99 depend on how long a job lasts (in a 7.7 s job, 6 long gaps among 677
    ticks already reach the 99th percentile). Automatic import is off, so Blender's own drawing of
    the new mesh, which is not Kiln's, is left out."""
    sandbox = sandbox_factory(speed=5.0)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    open_kiln_tab(window)
    window.call("bpy.context.preferences.addons[MODULE].preferences.auto_import = False")
    _settle(window)
    ready = "[j for j in kiln_jobs() if j['state'] == 'ready']"
    in_service = "[j for j in kiln_jobs() if j['state'] in ('queued', 'running', 'downloading', 'ready')]"

    # Each phase ends at the first 10 ms tick that finds the job ready (the idle one never does):
    # what the ready job then brings (its sentence, the status bar's flash) is not the job running.
    window.call(f"gap_meter.start(until={ready!r})")
    _watch(program, user, window, IDLE_SECONDS)
    idle = window.call("result = gap_meter.stop()")

    window.call(f"gap_meter.start(until={ready!r}, after={in_service!r})\ndraw_counter.start()")
    started = time.monotonic()
    prompt = f"textured test grid of {RHYTHM_TRIANGLES} triangles"
    window.call(f"with in_view3d('WINDOW'):\n    bpy.ops.kiln.generate_from_text(prompt={prompt!r})")
    helpers = _watch(program, user, window, 300)
    busy = window.call("result = gap_meter.stop()")
    frames, seconds = window.call("result = draw_counter.stop()"), time.monotonic() - started
    frames_at = window.call("result = draw_counter.at")

    assert window.call(f"result = {ready}"), "the mesh was not ready within 300 s"
    assert helpers, "no helper Blender program ran during the job"
    report = {
        "triangles": RHYTHM_TRIANGLES,
        "idle": idle,
        "during_job": busy,
        "sidebar_frames": frames,
        "seconds": round(seconds, 1),
        "frames_at": frames_at,  # by region ("UI": the Sidebar), seconds after Generate
    }
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "helper-rhythm.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    record_property("ui_rhythm", report)
    assert frames <= FRAMES_PER_SECOND * seconds + EXTRA_FRAMES, report
    assert busy["p99"] <= RHYTHM_FACTOR * idle["p99"] + RHYTHM_SLACK_MS, report
