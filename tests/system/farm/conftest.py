"""Fixtures for the farm tests (helpers live in farm_tools, importable from every test here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from farm_tools import ROOT, make_farm_venv, write_blender_stand_in


@pytest.fixture(scope="session")
def openjd() -> Path:
    """The OpenJD reference runner (`openjd-cli`), in .venv-farm, made here when missing."""
    path, why = make_farm_venv()
    if path is None:
        pytest.skip(why)
    return path


@pytest.fixture(scope="session")
def kiln_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension zip, built by Blender's own tool exactly as `make build` does."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build

    return build.build(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def blender_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_blender_stand_in(tmp_path_factory.mktemp("bin"))
