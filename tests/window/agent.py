"""Runs inside the Blender program (``blender --python agent.py``): the test's hands in the window.

The test drops numbered Python snippets into ``$KILN_AGENT_DIR/in``; a persistent timer runs each
on Blender's main thread, between redraws, as an artist's click would, and writes what it gave
(``result``, JSON) or the traceback to ``out``. Snippets see ``bpy``, ``kiln`` (the enabled
add-on's module, once enabled) and the helpers below. This is test tooling, not Kiln: it may
read files on the UI thread.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bpy

AGENT_DIR = Path(os.environ["KILN_AGENT_DIR"])
INBOX = AGENT_DIR / "in"
OUTBOX = AGENT_DIR / "out"
#: Kiln's module: installed from disk (user_default) unless the test installed it from a repository.
MODULE = os.environ.get("KILN_AGENT_MODULE", "bl_ext.user_default.kiln")
TICK = 0.01
#: With no snippet for IDLE_AFTER seconds the inbox is looked at every IDLE_TICK: looking every 10 ms
#: cost an idle window about 3 % of a core (4.5-7.3 % against 2.6-2.9 at 0.2 s, measured here),
#: and a window of the suite spends much of its life waiting on a job or a sandbox.
IDLE_TICK, IDLE_AFTER = 0.1, 1.0
_last_snippet = time.monotonic()


def view3d() -> tuple[Any, Any]:
    """The first 3D View area of the first window and that window."""
    window = bpy.context.window_manager.windows[0]
    for area in window.screen.areas:
        if area.type == "VIEW_3D":
            return window, area
    raise LookupError("no 3D View in the window")


def region_of(kind: str = "WINDOW") -> Any:
    _window, area = view3d()
    return next(region for region in area.regions if region.type == kind)


@contextlib.contextmanager
def in_view3d(kind: str = "WINDOW") -> Iterator[None]:
    """Operators called in the 3D View's context, as a click in the viewport or Sidebar is."""
    window, area = view3d()
    region = next(region for region in area.regions if region.type == kind)
    with bpy.context.temp_override(window=window, screen=window.screen, area=area, region=region):
        yield


def screen_rect(region: Any) -> dict[str, int]:
    """A region's rectangle in X screen coordinates (the window sits at 0,0; Blender counts from
    the bottom, X from the top)."""
    window = bpy.context.window_manager.windows[0]
    top = window.height - (region.y + region.height)
    return {"x": region.x, "y": top, "width": region.width, "height": region.height}


def sidebar() -> dict[str, Any]:
    """The Sidebar's screen rectangle and active tab (its ``active_panel_category`` is read-only:
    the test changes tabs with real input)."""
    region = region_of("UI")
    return {**screen_rect(region), "shown": region.width > 1, "tab": region.active_panel_category}


def show_kiln_preferences() -> dict[str, int]:
    """Turn the 3D View into the Preferences editor at Add-ons ▸ Kiln, expanded, as an artist opens
    it; returns the area's screen rectangle (put the 3D View back with ``area.ui_type``)."""
    window, area = view3d()
    area.ui_type = "PREFERENCES"
    area.tag_redraw()
    bpy.context.preferences.active_section = "ADDONS"
    bpy.context.window_manager.addon_search = "Kiln"
    region = next(region for region in area.regions if region.type == "WINDOW")
    with bpy.context.temp_override(window=window, area=area, region=region):
        import addon_utils

        if not addon_utils.module_bl_info(sys.modules[MODULE])["show_expanded"]:
            bpy.ops.preferences.addon_expand(module=MODULE)
    return screen_rect(region)


def kiln_module(name: str) -> Any:
    """A module of Kiln's, loaded if it is not yet (many load with their first use, not at registration)."""
    return importlib.import_module(f"{MODULE}.{name}")


def kiln_jobs() -> list[dict[str, Any]]:
    """Every job the running engine knows, as plain values."""
    runtime = sys.modules[f"{MODULE}.session.runtime"]
    engine = runtime.engine_if_started()
    if engine is None:
        return []
    return [
        {
            "id": job.id,
            "state": str(getattr(job.state, "value", job.state)),
            "task_id": job.task_id,
            "error": job.error,
            "blend_path": job.blend_path,
            "prompt": getattr(job.request, "prompt", None),
        }
        for job in engine.jobs()
    ]


