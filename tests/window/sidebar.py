"""What an artist does with the Sidebar, with real input: show it, pick the Kiln tab, find a
button or field by what Ctrl+C over it copies, click, paste a prompt."""

from __future__ import annotations

import time
from collections.abc import Callable
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


#: How long a search's confirming read waits for a copy over what may copy nothing (seconds).
CONFIRM_WAIT = 0.3


def copied_under(window: Window, x: int, y: int) -> str:
    """What Ctrl+C copies with the mouse at x, y (an operator button copies its Python command,
    a field its value); over anything else the clipboard keeps what it had.

    Quick, for a search: on a busy machine the answer can be a step late (Blender answers the
    clipboard's reader before it handles the key that came first), so a search confirms what it
    found with :func:`copied_settled`."""
    window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+c", "sleep", "0.05")
    return window.display.clipboard()


def copied_settled(window: Window, x: int, y: int, wait: float = 0.5) -> str:
    """What Ctrl+C copies at x, y ("" over what copies nothing), read once Blender got to the key: the
    clipboard emptied first, the pointer brought from beside the point (Blender lights the button under
    a pointer that moves), a round trip through Blender's loop, then the clipboard read until the copy
    is there or ``wait`` seconds have passed (a busy Blender, or one redrawing for a running job, gets
    to a key late)."""
    window.call("bpy.context.window_manager.clipboard = ''")
    window.display.xdotool("mousemove", "--sync", x + 3, y)
    window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+c")
    window.call("pass")
    deadline = time.monotonic() + wait
    while not (copied := window.display.clipboard()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return copied


def find_in_sidebar(window: Window, wanted: str, step: int = 10) -> tuple[int, int]:
    """The screen point of the first Sidebar button or field whose Ctrl+C copy contains ``wanted``."""
    return find_in(window, window.call("result = sidebar()"), wanted, step)


def find_in(
    window: Window,
    rect: dict[str, int],
    wanted: str | Callable[[str], bool],
    step: int = 10,
    wait: float = CONFIRM_WAIT,
) -> tuple[int, int]:
    """A point inside the first button or field down the middle of a screen rectangle whose Ctrl+C
    copy contains ``wanted`` (or, given a function, whose copy it accepts): found by a quick search,
    then confirmed by :func:`copied_settled` waiting up to ``wait`` (a late answer finds it a step or
    two low) and taken between two points that both copy it where the thing is taller than a step."""
    matches = wanted if callable(wanted) else lambda copy: wanted in copy
    window.call("bpy.context.window_manager.clipboard = ''")
    x = rect["x"] + rect["width"] // 2
    top, bottom = rect["y"], rect["y"] + rect["height"]
    for y in range(top + step, bottom, step):
        if not matches(copied_under(window, x, y)):
            continue
        for first in range(max(top + 1, y - 2 * step), y + 1, step // 2 or 1):
            if matches(copied_settled(window, x, first, wait)):
                below = first + step // 2
                inside = matches(copied_settled(window, x, below, wait))
                return (x, below - step // 4) if inside else (x, first)
    raise WindowError(f"nothing at x={x} from y={top} to {bottom} copies {wanted!r}")


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


FIELD_MARKER = "kiln-window-find-me"


def find_field(window: Window, data_path: str) -> tuple[int, int]:
    """A text field, found by giving it a value nobody would type (Ctrl+C copies a field's text); the
    field keeps that value."""
    window.call(f"{data_path} = {FIELD_MARKER!r}")
    return find_in_sidebar(window, FIELD_MARKER)


def paste_into_field(window: Window, data_path: str, text: str) -> None:
    """``text`` into a Sidebar text field as an artist pastes a prompt: the clipboard holds it, the
    pointer rests on the field, Ctrl+V (Blender pastes into the field under the pointer). No letter is
    typed, so none can land elsewhere as a shortcut when the field has moved (on a busy machine the
    Sidebar is drawn again at any time). The value is awaited; a second and third try find the field
    anew."""
    display = window.display
    for attempt in range(3):
        x, y = find_field(window, data_path)
        window.call(f"bpy.context.window_manager.clipboard = {text!r}")
        display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+v")
        try:
            window.wait_for(f"{data_path} == {text!r}", timeout=8, every=0.2)
        except WindowError:
            display.screenshot(SHOTS / f"paste-into-field-attempt-{attempt + 1}.png")
            continue
        # The pointer moves on, as an artist's does: resting on the field, it would open its tooltip.
        display.xdotool("mousemove", "--sync", *viewport_centre(window))
        return
    raise WindowError(f"{data_path} does not hold {text!r} after three pastes (pictures in {SHOTS})")
