"""`make typecheck`: mypy over the add-on against the fake-bpy-module stubs.

The repository root is the add-on package, whose folder name varies between clones, so
mypy looks at it through a ``kiln`` symlink: module names are then what Blender sees. Pillow's types
come from the wheel Kiln's zip carries (the venv has none): its folder is on mypy's path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from sandbox.pillow_wheel import UNPACKED  # noqa: E402  (importing sandbox puts the wheel on the path)

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
        wheels = [entry for entry in sys.path if Path(entry).is_relative_to(UNPACKED)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(wheels)} if wheels else None
        return subprocess.run(command, cwd=tmp, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
