"""An artist's first minutes in Debian's Blender program: no paid click by accident (issue 30).

On the default startup file, with its objects selected, Generate from Selection offers no job and
sends nothing; a batch says what it costs and asks before sending; Ask Above (Credits) asks
before a single click that costs more. The question is a real dialog in the window: nothing is sent
while it is open, and Return (its confirm button) sends.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from program import Window
from sidebar import viewport_centre

from sandbox.server import Sandbox

SELECT_ALL = (
    "with in_view3d('WINDOW'):\n"
    "    bpy.ops.object.select_all(action='SELECT')\n"
    "result = sorted(o.name for o in bpy.context.selected_objects)\n"
)
PLACEHOLDERS = "len(kiln_module('session.blockout').placeholders(bpy.context))"
PRESS_SELECTION = (
    "try:\n"
    "    with in_view3d('WINDOW'):\n"
    "        result = sorted(bpy.ops.kiln.generate_from_selection('INVOKE_DEFAULT'))\n"
    "except RuntimeError as refused:\n"
    "    result = str(refused)\n"
)
PREFERENCES = "bpy.context.preferences.addons[MODULE].preferences"


def _still_nothing_sent(sandbox: Sandbox, seconds: float = 2.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert sandbox.submit_attempts == 0, "a job was sent without the artist's yes"
        time.sleep(0.1)


def test_the_default_startup_file_offers_no_blockout_job(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory()
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    assert window.call(SELECT_ALL) == ["Camera", "Cube", "Light"]
    assert window.call(f"result = {PLACEHOLDERS}") == 0  # the Blockout panel counts no job
    refusal = window.call(PRESS_SELECTION)
    assert "No selected object is a placeholder, so nothing was sent." in refusal
    assert "“Cube” still has the name Blender gave it" in refusal
    _still_nothing_sent(sandbox)


def _answer_the_question(window: Window, sandbox: Sandbox, jobs: int) -> None:
    """The question is open (nothing sent meanwhile); Return over it confirms, and the jobs go."""
    _still_nothing_sent(sandbox)
    window.display.xdotool("key", "Return")
    deadline = time.monotonic() + 30
    while sandbox.submit_count < jobs and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandbox.submit_count == jobs


def test_a_batch_says_its_cost_and_asks_first(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory()
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    window.display.xdotool("mousemove", *viewport_centre(window))  # the dialog opens under the pointer
    window.call(
        "import tempfile, pathlib\n"
        "path = pathlib.Path(tempfile.mkdtemp()) / 'props.txt'\n"
        "path.write_text('a barrel\\na crate\\na lamp\\na stool\\na sack\\n')\n"
        f"{PREFERENCES}.text_cost = 3\n"
        "with in_view3d('WINDOW'):\n"
        "    result = sorted(bpy.ops.kiln.generate_batch(filepath=str(path)))\n"
    )
    _answer_the_question(window, sandbox, jobs=5)


def test_ask_before_spending_asks_before_a_click_that_costs_more(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory()
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    window.display.xdotool("mousemove", *viewport_centre(window))
    window.call(
        f"{PREFERENCES}.text_cost = 3\n"
        f"{PREFERENCES}.ask_above = 2\n"
        "with in_view3d('WINDOW'):\n"
        "    result = sorted(bpy.ops.kiln.generate_from_text('INVOKE_DEFAULT', prompt='a brass lantern'))\n"
    )
    _answer_the_question(window, sandbox, jobs=1)
