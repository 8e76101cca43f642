"""examples/: the pipeline script and `make demo`'s script, run as a newcomer or a build machine would."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from batch_scripts import kiln_task_ids, run_child
from checkout import ROOT
from concepts import CONCEPTS

pytestmark = pytest.mark.slow

PIPELINE = str(ROOT / "examples" / "generate_from_prompts.py")


def test_pipeline_script_generates_a_csv_and_saves_the_blend(
    blender: Any, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    shutil.copy(CONCEPTS / "robot.png", tmp_path / "robot.png")
    (tmp_path / "props.csv").write_text(
        "prompt,image,name\na red chair,,Chair\n,robot.png,Robot\n,missing.png,Lost\n"
    )
    result = run_child(
        [PIPELINE, "--", "--prompts", "props.csv", "--out", "props.blend", "--summary", "props.json"],
        cwd=tmp_path,
        sandbox=sandbox,
        key=sandbox_key,
    )
    assert result.returncode == 0, result.stderr
    assert "Line 4 was skipped: The image file" in result.stdout + result.stderr
    assert "Saved props.blend with 2 Kiln objects" in result.stdout
    summary = json.loads((tmp_path / "props.json").read_text())
    assert [row["name"] for row in summary["jobs"]] == ["Chair", "Robot"]
    assert sorted(kiln_task_ids(blender, tmp_path / "props.blend")) == sorted(
        row["task_id"] for row in summary["jobs"]
    )


def test_pipeline_script_exits_1_when_nothing_succeeds(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path
) -> None:
    (tmp_path / "props.txt").write_text("a red chair\n")
    result = run_child(
        [PIPELINE, "--", "--prompts", "props.txt", "--out", "props.blend"],
        cwd=tmp_path,
        sandbox=sandbox_factory(faults="fail=1"),
        key=sandbox_key,
    )
    assert result.returncode == 1
    assert "No job of props.txt succeeded (0 of 1 are in the scene)" in result.stderr
    assert not (tmp_path / "props.blend").exists()


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_demo_writes_the_blend_the_picture_and_the_summary(blender: Any, tmp_path: Path) -> None:
    out = tmp_path / "demo-out"
    result = run_child([str(ROOT / "examples" / "demo.py"), "--out", str(out), "--speed", "20"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    # 5 on the custom service, a prompt on each other cloud service, the image on fal.ai and each studio
    # server
    assert summary["imported"] == 11 and summary["failed"] == 0
    for row in summary["jobs"]:
        assert row["task_id"] in result.stdout and f"{row['triangles']:,} triangles" in result.stdout
    assert "11 of 11 jobs imported" in result.stdout
    assert all(f"{name} stand-in at" in result.stdout for name in ("Tripo", "Meshy", "Rodin"))
    assert png_size(out / "kiln-demo.png") == (960, 540)
    task_ids = kiln_task_ids(blender, out / "kiln-demo.blend")
    assert sorted(set(task_ids)) == sorted(row["task_id"] for row in summary["jobs"])
    assert blender.data.scenes[0].camera is not None
