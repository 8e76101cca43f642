"""Where Blender's own tools live inside the installed bpy wheel (dev-only helper)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def bpy_scripts_dir() -> Path:
    """``…/site-packages/bpy/<major.minor>/scripts`` of the bpy module this interpreter has."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("The bpy module is not installed in this environment (run `make venv`).")
    package = Path(next(iter(spec.submodule_search_locations)))
    candidates = sorted(p for p in package.iterdir() if (p / "scripts").is_dir())
    if not candidates:
        raise SystemExit(f"No Blender scripts folder inside {package}")
    return candidates[-1] / "scripts"


def extension_tool() -> Path:
    return bpy_scripts_dir() / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"


def valid_tags() -> Path:
    return bpy_scripts_dir() / "modules" / "_bpy_internal" / "extensions" / "tags.py"
