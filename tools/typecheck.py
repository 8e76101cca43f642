"""`make typecheck`: mypy over the add-on against the fake-bpy-module stubs.

The repository root is the add-on package, whose folder name varies between clones, so
mypy looks at it through a ``kiln`` symlink: module names are then what Blender sees.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADDON_PARTS = (
    "__init__.py",
    "dependencies.py",
    "main_thread.py",
    "language.py",
    "options.py",
    "preferences.py",
    "drawing.py",
    "ui_text.py",
    "api",
    "finishing",
    "helper_blender",
    "session",
    "agents",
    "operators",
    "panels",
)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kiln-typecheck-") as tmp:
        package = Path(tmp) / "kiln"
        package.symlink_to(ROOT, target_is_directory=True)
        targets = [f"kiln/{part}" for part in ADDON_PARTS]
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *targets]
        return subprocess.run(command, cwd=tmp, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
