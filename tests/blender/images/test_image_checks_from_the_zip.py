"""Kiln installed from its built zip (as an artist installs it) checks images on this Blender with
the Pillow its zip brings, and the Blender venvs have no Pillow of their own."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import bpy
import pytest
from checkout import BLENDER_SCRIPTS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build


def test_this_blender_venv_has_no_pillow_but_through_kilns_zip() -> None:
    """What `make test` runs Kiln in holds what an artist's Blender holds: the Pillow here is the
    wheel Kiln's zip carries (unpacked by the dev tools, or by Blender on enabling Kiln)."""
    own = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    assert [
        d.metadata["Name"]
        for d in importlib.metadata.distributions(path=sorted(own))
        if d.metadata["Name"].lower() == "pillow"
    ] == []
    import PIL

    kilns = (ROOT / ".wheels-site", Path(bpy.utils.user_resource("EXTENSIONS", path=".local")))
    assert any(Path(PIL.__file__).is_relative_to(folder) for folder in kilns), PIL.__file__


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build.build(tmp_path_factory.mktemp("dist"))


def system_pillow(folder: Path) -> list[str]:
    """A Pillow of the system's own (a distribution's python3-pil), first on the path: here the
    same release, unpacked from its wheel apart from Blender's extension folder."""
    from sandbox.pillow_wheel import wheel_for_this_python

    wheel = wheel_for_this_python()
    assert wheel is not None
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    return ["--system", str(folder)]


@pytest.mark.slow
@pytest.mark.parametrize("system", [False, True], ids=["blender.org", "distribution-with-python3-pil"])
def test_installed_from_the_zip_the_image_check_works(built: Path, tmp_path: Path, system: bool) -> None:
    """Kiln's own wheel where the Python has no Pillow; the system's where it has one (Blender
    appends its wheel folder to the path, so the system's comes first and is used whole)."""
    extra = system_pillow(tmp_path / "dist-packages") if system else []
    result = subprocess.run(
        [sys.executable, str(BLENDER_SCRIPTS / "image_check_from_zip.py"), "--", str(built), *extra],
        env={**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "KILN-IMAGES-OK" in result.stdout
