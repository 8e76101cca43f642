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
    found = _mark_and_find(window, data_path)
    window.call(f"{data_path} = ''")
    return found


FIELD_MARKER = "kiln-window-find-me"


def _mark_and_find(window: Window, data_path: str) -> tuple[int, int]:
    window.call(f"{data_path} = {FIELD_MARKER!r}")
    return find_in_sidebar(window, FIELD_MARKER)


def type_into_field(window: Window, x: int, y: int, text: str, prop: str | None = None) -> None:
    """Double-click a text field to edit it, select all, type, Enter; with ``prop`` (the field's Python
    path), wait until it holds the text, else try again with the field found anew.

    On a busy machine the keys can be handled seconds after xdotool sent them (so the value is awaited,
    not read once), and the Sidebar can be drawn again while they come (the edit ends, the keys go
    elsewhere): a retry first ends any edit still open (Escape), then marks the field and checks, with
    Ctrl+C at the very point, that the field is still there just before the click."""
    display = window.display
    for attempt in range(3):
        if attempt and prop is not None:
            display.xdotool("key", "Escape")
            window.call("pass")
            picture = display.screenshot(SHOTS / f"type-into-field-attempt-{attempt}.png")
            open_kiln_tab(window)
            try:
                x, y = _mark_and_find(window, prop)
            except WindowError as lost:
                raise WindowError(f"{lost}; the screen before this try: {picture}") from None
        display.xdotool("mousemove", "--sync", x, y)
        display.xdotool("click", "--repeat", "2", "1")
        time.sleep(0.1)
        display.xdotool("key", "ctrl+a")
        display.xdotool("type", "--delay", "5", text)
        display.xdotool("key", "Return")
        if prop is None:
            return
        try:
            window.wait_for(f"{prop} == {text!r}", timeout=8, every=0.2)
            return
        except WindowError:
            continue
    picture = display.screenshot(SHOTS / "type-into-field-failed.png")
    raise WindowError(f"{prop} does not hold {text!r} after typing it three times at {x}, {y}: {picture}")
