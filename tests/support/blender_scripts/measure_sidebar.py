"""Run inside the Blender program with a window: does every Kiln text fit the real Sidebar?

Opens the Sidebar of the first 3D View on its Kiln tab, draws every Kiln panel in each state
``tests/support/sidebar_measure.py`` sets up without a network (no key; online access off; ready;
a job waiting with its retry sentence; a failed job with a long sentence; an imported job; the
library's offer), measures each label, progress text and property label with ``blf`` at the
window's UI scale against the region's real width less the panels' margins, prints one line
``KILN-SIDEBAR {json}`` (and writes the JSON to ``--out``), and ends Blender with exit code 1
on any overflow (0 when all fits, 2 when the measuring itself failed).

Kiln must be enabled (installed from the zip, as the window suite does). Usage:

    blender --factory-startup --python-exit-code 1 \\
        --python tests/support/blender_scripts/measure_sidebar.py -- [--ui-scale 2] [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import bpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sidebar_measure import report

#: Seconds the event loop runs before measuring: the window is laid out and drawn at its scale.
SETTLE_SECONDS = 1.0


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="measure_sidebar.py")
    parser.add_argument("--ui-scale", type=float, default=None, help="set Blender's Resolution Scale first")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []
    return parser.parse_args(argv)


def sidebar() -> tuple[Any, Any, Any]:
    """The first 3D View's window, area and Sidebar region, with the Sidebar shown.

    Which tab it shows does not matter here: every tab has the region's width (the category
    tabs take their strip either way). ``Region.active_panel_category`` is read-only, so a
    screenshot of the Kiln tab needs a click on the tab.
    """
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type != "VIEW_3D":
                continue
            area.spaces.active.show_region_ui = True
            region = next(r for r in area.regions if r.type == "UI")
            return window, area, region
    raise SystemExit("measure_sidebar.py: no 3D View in this window (run the Blender program, not -b)")


def redraw() -> None:
    """Draw the window now, so the region's width is the one the artist sees."""
    bpy.ops.wm.redraw_timer(type="DRAW_WIN_SWAP", iterations=1)


def measure() -> int:
    """Measure against the Sidebar as drawn now; 1 when anything overflows."""
    args = arguments()
    window, area, region = sidebar()
    with bpy.context.temp_override(window=window, area=area):
        redraw()
    with bpy.context.temp_override(window=window, area=area, region=region):
        result = report(bpy.context, bpy)
    text = json.dumps(result, indent=1)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    print("KILN-SIDEBAR " + json.dumps(result), flush=True)
    return 1 if result["overflows"] else 0


def measure_then_quit() -> None:
    """Timer: by now the window has been laid out at the chosen scale (regions resize on the event loop)."""
    code = 2
    try:
        code = measure()
    finally:
        sys.stdout.flush()
        # SystemExit from a timer ends Blender with this exit code (Python's own exit handling).
        sys.exit(code)


def main() -> None:
    args = arguments()
    if bpy.app.background:
        raise SystemExit("measure_sidebar.py needs a window: run the Blender program without -b")
    if args.ui_scale is not None:
        bpy.context.preferences.view.ui_scale = args.ui_scale
    sidebar()
    bpy.app.timers.register(measure_then_quit, first_interval=SETTLE_SECONDS)


main()
