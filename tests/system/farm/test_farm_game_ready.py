"""The farm script with game-ready parameters, run the way a farm task runs it (no OpenJD runner needed:
the template's arguments are the script's, checked by test_openjd's ``openjd check``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from farm_tools import FARM_SCRIPT, service_env

pytestmark = pytest.mark.slow

CSV = "prompt,triangles,lods,export\na grey rock,1000,0.5,UNREAL\na box defect:hole,,,\n"


def run_task(blender_exe: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(blender_exe), "-b", "--factory-startup", "-P", str(FARM_SCRIPT), "--", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_farm_run_with_game_columns_writes_exports_and_the_review(
    kiln_zip: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.csv"
    prompts.write_text(CSV, encoding="utf-8")
    output = tmp_path / "out"
    common = ["--prompts", str(prompts), "--output", str(output), "--kiln-zip", str(kiln_zip)]
    env = service_env(sandbox.base_url, sandbox_key, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    game = ["--fix-normals", "1", "--collision", "HULL", "--lods=", "--engine", "NONE"]
    done = run_task(blender_exe, env, "generate", *common, *game, "--items", "1-2")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summarized = run_task(blender_exe, {**env, "KILN_API_KEY": ""}, "summarize", *common)
    assert summarized.returncode == 0, summarized.stdout[-3000:] + summarized.stderr[-3000:]

    rows = {row["prompt"]: row for row in json.loads((output / "summary.json").read_text())["assets"]}
    rock, box = rows["a grey rock"], rows["a box defect:hole"]
    assert abs(rock["triangles"] - 1000) <= 50 and rock["verdict"] == "ready"
    assert box["verdict"] == "problems" and box["reasons"][0].startswith("The surface is open")
    exports = sorted(p.name for p in (output / "export").iterdir())
    assert exports == ["SM_GreyRock.fbx"], "the CSV's export column; the parameters export nothing else"
    page = (output / "summary.html").read_text()
    assert rock["name"] in page and box["name"] in page
    assert (output / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all((output / "review" / f"{row['name']}.png").is_file() for row in rows.values())
    assert sorted(p.suffix for p in (output / "assets").iterdir()) == [".blend", ".blend", ".glb", ".glb"]
