"""A batch with the game-ready CSV columns: per-line budgets, LODs and exports, and its review files."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from quality_support import fixes
from task_faults import failing

CSV = """prompt,name,triangles,lods,export
a grey rock,Rock,1000,0.5,UNREAL
a box defect:hole,Holey,,,GODOT
a doomed lamp,Doomed,,,
"""


def test_csv_columns_drive_each_line_and_the_review_names_every_line(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    prompts = tmp_path / "props.csv"
    prompts.write_text(CSV)
    summary_path = tmp_path / "review.json"
    with failing(service, "a doomed lamp"):
        result = blender.ops.kiln.generate_batch(
            filepath=str(prompts), summary_path=str(summary_path), collision="HULL", reuse="NEVER"
        )
    assert result == {"FINISHED"}
    rows = {row["name"]: row for row in json.loads(summary_path.read_text())["jobs"]}
    assert abs(rows["Rock"]["triangles"] - 1000) <= 50 and rows["Rock"]["verdict"] == "ready"
    (fix,) = fixes(rows["Rock"]["quality"])
    assert fix.endswith(f" triangles to {rows['Rock']['triangles']:,}."), fix
    assert rows["Holey"]["verdict"] == "problems" and rows["Holey"]["reasons"][0].startswith(
        "The surface is open"
    )
    assert rows["Doomed"]["state"] == "failed"
    assert "The generator could not make this one." in rows["Doomed"]["error_details"], "for support"

    exports = tmp_path / "export"
    assert (exports / "SM_Rock.fbx").is_file(), "the export column, with the batch's hull, beside the CSV"
    assert (exports / "Holey.glb").is_file()
    assert sorted(p.name for p in exports.iterdir()) == ["Holey.glb", "SM_Rock.fbx"], "a blank export: none"
    blender.ops.wm.read_homefile(use_empty=True)
    blender.ops.import_scene.fbx(filepath=str(exports / "SM_Rock.fbx"))
    assert {"SM_Rock", "SM_Rock_LOD1", "UCX_SM_Rock_00"} <= set(blender.data.objects.keys())

    page = (tmp_path / "review.html").read_text()
    for name in ("Rock", "Holey", "Doomed", "could not make a mesh from this prompt", "review.png"):
        assert name in page
    png = (tmp_path / "review.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 3 * 192 and height > 192
