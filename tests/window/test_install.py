"""Kiln installed as Install from Disk does, in Debian's Blender program with a window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from program import Program, Window


def test_the_built_zip_installs_and_enables_in_the_program(program: Program, installed_user: Path) -> None:
    listed = program.blender(["--command", "extension", "list"], installed_user).stdout
    assert "kiln" in listed, listed


def test_kiln_is_enabled_in_a_window_and_its_preferences_show(open_window: Callable[..., Window]) -> None:
    window = open_window()
    assert window.call("result = MODULE in bpy.context.preferences.addons")
    assert window.call("result = bpy.app.binary_path") == "/usr/bin/blender"
    window.call(
        "bpy.ops.screen.userpref_show(section='ADDONS')\nbpy.context.preferences.active_section = 'ADDONS'\n"
    )
    window.wait_for("len(bpy.context.window_manager.windows) == 2")
