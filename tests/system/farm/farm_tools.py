"""Helpers for the farm tests: the OpenJD runner's own venv, the Blender stand-in, running the template."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from checkout import ROOT

TEMPLATE = ROOT / "farm" / "kiln-batch.openjd.yaml"
FARM_SCRIPT = ROOT / "farm" / "kiln_farm.py"
FARM_VENV = ROOT / ".venv-farm"
REQUIREMENTS = ROOT / "requirements" / "farm.txt"
STAND_IN = Path(__file__).resolve().parent / "blender_stand_in.py"


def venv_bin(venv: Path, name: str) -> Path:
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    return scripts / (f"{name}.exe" if os.name == "nt" else name)


def make_farm_venv() -> tuple[Path | None, str]:
    """``openjd`` from ``.venv-farm`` (made from this Python and requirements/farm.txt if missing).

    Returns (None, why) only when pip cannot install it (no registry reachable). `make test` runs the
    system tests of both Blenders at once, so the making is done under a lock beside the venv.
    """
    FARM_VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(FARM_VENV.with_name(".venv-farm.lock"), "w") as lock:
        if os.name == "posix":
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        return _make_farm_venv()


def _make_farm_venv() -> tuple[Path | None, str]:
    openjd = venv_bin(FARM_VENV, "openjd")
    pinned = REQUIREMENTS.read_text(encoding="utf-8")
    stamp = FARM_VENV / ".requirements"
    if openjd.exists() and stamp.is_file() and stamp.read_text(encoding="utf-8") == pinned:
        return openjd, ""
    if not venv_bin(FARM_VENV, "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(FARM_VENV)], check=True)
    pip = [
        str(venv_bin(FARM_VENV, "python")),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    done = subprocess.run([*pip, "-r", str(REQUIREMENTS)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"pip could not install requirements/farm.txt into .venv-farm: {last}"
    stamp.write_text(pinned, encoding="utf-8")
    return openjd, ""


def write_blender_stand_in(folder: Path) -> Path:
    """An executable named like a program, for BlenderExecutable: this Python running the stand-in."""
    if os.name == "nt":
        path = folder / "blender.cmd"
        path.write_text(f'@"{sys.executable}" "{STAND_IN}" %*\r\n', encoding="utf-8")
    else:
        path = folder / "blender"
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STAND_IN}" "$@"\n', encoding="utf-8")
        path.chmod(0o755)
    return path


def service_env(base_url: str, key: str, **extra: str) -> dict[str, str]:
    """The worker's environment: the key and URL come from here, never from the template."""
    env = {**os.environ, "KILN_API_KEY": key, "KILN_BASE_URL": base_url, "PYTHONUNBUFFERED": "1"}
    env.pop("BLENDER_USER_RESOURCES", None)
    env.update(extra)
    return env


def openjd_run(
    openjd: Path, params: dict[str, Any], env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    args = [str(openjd), "run", str(TEMPLATE)]
    for name, value in params.items():
        args += ["-p", f"{name}={value}"]
    return subprocess.run([*args, *extra], env=env, capture_output=True, text=True, timeout=600, check=False)


def assets(output: Path) -> dict[str, bytes]:
    folder = output / "assets"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


def summary_rows(output: Path) -> list[dict[str, Any]]:
    return json.loads((output / "summary.json").read_text(encoding="utf-8"))["assets"]
