"""The plain-Python group: a run of ``tests/python`` alone refuses every Blender module.

These tests need no Blender, so they run once (on ``.venv``), not once per Blender. Any import of
bpy (or bmesh, mathutils, …) during such a run fails the test that made it, so a test that starts
needing Blender has to move to ``blender/`` or ``system/``. In a run that also collects those
groups (``pytest tests``) Blender is loaded anyway and nothing is refused.
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent

BLENDER_MODULES = frozenset(
    {"bpy", "_bpy", "bmesh", "mathutils", "bpy_extras", "bpy_types", "gpu", "addon_utils"}
)


class RefuseBlender:
    """A meta path finder that turns any import of a Blender module into an ImportError."""

    def find_spec(
        self, name: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name.split(".")[0] in BLENDER_MODULES:
            raise ImportError(
                f"{name} imported in the plain-Python tests (tests/python): move the test to tests/blender"
            )
        return None


REFUSE_BLENDER = RefuseBlender()


def python_suite_only(config: pytest.Config) -> bool:
    """Whether every path the run was given lies in tests/python."""
    return all(Path(arg.split("::")[0]).resolve().is_relative_to(HERE) for arg in config.args)


def pytest_configure(config: pytest.Config) -> None:
    if python_suite_only(config) and REFUSE_BLENDER not in sys.meta_path:
        sys.meta_path.insert(0, REFUSE_BLENDER)


def pytest_unconfigure(config: pytest.Config) -> None:
    if REFUSE_BLENDER in sys.meta_path:
        sys.meta_path.remove(REFUSE_BLENDER)