def library_copy(request: Any) -> str | None:
    """The Kiln library's .blend for an identical request, once it is there (written by the helper)."""
    library = sys.modules[f"{MODULE}.session.library"]
    entry = library.lookup(request)
    return str(library.index().folder / entry.blend) if entry else None


def kiln_objects() -> list[dict[str, Any]]:
    """Objects in this file that carry Kiln's provenance."""
    return [
        {
            "name": obj.name,
            "type": obj.type,
            "task_id": obj.get("kiln_task_id"),
            "prompt": obj.get("kiln_prompt"),
            "parent": obj.parent.name if obj.parent else None,
        }
        for obj in bpy.data.objects
        if "kiln_task_id" in obj
    ]


class GapMeter:
    """A 10 ms timer that records how late each call comes: the UI thread's longest stalls, and when
    (seconds since ``start``) each stall over ``SLOW_GAP_MS`` ended. Given ``until`` (an expression
    of the agent's namespace), it stops keeping gaps at the first tick where that holds, and says
    when (``ended_at``): a phase ends at that moment, not at the test's next look. Given ``after``,
    it keeps gaps only from the first tick where that holds (``began_at``)."""

    SLOW_GAP_MS = 40.0

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self.slow: list[tuple[float, float]] = []
        self._start = self._last = 0.0
        self._until: Any = None
        self._after: Any = None
        self.began_at: float | None = None
        self.ended_at: float | None = None
        self.running = False

    def start(self, until: str | None = None, after: str | None = None) -> None:
        self.gaps.clear()
        self.slow.clear()
        self._until = compile(until, "until", "eval") if until else None
        self._after = compile(after, "after", "eval") if after else None
        self.began_at = None if after else 0.0
        self.ended_at = None
        self._start = self._last = time.perf_counter()
        self.running = True
        bpy.app.timers.register(self._tick, first_interval=0.01, persistent=True)

    def _tick(self) -> float | None:
        now = time.perf_counter()
        if self.began_at is None and eval(self._after, _namespace):
            self.began_at = round(now - self._start, 2)
        elif self.began_at is not None and self.ended_at is None:
            gap = (now - self._last) * 1000.0
            self.gaps.append(gap)
            if gap > self.SLOW_GAP_MS:
                self.slow.append((round(now - self._start, 2), round(gap, 1)))
            if self._until is not None and eval(self._until, _namespace):
                self.ended_at = round(now - self._start, 2)
        self._last = now
        return 0.01 if self.running else None

    def stop(self) -> dict[str, Any]:
        self.running = False
        gaps = sorted(self.gaps) or [0.0]
        return {
            "count": len(gaps),
            "p50": statistics.median(gaps),
            "p99": gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))],
            "max": gaps[-1],
            "over_100": sum(1 for gap in gaps if gap > 100.0),
            "longest": [round(gap, 1) for gap in gaps[-12:]],
            "slow_at": list(self.slow),
            "began_at": self.began_at,
            "ended_at": self.ended_at,
        }


class DrawCounter:
    """Counts the 3D View's frames by region (a draw handler on its Sidebar and on its viewport): how
    often each is drawn, and when (seconds since ``start``)."""

    REGIONS = ("UI", "WINDOW")

    def __init__(self) -> None:
        self.at: dict[str, list[float]] = {region: [] for region in self.REGIONS}
        self._handles: dict[str, Any] = {}
        self._start = 0.0

    @property
    def frames(self) -> int:
        """The Sidebar's frames."""
        return len(self.at["UI"])

    def start(self) -> None:
        self._start = time.perf_counter()
        for region in self.REGIONS:
            self.at[region] = []
            if region not in self._handles:
                self._handles[region] = bpy.types.SpaceView3D.draw_handler_add(
                    self._count, (region,), region, "POST_PIXEL"
                )

    def _count(self, region: str) -> None:
        self.at[region].append(round(time.perf_counter() - self._start, 2))

    def stop(self) -> int:
        for region, handle in self._handles.items():
            bpy.types.SpaceView3D.draw_handler_remove(handle, region)
        self._handles.clear()
        return self.frames


