"""A Blender from a Linux distribution: Debian's, whose Python is the system's (3.14) and which
comes without numpy and requests. Kiln says what is missing instead of a traceback; with the
modules back, a job runs end to end (the other tests of this suite)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import chroot_has, shot
from pictures import SETTING_COLUMNS, keep_content
from program import Program, Window

MISSING = ("python3-numpy", "python3-requests")
APT = {"DEBIAN_FRONTEND": "noninteractive"}


@pytest.fixture
def user(artist_user: Path) -> Path:
    """The user folder where an artist's Blender keeps it: the preferences' picture shows Kiln's file
    there, not a temporary path."""
    return artist_user


@pytest.fixture
def without_numpy_and_requests(program: Program) -> Iterator[None]:
    """The chroot as `apt install blender` leaves it: both packages removed, and back afterwards."""
    removed = program.run(
        ["apt-get", "remove", "-y", "-qq", *MISSING], env={"DEBIAN_FRONTEND": "noninteractive"}
    )
    assert removed.returncode == 0, removed.stderr
    try:
        assert not chroot_has(program, "numpy") and not chroot_has(program, "requests")
        yield
    finally:
        again = program.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *MISSING],
            env=APT,
            timeout=300,
        )
        assert again.returncode == 0, again.stderr
        assert chroot_has(program, "numpy") and chroot_has(program, "requests")


def test_kiln_enables_and_says_what_is_missing_without_a_traceback(
    program: Program, user: Path, without_numpy_and_requests: None, open_window: Callable[..., Window]
) -> None:
    window = open_window()
    assert window.call("result = MODULE in bpy.context.preferences.addons")
    assert window.call("result = sys.version_info[:2]") == [3, 14]
    log = window.log()
    # Debian's own Blender parts fail here too (its extension manager imports requests): only a
    # traceback through Kiln's files is Kiln's.
    kiln_files = f"{program.inside(user)}/extensions/user_default/kiln/"
    assert not [block for block in log.split("Traceback")[1:] if kiln_files in block], log
    assert "python3-numpy" in log and "python3-requests" in log, log
    registered = window.call("result = sorted(n for n in dir(bpy.types) if n.startswith('KILN_'))")
    assert registered == [], registered
    # The preferences say it too (the add-on's own box in Preferences ▸ Add-ons).
    rect = window.call("result = show_kiln_preferences()")
    time.sleep(0.5)
    keep_content(shot(window.display, "preferences-missing-modules", rect), SETTING_COLUMNS)
