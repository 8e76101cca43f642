"""Kiln is a real extension: Blender's own tool builds and validates it, and it installs cleanly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build

FIRST_ENABLE = BLENDER_SCRIPTS / "first_enable.py"


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build.build(tmp_path_factory.mktemp("dist"))


def test_zip_is_named_after_the_manifest_and_holds_only_the_addon(built_zip: Path) -> None:
    assert built_zip.name == f"kiln-0.1.0-{build.this_platform().replace('-', '_')}.zip"
    with zipfile.ZipFile(built_zip) as archive:
        names = archive.namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert any(name.startswith("api/") for name in names)
    assert build.zip_problems(built_zip) == []


def test_zip_check_rejects_dev_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        for name in (
            "__init__.py",
            "tests/test_x.py",
            "sandbox/server.py",
            "docs/artists.md",
            "Makefile",
            ".ci/run",
            "api/__pycache__/x.pyc",
        ):
            archive.writestr(name, "")
    assert len(build.zip_problems(bad)) == 6


@pytest.mark.slow
def test_zip_installs_registers_and_unregisters_without_leftovers(built_zip: Path, tmp_path: Path) -> None:
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")}
    script = BLENDER_SCRIPTS / "install_zip.py"
    result = subprocess.run(
        [sys.executable, str(script), "--", str(built_zip)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "KILN-OK" in result.stdout


def test_addon_enabled_from_working_tree(blender: Any, kiln: Any) -> None:
    assert "bl_ext.kiln_dev.kiln" in blender.context.preferences.addons
    for name in (
        "KILN_OT_generate_from_text",
        "KILN_OT_generate_from_image",
        "KILN_OT_wait_jobs",
        "KILN_PT_jobs",
    ):
        assert hasattr(blender.types, name), name


@pytest.fixture(scope="module")
def installed(built_zip: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user folder with Kiln installed, not yet enabled (copied for each try: installing takes long)."""
    user = tmp_path_factory.mktemp("installed") / "user"
    _first_enable(user, "install", built_zip, "KILN-INSTALLED")
    return user


def _first_enable(user: Path, mode: str, argument: Path, said: str) -> str:
    """``first_enable.py`` in a fresh Blender on the user folder ``user``; its output, which says ``said``."""
    result = subprocess.run(
        [sys.executable, str(FIRST_ENABLE), "--", mode, str(argument)],
        env={**os.environ, "BLENDER_USER_RESOURCES": str(user)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert said in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


def test_enabling_kiln_reads_no_translation_file(installed: Path, tmp_path: Path) -> None:
    """Blender's start waits for every add-on's register: the seven languages' files are read on
    the first timer tick instead (docs/performance.md, row 6), even where a fresh Kiln asks which
    service its menu offers."""
    user = tmp_path / "user"
    shutil.copytree(installed, user, symlinks=True)
    go = tmp_path / "go"
    go.touch()
    assert "KILN-TRANSLATIONS-READ False" in _first_enable(user, "enable", go, "KILN-ENABLED")


#: What Kiln loads with its first use (a draw, a click, the first timer tick), never to register:
#: Blender's start waits for every add-on's register (docs/performance.md, row 6).
FIRST_USE = (
    "api.jobs.model",  # the job model (and, under it, the helper Blender's room)
    "api.isolation",
    "api.features.library_index",
    "api.features.credits",
    "api.features.secrets",
    "api.words.translations",
    "session.state",
    "session.blockout",
    "panels.blocker",
    "ui_text",
)


def test_enabling_kiln_loads_only_what_registering_needs(installed: Path, tmp_path: Path) -> None:
    """Registering loads the classes, their properties and what the rooms hook into Blender; the job
    model, the library's index, the credits, the key stores and the translations wait for their first use."""
    user = tmp_path / "user"
    shutil.copytree(installed, user, symlinks=True)
    go = tmp_path / "go"
    go.touch()
    said = _first_enable(user, "enable", go, "KILN-ENABLED")
    loaded = next(line.split()[1:] for line in said.splitlines() if line.startswith("KILN-LOADED"))
    assert "preferences" in loaded and "operators.generate" in loaded  # the check reads real names
    assert [name for name in FIRST_USE if name in loaded] == []


@pytest.mark.slow
def test_blenders_enabling_kiln_at_the_same_moment_all_enable(installed: Path, tmp_path: Path) -> None:
    """Blender unpacks Kiln's Pillow wheel on the first enable: Blenders doing it at the same moment
    (a farm's workers sharing one user folder) all enable (truststore is vendored: nothing else).
    Three at once, three times: each try holds every pair's race too."""
    blenders = 3
    failures = []
    for attempt in range(3):
        user = tmp_path / f"user{attempt}"
        shutil.copytree(installed, user, symlinks=True)
        go = tmp_path / f"go{attempt}"
        env = {**os.environ, "BLENDER_USER_RESOURCES": str(user)}
        command = [sys.executable, str(FIRST_ENABLE), "--", "enable", str(go)]
        runs = [
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(blenders)
        ]
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob(f"{go.name}.ready-*"))) < blenders and time.monotonic() < deadline:
            if any(run.poll() is not None for run in runs):
                break
            time.sleep(0.01)
        go.touch()
        for run in runs:
            output = run.communicate(timeout=120)[0]
            if run.returncode != 0 or "KILN-ENABLED" not in output:
                failures.append(f"try {attempt + 1}: {output[-1500:]}")
    assert failures == []
