"""UI scale 2 in a small window: the Kiln tab still shows its controls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pictures import area_picture
from program import Display, Program, Window
from sidebar import find_in_sidebar, open_kiln_tab


@pytest.fixture
def display(program: Program) -> Iterator[Display]:
    """A laptop-sized screen instead of the suite's default."""
    screen = Display(program, width=1024, height=700).start()
    yield screen
    screen.stop()


def test_ui_scale_2_in_a_small_window(
    program: Program, user: Path, display: Display, open_window: Callable[..., Window]
) -> None:
    program.blender(
        [
            "-b",
            "--python-expr",
            "import bpy; bpy.context.preferences.view.ui_scale = 2.0; bpy.ops.wm.save_userpref()",
        ],
        user,
    )
    window = open_window()
    assert window.call("result = bpy.context.preferences.view.ui_scale") == 2.0
    bar = open_kiln_tab(window)
    find_in_sidebar(window, "bpy.ops.kiln.", step=16)
    area_picture(window, "sidebar-scale-2", bar)  # cut by the small window: it scrolls
