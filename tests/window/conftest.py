"""Fixtures of the window suite: Debian's Blender program, Kiln installed from its built zip.

The suite runs once per ``make test`` (not once per bpy venv) with ``pytest tests/window``; the
bpy runs leave this folder out (``tests/conftest.py``). Where the machine cannot build the chroot
(not root), every test here is skipped with the one sentence ``tools/window_chroot.sh`` gives.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from program import FIRST_START_PREFERENCES, REPO, Display, Program, Window, WindowError, provision

from sandbox.server import Sandbox

#: Screenshots of the Sidebar's key states; `make screenshots` copies them into docs/images/.
#: A run on another Debian release (KILN_WINDOW_SUITE) keeps its own.
_SUITE = os.environ.get("KILN_WINDOW_SUITE", "sid")
SHOTS = REPO / "tests" / "window" / ("out" if _SUITE == "sid" else f"out-{_SUITE}")
_program: Program | str | None = None


def program_or_reason() -> Program | str:
    global _program
    if _program is None:
        _program = provision()
    return _program


def pytest_report_header(config: pytest.Config) -> str:
    found = program_or_reason()
    if isinstance(found, str):
        return f"window suite: skipped: {found}"
    return f"window suite: {found.version} (Debian's blender program in {found.root}, Xvfb, software OpenGL)"


@pytest.fixture(scope="session")
def program() -> Program:
    found = program_or_reason()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session", autouse=True)
def tidy_workdirs(program: Program) -> Iterator[None]:
    """This run's folders in the chroot go with it: a run leaves up to a gigabyte (Kiln's zip, a user
    folder a window, meshes), and repeated runs filled the disk. Failures print their logs first."""
    yield
    shutil.rmtree(program.root / "tmp" / f"kiln-window-{os.getpid()}", ignore_errors=True)


@pytest.fixture(scope="session")
def kiln_zip(program: Program) -> Path:
    """Kiln built by the program's own extension tool from a copy of the working tree."""
    work = program.workdir("build")
    source = work / "kiln"
    # The manifest names Pillow wheels the build needs in the copy. The tools' caches stay out: the
    # other runs of make test write .wheels-site while this copies (a folder renamed mid-copy failed it).
    subprocess.run([sys.executable, str(REPO / "tools" / "fetch_wheels.py")], check=True)
    dev_only = (".git", ".venv*", ".node", ".wheels-site", ".*_cache", "dist", "demo-out", "out")
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*dev_only, "__pycache__", "*.pyc"))
    done = program.run(
        ["blender", "--command", "extension", "build", "--source-dir", program.inside(source),
         "--output-dir", program.inside(work)],
        timeout=120,
    )  # fmt: skip
    zips = list(work.glob("kiln-*.zip"))
    if done.returncode != 0 or len(zips) != 1:
        raise WindowError(f"extension build failed:\n{done.stdout}\n{done.stderr}")
    return zips[0]


@pytest.fixture(scope="session")
def installed_user(program: Program, kiln_zip: Path) -> Path:
    """A user folder where Kiln was installed as Install from Disk does, with preferences an
    artist would have after the first start (``FIRST_START_PREFERENCES``; autosave on its default)."""
    user = program.workdir("user-template")
    program.blender(
        ["--command", "extension", "install-file", "-r", "user_default", "-e", program.inside(kiln_zip)], user
    )
    program.blender(["-b", "--python-expr", FIRST_START_PREFERENCES], user)
    # Compiled once here, as an artist's Blender leaves it after its first start: each test's copy of
    # this folder would otherwise compile Kiln again in every window and helper it starts.
    compiled = program.run(["python3", "-m", "compileall", "-q", program.inside(user / "extensions")])
    if compiled.returncode != 0:
        raise WindowError(f"compiling the installed Kiln failed:\n{compiled.stdout}\n{compiled.stderr}")
    return user


@pytest.fixture
def user(program: Program, installed_user: Path) -> Path:
    """A copy of the installed user folder, private to one test."""
    folder = program.workdir("user")
    shutil.rmtree(folder)
    shutil.copytree(installed_user, folder, symlinks=True)
    return folder


@pytest.fixture
def artist_user(program: Program, installed_user: Path) -> Iterator[Path]:
    """A copy of the installed user folder where an artist's Blender on Linux keeps it
    (``/home/artist/.config/blender/<version>``): a picture that shows Kiln's file or a chosen image
    shows a path an artist would have, not a temporary one. A test takes it as its ``user``."""
    version = program.version.split()[1].rsplit(".", 1)[0] if " " in program.version else "5.2"
    home = program.root / "home" / "artist"
    folder = home / ".config" / "blender" / version
    shutil.rmtree(home, ignore_errors=True)
    folder.parent.mkdir(parents=True)
    shutil.copytree(installed_user, folder, symlinks=True)
    yield folder
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def display(program: Program) -> Iterator[Display]:
    screen = Display(program).start()
    yield screen
    screen.stop()


@pytest.fixture
def open_window(
    program: Program, display: Display, user: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Window]]:
    """``open_window(env=..., blend=..., args=...)`` starts Blender with Kiln on the test's display.

    Every window still running at the end is killed; its log is attached when the test failed.
    """
    windows: list[Window] = []

    def start(env: dict[str, str] | None = None, **kwargs: object) -> Window:
        window = Window(program, display, user, env or {})
        windows.append(window)
        return window.start(**kwargs)  # type: ignore[arg-type]

    yield start
    for window in windows:
        window.kill()
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for window in windows:
            print(f"--- Blender log {window.log_path}\n{window.log()[-6000:]}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def service_env(sandbox: Sandbox, sandbox_key: str) -> dict[str, str]:
    """Kiln pointed at the sandbox through the environment, as a studio's launcher would."""
    return {"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key}


def shot(display: Display, name: str, crop: dict[str, int] | None = None) -> Path:
    """A screenshot kept in tests/window/out/ (the README's pictures come from here)."""
    return display.screenshot(SHOTS / f"{name}.png", crop)


def chroot_has(program: Program, module: str) -> bool:
    done = subprocess.run(
        ["chroot", str(program.root), "python3", "-c", f"import {module}"], capture_output=True, check=False
    )
    return done.returncode == 0
