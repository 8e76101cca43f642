"""api/ must never import Blender, directly or through another module: it runs on worker threads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from checkout import ROOT

BLOCKER = """
import importlib, pkgutil, sys
BLENDER = {"bpy", "bmesh", "mathutils", "bpy_extras", "bpy_types", "gpu", "addon_utils", "_bpy"}
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLENDER:
            raise ImportError(f"{name} imported while loading {loading}")
sys.meta_path.insert(0, Refuse())
sys.path.insert(0, sys.argv[1])
package = importlib.import_module(sys.argv[2])
loading = sys.argv[2]
for info in pkgutil.walk_packages(package.__path__, sys.argv[2] + "."):
    if ".vendor." in info.name and info.name.rsplit(".", 1)[1].startswith("_"):
        continue  # a vendored package imports its own private modules, those for this system only
    loading = info.name
    importlib.import_module(info.name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLENDER)
if leaked:
    raise SystemExit(f"Blender modules loaded: {leaked}")
"""


def import_without_blender(parent: Path, package: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER, str(parent), package], capture_output=True, text=True, check=False
    )


def test_every_api_module_imports_without_blender() -> None:
    result = import_without_blender(ROOT, "api")
    assert result.returncode == 0, result.stderr


def test_the_check_catches_an_indirect_bpy_import(tmp_path: Path) -> None:
    package = tmp_path / "fakeapi"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("import bpy\n")
    (package / "client.py").write_text("from . import helper\n")
    result = import_without_blender(tmp_path, "fakeapi")
    assert result.returncode != 0
    assert "bpy imported while loading fakeapi" in result.stderr
