"""One Blender window a whole test file shares (its tests go on where the last one left off): made
once on a tall screen with the Kiln tab open and the test tooling importable, its log printed with
a failed test's report, killed at the end."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from program import REPO, TALL_SCREEN, Display, Program, Window
from sidebar import open_kiln_tab


def load_support(program: Program, window: Window) -> None:
    """The test tooling that reads what a panel drew (``tests/support``), importable in Blender."""
    support = program.workdir("support") / "support"
    shutil.copytree(REPO / "tests" / "support", support, ignore=shutil.ignore_patterns("__pycache__"))
    window.call(f"sys.path.insert(0, {program.inside(support)!r})\nimport language_texts, sidebar_measure")


@contextmanager
def shared_window(
    program: Program,
    installed_user: Path,
    env: dict[str, str],
    started: Callable[[Window], None] = lambda _window: None,
) -> Iterator[Window]:
    """A Blender with Kiln installed (a copy of ``installed_user``) and ``env``; ``started`` checks
    it before the Kiln tab is opened."""
    user = program.workdir("user")
    shutil.rmtree(user)
    shutil.copytree(installed_user, user, symlinks=True)
    screen = Display(program, *TALL_SCREEN).start()
    blender = Window(program, screen, user, env)
    try:
        blender.start()
        # Editors side by side: the Sidebar's own background under its panels (pictures.py cuts there).
        blender.call("bpy.context.preferences.system.use_region_overlap = False")
        started(blender)
        open_kiln_tab(blender)
        load_support(program, blender)
        yield blender
    except BaseException:
        print(f"--- Blender log {blender.log_path}\n{blender.log()[-6000:]}")
        raise
    finally:
        blender.kill()
        screen.stop()


def print_log_if_failed(window: Window, request: pytest.FixtureRequest) -> None:
    """Blender's log with a failed test's report (the window outlives the test)."""
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(f"--- Blender log {window.log_path}\n{window.log()[-6000:]}")
