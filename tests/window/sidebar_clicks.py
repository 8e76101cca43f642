"""Clicks on the Kiln tab while jobs run, with real input: a button found by what Ctrl+C over it copies
and checked again with the pointer at rest (Blender gets to a key late while the Sidebar redraws for a
running job), a closed subpanel opened by a click on its header, a dialog's text field filled by a paste,
and a picture of a question Blender put in the middle of the window.

Blender's panels are read with ``language_texts`` (tests/support), imported in the window first.
"""

from __future__ import annotations

import time
from pathlib import Path

from conftest import shot
from program import Window, WindowError
from sidebar import copied_settled, find_in

#: How long a Ctrl+C may take to reach the clipboard while a job runs (seconds).
COPY_WAIT = 1.0
#: Blender's rows in the Sidebar at UI scale 1: a closed subpanel's header under the one above it.
HEADER_ROW = 26
#: The scan's step down the Jobs panel (pixels): less than its buttons' height (26 at UI scale 1).
JOBS_STEP = 10
#: Where the Generate button was found (a test file that opens a window empties it first).
SPOTS: dict[str, tuple[int, int]] = {}
#: Around the middle of the window, where Blender puts a question: how far left of the middle and below
#: it a picture of the question reaches (up to the Sidebar's top, right to its edge).
QUESTION_REACH = (480, 140)
#: A dialog's rows (pixels at UI scale 1), and how far left of the button that opened it its fields are.
DIALOG_ROW = 26
DIALOG_FIELD_LEFT = 60
DIALOG_LABELS = 140
#: How long Blender takes to draw a panel opening or closing (seconds).
PANEL_MOTION = 1.0
#: The Generate panel's closed subpanels, top to bottom.
SUBPANELS = ("KILN_PT_generate_advanced", "KILN_PT_retexture", "KILN_PT_blockout")


def copies(window: Window, x: int, y: int) -> str:
    """What Ctrl+C copies at x, y ("" over what copies nothing), waiting longer for the copy: while a job
    runs, Blender takes its time to get to the key."""
    return copied_settled(window, x, y, COPY_WAIT)


def locate(window: Window, rect: dict[str, int], wanted: str, step: int = 8) -> tuple[int, int]:
    """A point where Ctrl+C copies ``wanted``, confirmed with the longer wait a running job needs."""
    return find_in(window, rect, wanted, step, COPY_WAIT)


def below(window: Window, y: int) -> dict[str, int]:
    """The Sidebar from ``y`` down."""
    bar = window.call("result = sidebar()")
    return {**bar, "y": y, "height": bar["y"] + bar["height"] - y}


def generate_button(window: Window) -> tuple[int, int]:
    """Where Generate is: where it was last time (the rows above it are the same on these services),
    else found down the Sidebar."""
    wanted = "bpy.ops.kiln.generate_from_text"
    known = SPOTS.get("generate")
    if known is None or wanted not in copies(window, *known):
        SPOTS["generate"] = locate(window, window.call("result = sidebar()"), wanted)
    return SPOTS["generate"]


def in_jobs_panel(window: Window, wanted: str, left: bool = False) -> tuple[int, int]:
    """A button under the Generate panel's Generate (the subpanels' and the Jobs panel's); ``left``: the
    first of a row of them (searched down the Sidebar's left half)."""
    rect = below(window, generate_button(window)[1] + 20)
    if left:
        rect = {**rect, "width": rect["width"] // 2}
    return locate(window, rect, wanted, step=JOBS_STEP)


def job_button(window: Window, operator: str, job_id: str, left: bool = False) -> tuple[int, int]:
    """A button of the Jobs panel's details for this job."""
    point = in_jobs_panel(window, f"bpy.ops.kiln.{operator}(", left)
    copied = copies(window, *point)
    assert job_id in copied, f"{operator} at {point} is another job's: {copied}"
    return point


def open_subpanels(window: Window) -> set[str]:
    """Which of the Generate panel's subpanels draw (are open), heard over redraws for a while after a
    click (Blender may take its time to get to the click): the Jobs panel, drawn after them, counts the
    redraws."""
    names = (*SUBPANELS, "KILN_PT_jobs")
    ask = f"result = [language_texts.next_drawn(getattr(bpy.types, n)) is not None for n in {names!r}]"
    window.call(ask)  # every panel listened to, a redraw asked for
    heard: set[str] = set()
    redraws = 0
    start = time.monotonic()
    while redraws < 2 or time.monotonic() - start < PANEL_MOTION:
        if time.monotonic() - start > 20:
            raise WindowError("the Sidebar did not redraw")
        time.sleep(0.1)
        drew = {name for name, yes in zip(names, window.call(ask), strict=True) if yes}
        redraws += "KILN_PT_jobs" in drew
        heard |= drew
    return heard & set(SUBPANELS)


def open_retexture(window: Window) -> tuple[int, int]:
    """A click on the Re-texture header (under Advanced, above Blockout: the first header found below
    Generate by a click says where it is; a wrong one is closed again); where it was clicked."""
    x, y = generate_button(window)
    tried: list[tuple[int, set[str]]] = []
    for candidate in range(y + 10, y + 200, 10):
        if copies(window, x, candidate):
            continue  # a button or a field (Generate itself): a header copies nothing
        window.display.click(x, candidate)
        opened = open_subpanels(window)
        tried.append((candidate, opened))
        if not opened:
            continue
        if "KILN_PT_retexture" in opened:
            return x, candidate
        window.display.click(x, candidate)  # closed again
        time.sleep(PANEL_MOTION)
        shift = HEADER_ROW if "KILN_PT_generate_advanced" in opened else -HEADER_ROW
        window.display.click(x, candidate + shift)
        opened = open_subpanels(window)
        tried.append((candidate + shift, opened))
        if "KILN_PT_retexture" in opened:
            return x, candidate + shift
        break
    raise WindowError(f"no click below Generate at {x}, {y} opened the Re-texture panel: {tried}")


def question_picture(window: Window, name: str, under: int | None = None) -> Path:
    """The question Blender put in the middle of the window (or a dialog reaching down to ``under``), with
    the Sidebar beside it, from its top."""
    bar = window.call("result = sidebar()")
    display = window.display
    left, below_middle = QUESTION_REACH
    x = display.width // 2 - left
    bottom = under if under is not None else display.height // 2 + below_middle
    return shot(
        display,
        name,
        {"x": x, "y": bar["y"], "width": bar["x"] + bar["width"] - x, "height": bottom - bar["y"]},
    )


def paste_into_first_field(window: Window, x: int, below_y: int, text: str) -> None:
    """Ctrl+V over the first text field of a dialog above ``below_y`` (found from the top: a paste there,
    then Ctrl+C copies it back), as an artist pastes an id copied from the service's dashboard."""
    for y in range(below_y - 3 * DIALOG_ROW, below_y - DIALOG_ROW // 2, 4):
        window.call(f"bpy.context.window_manager.clipboard = {text!r}")
        window.display.xdotool("mousemove", "--sync", x + 3, y)
        window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+v", "sleep", "0.1")
        if copies(window, x, y) == text:
            return
    raise WindowError(f"no field above y={below_y} took the pasted {text!r}")
