"""The wheels Kiln's zip carries, fetched from PyPI into ``wheels/`` (dev-only; never committed).

``blender_manifest.toml`` names every wheel file (``wheels``) and the platforms Kiln is built for
(``platforms``); ``requirements/wheels.txt`` pins the version and the hash of every file. Blender's
extension tool (``build --split-platforms``) then puts into each platform's zip only that platform's
wheels, and Blender installs the one for its own Python (3.11: Blender 4.2–5.0, 3.13: 5.1–5.2;
Linux zips also 3.12 and 3.14, for distributions' Blenders on their system Python).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINNED = ROOT / "requirements" / "wheels.txt"
#: The Pythons of the Blenders Kiln supports (blender.org builds: 4.2–5.0 on 3.11, 5.1–5.2 on 3.13).
PYTHONS = ("3.11", "3.13")
#: Linux distributions build Blender on their own Python, and Blender installs an extension only on a
#: Python it carries wheels for: the Linux zips carry the Pythons distributions ship too.
LINUX_PYTHONS = ("3.11", "3.12", "3.13", "3.14")
#: Blender's platform names (the manifest's ``platforms``) and the wheel platform pip asks PyPI for.
PIP_PLATFORMS = {
    "windows-x64": "win_amd64",
    "windows-arm64": "win_arm64",
    "macos-arm64": "macosx_11_0_arm64",
    "macos-x64": "macosx_10_13_x86_64",
    "linux-x64": "manylinux_2_28_x86_64",
    "linux-arm64": "manylinux_2_28_aarch64",
}


def manifest_wheels(source_dir: Path = ROOT) -> list[str]:
    """The wheel files the manifest names, relative to the add-on's folder."""
    manifest = tomllib.loads((source_dir / "blender_manifest.toml").read_text(encoding="utf-8"))
    return list(manifest.get("wheels", []))


def pinned_hashes() -> set[str]:
    text = PINNED.read_text(encoding="utf-8")
    return {part.split(":", 1)[1].strip(" \\\n") for part in text.split("--hash=")[1:]}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download(into: Path, platform: str, python: str) -> None:
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
            *("--only-binary=:all:", "--require-hashes", "--platform", platform),
            *("--python-version", python, "--dest", str(into), "-r", str(PINNED)),
        ],
        check=True,
    )


def fetch(source_dir: Path = ROOT) -> list[Path]:
    """Every wheel the manifest of ``source_dir`` names, in its ``wheels/`` folder (downloaded once,
    checked against the pins)."""
    into = source_dir / "wheels"
    wanted = [source_dir / name for name in manifest_wheels(source_dir)]
    hashes = pinned_hashes()
    if not all(path.is_file() and _sha256(path) in hashes for path in wanted):
        into.mkdir(parents=True, exist_ok=True)
        asks = [
            (platform, python)
            for blender_platform, platform in PIP_PLATFORMS.items()
            for python in (LINUX_PYTHONS if blender_platform.startswith("linux") else PYTHONS)
        ]
        # One pip per platform and Python, a few at once: each spends most of its time starting and
        # waiting on the index, and make test waits for all of them before its runs start.
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda ask: _download(into, *ask), asks))
    missing = [path.name for path in wanted if not path.is_file() or _sha256(path) not in hashes]
    if missing:
        raise SystemExit(
            "The manifest names wheels that PyPI did not give (or whose hash differs from "
            f"requirements/wheels.txt): {', '.join(missing)}"
        )
    return wanted


if __name__ == "__main__":
    fetched = fetch()
    print(f"{len(fetched)} wheels in wheels/ (pinned in requirements/wheels.txt)")
