"""Kiln is a real extension: Blender's own tool builds and validates it, and it installs cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build  # noqa: E402


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build.build(tmp_path_factory.mktemp("dist"))


def test_zip_is_named_after_the_manifest_and_holds_only_the_addon(built_zip: Path) -> None:
    assert built_zip.name == "kiln-0.1.0.zip"
    with zipfile.ZipFile(built_zip) as archive:
        names = archive.namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert any(name.startswith("api/") for name in names)
    assert build.zip_problems(built_zip) == []


def test_zip_check_rejects_dev_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        for name in (
            "__init__.py",
            "tests/test_x.py",
            "sandbox/server.py",
            "docs/artists.md",
            "Makefile",
            ".ci/run",
            "api/__pycache__/x.pyc",
        ):
            archive.writestr(name, "")
    assert len(build.zip_problems(bad)) == 6


@pytest.mark.slow
def test_zip_installs_registers_and_unregisters_without_leftovers(built_zip: Path, tmp_path: Path) -> None:
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")}
    script = ROOT / "tests" / "blender_scripts" / "install_zip.py"
    result = subprocess.run(
        [sys.executable, str(script), "--", str(built_zip)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "KILN-OK" in result.stdout


def test_addon_enabled_from_working_tree(blender: Any, kiln: Any) -> None:
    assert "bl_ext.kiln_dev.kiln" in blender.context.preferences.addons
    for name in (
        "KILN_OT_generate_from_text",
        "KILN_OT_generate_from_image",
        "KILN_OT_wait_jobs",
        "KILN_PT_jobs",
    ):
        assert hasattr(blender.types, name), name
