"""Kiln installed from its built zip (as an artist installs it) checks images on this Blender with
the Pillow its zip brings, and the Blender venvs have no Pillow of their own."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import BLENDER_SCRIPTS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build


def test_this_blender_venv_has_no_pillow_but_through_kilns_zip() -> None:
    """What `make test` runs Kiln in holds what an artist's Blender holds (Pillow comes with Kiln)."""
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.distribution("pillow")


@pytest.mark.slow
def test_installed_from_the_zip_the_image_check_works(tmp_path: Path) -> None:
    built = build.build(tmp_path / "dist")
    result = subprocess.run(
        [sys.executable, str(BLENDER_SCRIPTS / "image_check_from_zip.py"), "--", str(built)],
        env={**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "KILN-IMAGES-OK" in result.stdout
