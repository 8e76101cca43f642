"""Helpers for the studio tests: Kiln versions built from the working tree, Blender's extension command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from checkout import BLENDER_SCRIPTS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build
import repo


def kiln_source(folder: Path, version: str, change: Callable[[Path], None] | None = None) -> Path:
    """A copy of the add-on's shipped files with ``version`` in its manifest (and ``change`` applied)."""
    source = folder / f"kiln-{version}-source"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for name in build.SHIPPED_TOP_LEVEL:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif path.exists():
            shutil.copy2(path, source / name)
    manifest = source / "blender_manifest.toml"
    text = re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', manifest.read_text(encoding="utf-8"))
    manifest.write_text(text, encoding="utf-8")
    if change is not None:
        change(source)
    return source


def publish(repo_dir: Path, source: Path) -> str:
    """``make repo`` of ``source`` into ``repo_dir``; returns the repository's URL (file://)."""
    return repo.publish(repo_dir, source).as_uri()


def extension_command(
    user_dir: Path, *commands: list[str], timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``blender --command extension`` for each of ``commands``, in one Blender using ``user_dir``."""
    argv: list[str] = []
    for command in commands:
        argv += ["--then", *command] if argv else command
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(user_dir)}
    return subprocess.run(
        [sys.executable, str(BLENDER_SCRIPTS / "extension_command.py"), "--", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def installed_version(user_dir: Path, repo_id: str) -> str:
    """The version in the installed extension's own manifest."""
    manifest = user_dir / "extensions" / repo_id / "kiln" / "blender_manifest.toml"
    found = re.search(r'(?m)^version = "(.*)"$', manifest.read_text(encoding="utf-8"))
    return found.group(1) if found else ""
