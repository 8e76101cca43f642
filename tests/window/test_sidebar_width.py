"""Every sentence of the Kiln tab fits the real Sidebar of Debian's Blender program, at UI scale
1 and 2: measured with Blender's own text metrics (blf at the window's scale) against the
region's width, by tests/support/blender_scripts/measure_sidebar.py running inside the program."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import SHOTS
from program import REPO, Display, Program


@pytest.mark.parametrize("ui_scale", [1.0, 2.0])
def test_every_kiln_text_fits_the_sidebar(
    program: Program, user: Path, display: Display, ui_scale: float
) -> None:
    work = program.workdir("measure")
    # The script, and the measuring it shares with tests/blender/ui.
    support = work / "support"
    shutil.copytree(REPO / "tests" / "support", support, ignore=shutil.ignore_patterns("__pycache__"))
    report_path = work / "report.json"
    argv = [
        "blender", "--window-geometry", "0", "0", str(display.width), str(display.height),
        "--python-exit-code", "1", "--python", program.inside(support / "blender_scripts/measure_sidebar.py"),
        "--", "--ui-scale", str(ui_scale), "--out", program.inside(report_path),
    ]  # fmt: skip
    env = {"DISPLAY": display.name, "BLENDER_USER_RESOURCES": program.inside(user)}
    done = subprocess.run(
        program.command(argv, env), capture_output=True, text=True, timeout=180, check=False
    )
    assert report_path.exists(), (
        f"no report (exit {done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(report_path, SHOTS / f"sidebar-width-scale-{ui_scale:g}.json")
    assert report["overflows"] == [], json.dumps(report["overflows"][:10], indent=1)
    assert done.returncode == 0, done.stdout[-4000:]
    assert report["ui_scale"] == pytest.approx(ui_scale, rel=0.1)