class CallTimer:
    """Wraps functions of Kiln's modules to time them on the main thread (measurement only: the
    wrapped function runs unchanged): the wall time, and the main thread's own CPU time (what a
    machine busy with other programs adds to the first is not Kiln's work)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, float]] = []

    def wrap(self, module: str, *names: str) -> None:
        owner = kiln_module(module)
        for name in names:
            original = getattr(owner, name)

            def timed(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
                started, started_cpu = time.perf_counter(), time.thread_time()
                try:
                    return _original(*args, **kwargs)
                finally:
                    wall, cpu = time.perf_counter() - started, time.thread_time() - started_cpu
                    self.calls.append((f"{module}.{_name}", wall * 1000.0, cpu * 1000.0))

            setattr(owner, name, timed)

    def longest(self, *, cpu: bool = False) -> dict[str, float]:
        """Each function's longest call in ms: wall time, or with ``cpu`` the main thread's CPU time."""
        longest: dict[str, float] = {}
        for name, wall_ms, cpu_ms in self.calls:
            longest[name] = max(cpu_ms if cpu else wall_ms, longest.get(name, 0.0))
        return longest


gap_meter = GapMeter()
draw_counter = DrawCounter()
call_timer = CallTimer()
_namespace: dict[str, Any] = {
    "bpy": bpy,
    "json": json,
    "time": time,
    "sys": sys,
    "MODULE": MODULE,
    "view3d": view3d,
    "region_of": region_of,
    "in_view3d": in_view3d,
    "screen_rect": screen_rect,
    "sidebar": sidebar,
    "kiln_module": kiln_module,
    "kiln_jobs": kiln_jobs,
    "show_kiln_preferences": show_kiln_preferences,
    "kiln_objects": kiln_objects,
    "library_copy": library_copy,
    "gap_meter": gap_meter,
    "draw_counter": draw_counter,
    "call_timer": call_timer,
}


def _run(snippet: Path) -> None:
    answer: dict[str, Any]
    try:
        _namespace["kiln"] = sys.modules.get(MODULE)
        _namespace["result"] = None
        exec(compile(snippet.read_text(encoding="utf-8"), snippet.name, "exec"), _namespace)
        answer = {"ok": True, "result": _namespace.get("result")}
    except BaseException:
        answer = {"ok": False, "error": traceback.format_exc()}
    partial = OUTBOX / f"{snippet.stem}.partial"
    partial.write_text(json.dumps(answer, default=repr), encoding="utf-8")
    partial.replace(OUTBOX / f"{snippet.stem}.json")
    snippet.unlink()


def no_copy_objects() -> None:
    """The 3D View's Ctrl+C (Copy Objects) off. A search over the Sidebar presses Ctrl+C at each step
    (``sidebar.copied_under``), and over a label or a gap the key falls through to the 3D View, which
    wrote the selected objects to a .blend and said so in the status bar: a whole frame, about 40 ms
    of software OpenGL a step (a search down the Kiln tab: 4.9 CPU-s with it, 1.3 without)."""
    for keymap in bpy.context.window_manager.keyconfigs.user.keymaps:
        for item in keymap.keymap_items:
            if item.idname == "view3d.copybuffer":
                item.active = False


def _tick() -> float:
    global _last_snippet
    now = time.monotonic()
    for snippet in sorted(INBOX.glob("*.py")):
        _run(snippet)
        _last_snippet = now
    return TICK if now - _last_snippet < IDLE_AFTER else IDLE_TICK


INBOX.mkdir(parents=True, exist_ok=True)
OUTBOX.mkdir(parents=True, exist_ok=True)
bpy.app.timers.register(no_copy_objects, first_interval=0.0)  # once, when the keymaps are there
bpy.app.timers.register(_tick, first_interval=TICK, persistent=True)
print(f"KILN-AGENT ready {bpy.app.version_string} Python {sys.version.split()[0]}", flush=True)
