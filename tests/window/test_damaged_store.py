"""A job list SQLite would read as new, met by the Blender program with a window: the bytes are kept
as a backup, and the status bar and the Jobs panel say so (issue 25; ``blender -b`` has its own test
in tests/system/store)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import shot
from program import Window
from sidebar import open_kiln_tab

STORE = Path("extensions") / ".user" / "user_default" / "kiln" / "jobs.sqlite3"
START_ENGINE = "sys.modules[MODULE + '.session.runtime'].engine(bpy.context)"


@pytest.mark.parametrize("damage", ["emptied store", "garbage write-ahead log"])
def test_the_damage_is_kept_and_said_in_the_status_bar_and_the_panel(
    open_window: Callable[..., Window], user: Path, damage: str
) -> None:
    window = open_window()
    window.call(START_ENGINE)  # Kiln writes its job list
    assert window.quit() == 0
    store = user / STORE
    assert store.is_file()
    damaged = b"" if damage == "emptied store" else os.urandom(4096)
    store.with_name(store.name + ("" if damage == "emptied store" else "-wal")).write_bytes(damaged)

    window = open_window()
    window.call(START_ENGINE)
    deadline = time.monotonic() + 30
    while "job list was damaged" not in (said := window.log()):
        assert time.monotonic() < deadline, f"no sentence in the status bar:\n{said[-3000:]}"
        time.sleep(0.25)
    (backup,) = [
        p for p in store.parent.glob("jobs.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    ]
    kept = backup if damage == "emptied store" else backup.with_name(backup.name + "-wal")
    assert kept.read_bytes() == damaged
    assert backup.name in said
    if damage == "emptied store":
        open_kiln_tab(window)
        shot(window.display, "sidebar-damaged-job-list", window.call("result = sidebar()"))
