"""What an artist does with the Sidebar, with real input: show it, pick the Kiln tab, find a
button or field by what Ctrl+C over it copies, click, type."""

from __future__ import annotations

import time
from typing import Any

from conftest import SHOTS
from program import Window, WindowError


def viewport_centre(window: Window) -> tuple[int, int]:
    rect = window.call("result = screen_rect(region_of('WINDOW'))")
    return rect["x"] + rect["width"] // 3, rect["y"] + rect["height"] // 2


def open_kiln_tab(window: Window) -> dict[str, Any]:
    """N over the viewport shows the Sidebar; Ctrl+wheel over its tabs walks to Kiln."""
    display = window.display
    x, y = viewport_centre(window)
    display.xdotool("mousemove", "--sync", x, y)
    if not window.call("result = sidebar()['shown']"):
        display.xdotool("key", "n")
        window.wait_for("sidebar()['shown']", timeout=10)
    for _ in range(12):
        bar = window.call("result = sidebar()")
        if bar["tab"] == "Kiln":
            return bar
        # The tab strip is the Sidebar's right edge.
        display.xdotool("mousemove", "--sync", bar["x"] + bar["width"] - 8, bar["y"] + 60)
        display.xdotool("keydown", "ctrl", "click", "5", "keyup", "ctrl")
        time.sleep(0.15)
    raise WindowError(f"the Sidebar never showed the Kiln tab: {window.call('result = sidebar()')}")


def copied_under(window: Window, x: int, y: int) -> str:
    """What Ctrl+C copies with the mouse at x, y (an operator button copies its Python command,
    a field its value); over anything else the clipboard keeps what it had."""
    window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+c", "sleep", "0.05")
    return window.display.clipboard()


def find_in_sidebar(window: Window, wanted: str, step: int = 10) -> tuple[int, int]:
    """The screen point of the first Sidebar button or field whose Ctrl+C copy contains ``wanted``."""
    return find_in(window, window.call("result = sidebar()"), wanted, step)


def find_in(window: Window, rect: dict[str, int], wanted: str, step: int = 10) -> tuple[int, int]:
    """The first point down the middle of a screen rectangle where Ctrl+C copies ``wanted``."""
    window.call("bpy.context.window_manager.clipboard = ''")
    x = rect["x"] + rect["width"] // 2
    for y in range(rect["y"] + step, rect["y"] + rect["height"], step):
        if wanted in copied_under(window, x, y):
            return x, y
    raise WindowError(
        f"nothing at x={x} from y={rect['y']} to {rect['y'] + rect['height']} copies {wanted!r}"
    )


def copies_down(window: Window, rect: dict[str, int], step: int = 8) -> list[str]:
    """Every distinct Ctrl+C copy down the middle of a screen rectangle, top to bottom: the buttons
    and fields an artist can reach there (a button copies its Python command)."""
    window.call("bpy.context.window_manager.clipboard = ''")
    x = rect["x"] + rect["width"] // 2
    found: list[str] = []
    for y in range(rect["y"] + step, rect["y"] + rect["height"], step):
        copy = copied_under(window, x, y)
        if copy and copy not in found:
            found.append(copy)
    return found


def find_field(window: Window, data_path: str) -> tuple[int, int]:
    """A text field, found by giving it a value nobody would type (Ctrl+C copies a field's text)."""
    marker = "kiln-window-find-me"
    window.call(f"{data_path} = {marker!r}")
    found = find_in_sidebar(window, marker)
    window.call(f"{data_path} = ''")
    return found


def type_into_field(window: Window, x: int, y: int, text: str, prop: str | None = None) -> None:
    """Double-click a text field to edit it, select all, type, Enter; with ``prop`` (the field's Python
    path), again until it holds the text, the field found anew (on a busy machine the Sidebar can be
    drawn again while the keys come, a line added above the field: its edit ends, the keys go
    elsewhere)."""
    display = window.display
    for attempt in range(3):
        if attempt and prop is not None:  # the Sidebar may have moved: find the field again
            x, y = find_field(window, prop)
        display.xdotool("mousemove", "--sync", x, y)
        display.xdotool("click", "--repeat", "2", "1")
        time.sleep(0.1)
        display.xdotool("key", "ctrl+a")
        display.xdotool("type", "--delay", "5", text)
        display.xdotool("key", "Return")
        if prop is None:
            return
        # Blender answers a call from a timer, which runs before that loop's input is handled: the
        # second call's answer comes after the keys were.
        window.call("pass")
        if window.call(f"result = {prop}") == text:
            return
        time.sleep(0.5)
    picture = display.screenshot(SHOTS / "type-into-field-failed.png")
    raise WindowError(f"{prop} does not hold {text!r} after typing it three times at {x}, {y}: {picture}")
