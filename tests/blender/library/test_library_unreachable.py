"""A team's library folder that is offline or read-only never fails an import; Kiln says why."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


@pytest.fixture
def chosen_library(kiln_module: Any) -> Iterator[Any]:
    prefs = kiln_module("preferences").get()
    yield prefs
    prefs.library_dir = ""


def test_a_library_on_a_share_that_is_not_mounted_is_not_created_and_the_import_stands(
    service: Any, blender: Any, chosen_library: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    share = tmp_path / "studio-share"  # the mount point is missing: the share is offline
    chosen_library.library_dir = str(share / "kiln-library")
    with caplog.at_level(logging.WARNING):
        assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    assert kiln_objects(blender)
    assert not share.exists()
    assert "its folder is not there. If it is on a network drive, connect the drive" in caplog.text


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder on a read-only mount (root ignores permission bits, so a mount it must be)."""
    source, view = tmp_path / "source", tmp_path / "read-only"
    source.mkdir()
    view.mkdir()
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("a read-only mount needs root")
    done = subprocess.run(["mount", "--bind", str(source), str(view)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.decode(errors='replace').strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True, capture_output=True)
        yield view
    finally:
        subprocess.run(["umount", str(view)], capture_output=True, check=False)


def test_a_read_only_library_folder_never_fails_the_import(
    service: Any,
    blender: Any,
    chosen_library: Any,
    read_only_folder: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    chosen_library.library_dir = str(read_only_folder)
    with caplog.at_level(logging.WARNING):
        assert blender.ops.kiln.generate_from_text(prompt="a blue table") == {"FINISHED"}
    assert kiln_objects(blender)
    assert list(read_only_folder.iterdir()) == []
    assert "the disk or its folder is read-only" in caplog.text
