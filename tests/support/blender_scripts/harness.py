"""Enable Kiln from the working tree inside a Blender process (used by conftest and child scripts)."""

from __future__ import annotations

from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parents[3]
REPO_MODULE = "kiln_dev"
ADDON_MODULE = f"bl_ext.{REPO_MODULE}.kiln"


def enable_kiln(repo_dir: Path) -> str:
    """Mount ``repo_dir`` (holding a ``kiln`` link to the working tree) and enable the add-on."""
    link = repo_dir / "kiln"
    if not link.exists():
        repo_dir.mkdir(parents=True, exist_ok=True)
        link.symlink_to(ROOT, target_is_directory=True)
    bpy.context.preferences.extensions.repos.new(
        name="Kiln (working tree)", module=REPO_MODULE, custom_directory=str(repo_dir), source="USER"
    )
    bpy.ops.preferences.addon_enable(module=ADDON_MODULE)
    bpy.context.preferences.system.use_online_access = True
    return ADDON_MODULE
