"""`make build`: one extension zip per platform, built and validated by Blender's own extension tool.

Each platform's zip holds the add-on and that platform's Pillow wheels (``tools/fetch_wheels.py`` fetches
them; ``build --split-platforms`` sorts them). Then a second look at every zip's file list, so
nothing but the add-on and its wheels ships.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bpy_paths import extension_tool, valid_tags
from fetch_wheels import fetch

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
    "service_choices.py",
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
    "wheels",
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
            elif parts[0] == "wheels" and not name.endswith(".whl"):
                problems.append(f"{name}: not a wheel")
            elif name.endswith((".pyc", ".zip", ".blend1")):
                problems.append(f"{name}: build or backup artefact")
    return problems


def this_platform() -> str:
    """Blender's name for the platform this machine runs (as its extension tool says it)."""
    system = {"darwin": "macos"}.get(platform.system().lower(), platform.system().lower())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(platform.machine().lower())
    return f"{system}-{machine or platform.machine().lower()}"


def build_platforms(output_dir: Path, source_dir: Path = ROOT) -> dict[str, Path]:
    """Build and validate ``kiln-<version>-<platform>.zip`` of ``source_dir`` for every platform in
    its manifest, in ``output_dir``; returns platform -> zip."""
    manifest = tomllib.loads((source_dir / "blender_manifest.toml").read_text(encoding="utf-8"))
    fetch(source_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    zips = {
        name: output_dir / f"{manifest['id']}-{manifest['version']}-{name.replace('-', '_')}.zip"
        for name in manifest["platforms"]
    }
    for path in zips.values():
        path.unlink(missing_ok=True)
    tool, tags = str(extension_tool()), f"--valid-tags={valid_tags()}"
    subprocess.run(
        [
            *(sys.executable, tool, "build", "--split-platforms", "--source-dir", str(source_dir)),
            *("--output-dir", str(output_dir), tags),
        ],
        check=True,
    )
    for name, path in zips.items():
        subprocess.run([sys.executable, tool, "validate", tags, str(path)], check=True)
        problems = zip_problems(path) + wheel_problems(path, name)
        if problems:
            raise SystemExit(f"{path.name} holds more than the add-on:\n  " + "\n  ".join(problems))
    return zips


#: How a wheel's platform tag starts and ends for each of Blender's platform names.
WHEEL_TAG_STARTS = {"windows": "win_", "macos": "macosx_", "linux": "manylinux"}
WHEEL_TAG_ENDS = {"x64": ("amd64", "x86_64"), "arm64": ("arm64", "aarch64")}


def wheel_problems(path: Path, name: str) -> list[str]:
    """Wheels in platform ``name``'s zip that are for another platform, or none at all."""
    system, machine = name.split("-")
    with zipfile.ZipFile(path) as archive:
        wheels = [n for n in archive.namelist() if n.startswith("wheels/")]
    foreign = [
        f"{n}: not for {name}"
        for n in wheels
        if not n.removesuffix(".whl").rsplit("-", 1)[-1].startswith(WHEEL_TAG_STARTS[system])
        or not n.removesuffix(".whl").endswith(WHEEL_TAG_ENDS[machine])
    ]
    return foreign or ([] if wheels else [f"no wheels for {name}"])


def build(output_dir: Path, source_dir: Path = ROOT) -> Path:
    """Every platform's zip of ``source_dir`` in ``output_dir``; returns this machine's (what a test
    installs in the bpy module here)."""
    return build_platforms(output_dir, source_dir)[this_platform()]


if __name__ == "__main__":
    built = build_platforms(ROOT / "dist")
    for name, path in built.items():
        size = path.stat().st_size / 1e6
        print(f"Built and validated {path.relative_to(ROOT)} ({size:.1f} MB, add-on and {name} wheels)")
