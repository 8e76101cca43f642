"""The plain-Python group runs without Blender: a run of tests/python alone never loads bpy.

``python/conftest.py`` refuses every Blender module for such a run; this test checks that nothing
loaded one before the refusal was in place (the root conftest, a plugin, an earlier test) and that
the refusal holds.
"""

from __future__ import annotations

import importlib
import sys

import pytest

BLENDER_MODULES = ("bpy", "_bpy", "bmesh", "mathutils", "bpy_extras", "gpu")


def test_no_blender_module_is_loaded_and_bpy_is_refused() -> None:
    if not any(type(finder).__name__ == "RefuseBlender" for finder in sys.meta_path):
        pytest.skip("this run collects Blender tests too; `pytest tests/python` alone runs without Blender")
    assert not [name for name in sys.modules if name.split(".")[0] in BLENDER_MODULES]
    with pytest.raises(ImportError, match="tests/python"):
        importlib.import_module("bpy")
