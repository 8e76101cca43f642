"""`make build`: the extension zip, built and validated by Blender's own extension tool.

Then a second look at the zip's file list, so nothing but the add-on ships.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bpy_paths import extension_tool, valid_tags

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_TOP_LEVEL = {
    "blender_manifest.toml",
    "__init__.py",
    "dependencies.py",
    "drawing.py",
    "main_thread.py",
    "language.py",
    "options.py",
    "preferences.py",
    "registration.py",
    "ui_text.py",
    "README.md",
    "LICENSE",
    "api",
    "finishing",
    "helper_blender",
    "session",
    "agents",
    "operators",
    "panels",
}
FORBIDDEN_PARTS = {
    "docs",
    "tests",
    "sandbox",
    "bench",
    "examples",
    "fixtures",
    "tools",
    "farm",
    ".venv-farm",
    "requirements",
    "__pycache__",
    "Makefile",
}


def zip_problems(path: Path) -> list[str]:
    """Names in the zip that are not part of the add-on."""
    problems = []
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            parts = Path(name).parts
            if parts[0] not in SHIPPED_TOP_LEVEL:
                problems.append(f"{name}: not part of the add-on")
            elif any(part.startswith(".") or part in FORBIDDEN_PARTS for part in parts):
                problems.append(f"{name}: dev-only or hidden file")
            elif name.endswith((".pyc", ".zip", ".blend1")):
                problems.append(f"{name}: build or backup artefact")
    return problems


def build(output_dir: Path, source_dir: Path = ROOT) -> Path:
    """Build and validate ``kiln-<version>.zip`` of ``source_dir`` in ``output_dir``; returns its path."""
    manifest = tomllib.loads((source_dir / "blender_manifest.toml").read_text(encoding="utf-8"))
    output = output_dir / f"{manifest['id']}-{manifest['version']}.zip"
    output_dir.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)
    tool, tags = str(extension_tool()), f"--valid-tags={valid_tags()}"
    subprocess.run(
        [
            sys.executable,
            tool,
            "build",
            "--source-dir",
            str(source_dir),
            "--output-filepath",
            str(output),
            tags,
        ],
        check=True,
    )
    subprocess.run([sys.executable, tool, "validate", tags, str(output)], check=True)
    problems = zip_problems(output)
    if problems:
        raise SystemExit("The zip holds more than the add-on:\n  " + "\n  ".join(problems))
    return output


if __name__ == "__main__":
    path = build(ROOT / "dist")
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    print(f"Built and validated {path.relative_to(ROOT)} ({len(names)} files, add-on only)")
