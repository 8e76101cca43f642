"""Where things are, for every test: the repository root (the add-on package) and the Blender scripts."""

from __future__ import annotations

from pathlib import Path

#: The repository root, which is also the add-on package.
ROOT = Path(__file__).resolve().parents[2]
#: Scripts a child Blender (this venv's bpy module) runs: ``python <script> …``.
BLENDER_SCRIPTS = ROOT / "tests" / "support" / "blender_scripts"
