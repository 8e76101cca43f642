"""UI scale 2 on a narrow screen: the Kiln tab still shows its controls, and its picture holds its
panels whole (nothing cut mid-box)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pictures import sidebar_picture
from program import Display, Program, Window
from sidebar import find_in_sidebar, open_kiln_tab


@pytest.fixture
def display(program: Program) -> Iterator[Display]:
    """A narrow screen, tall enough for the Kiln tab at twice the size."""
    screen = Display(program, width=1024, height=1400).start()
    yield screen
    screen.stop()


def test_ui_scale_2_in_a_small_window(
    program: Program, user: Path, display: Display, open_window: Callable[..., Window]
) -> None:
    # Scale 2 and a service chosen (the custom one: its setup box asks for a key and an address, the
    # widest box a service shows; a fresh Kiln chooses none), saved as an artist's preferences.
    program.blender(
        [
            "-b",
            "--python-expr",
            "import bpy; bpy.context.preferences.view.ui_scale = 2.0; "
            "bpy.context.preferences.addons['bl_ext.user_default.kiln'].preferences.service = 'INTERFACE'; "
            "bpy.ops.wm.save_userpref()",
        ],
        user,
    )
    window = open_window()
    assert window.call("result = bpy.context.preferences.view.ui_scale") == 2.0
    assert window.call("result = bpy.context.preferences.addons[MODULE].preferences.service") == "INTERFACE"
    bar = open_kiln_tab(window)
    find_in_sidebar(window, "bpy.ops.kiln.", step=16)
    assert bar["width"] > 0
    window.call("bpy.context.preferences.system.use_region_overlap = False")  # its own background
    sidebar_picture(window, "sidebar-scale-2")  # fails when a panel runs past the Sidebar's edge
