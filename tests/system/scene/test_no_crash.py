"""No Kiln operator, export, import or fix-up takes Blender down, whatever the scene holds.

Each check runs in a child Blender (this venv's bpy module, where no helper can run, so exports and
imports happen in that process) with several finished jobs in the scene: a crash ends the child,
and the test reads its exit code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS, ROOT

ENGINES = {"GLB": "{}.glb", "UNREAL": "SM_{}.fbx", "UNITY": "{}.fbx", "GODOT": "{}.glb"}


def run_child(mode: str, sandbox: Any, key: str, tmp_path: Path) -> list[str]:
    env = {
        **os.environ,
        "BLENDER_USER_RESOURCES": str(tmp_path / "user"),
        "KILN_BASE_URL": sandbox.base_url,
        "KILN_API_KEY": key,
    }
    done = subprocess.run(
        [
            sys.executable,
            str(BLENDER_SCRIPTS / "several_results.py"),
            "--",
            str(tmp_path / "repo"),
            str(tmp_path),
            mode,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"the child Blender ended with {done.returncode}:\n{done.stderr[-4000:]}"
    assert "DONE" in done.stdout.splitlines(), done.stdout[-2000:]
    return done.stdout.splitlines()


def said(lines: list[str], mark: str) -> list[Any]:
    return [json.loads(line[len(mark) + 1 :]) for line in lines if line.startswith(mark + " ")]


@pytest.mark.slow
def test_every_finished_job_exports_for_every_engine_beside_other_results(
    sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    exported = said(run_child("exports", sandbox, sandbox_key, tmp_path), "EXPORTED")
    assert len(exported) == 3 * len(ENGINES)
    for job_id, engine, outcome, files in exported:
        assert outcome == ["FINISHED"], (job_id, engine)
        assert len(files) == 1 and re.fullmatch(ENGINES[engine].format(r"Box\d"), files[0]), (engine, files)


@pytest.mark.slow
def test_every_operator_in_every_scene_state_leaves_blender_running(
    sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    lines = run_child("operators", sandbox, sandbox_key, tmp_path)
    (registered,) = said(lines, "OPERATORS")
    declared = sorted(
        re.findall(
            r'bl_idname = "kiln\.(\w+)"', "".join(p.read_text() for p in (ROOT / "operators").glob("*.py"))
        )
    )
    assert registered == declared
    called = said(lines, "CALLED")
    for state in ("nothing selected", "everything selected", "a result active"):
        assert {name for s, name, _outcome in called if s == state} == set(declared), state
    exported = [outcome for _s, name, outcome in called if name == "export_job"]
    assert exported == [["FINISHED"]] * 3 * len(ENGINES), exported
