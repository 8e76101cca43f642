"""The batch operator inside Blender (the bpy module, background mode) against the sandbox."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from task_faults import failing


def kiln_groups(bpy: Any) -> dict[str, list[Any]]:
    """Objects carrying provenance, by the sub-collection of ``Kiln`` they are in."""
    root = bpy.data.collections["Kiln"]
    return {child.name: [o for o in child.objects if "kiln_task_id" in o] for child in root.children}


def world_box(objects: list[Any]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    from mathutils import Vector

    points = [o.matrix_world @ Vector(c) for o in objects if o.type == "MESH" for c in o.bound_box]
    return tuple(min(p[i] for p in points) for i in range(3)), tuple(
        max(p[i] for p in points) for i in range(3)
    )


def overlap(a: tuple[tuple[float, ...], ...], b: tuple[tuple[float, ...], ...]) -> bool:
    return all(a[0][i] < b[1][i] and b[0][i] < a[1][i] for i in range(2))


def test_txt_batch_lands_in_a_grid_of_named_sub_collections(
    service: Any, blender: Any, tmp_path: Path, kiln_module: Any
) -> None:
    prompts = ["a tall pine tree", "a small red mug", "a wooden cabin", "a long sword", "a big table"]
    prompt_file = tmp_path / "props.txt"
    prompt_file.write_text("# five props\n\n" + "\n".join(prompts) + "\n")
    blender.context.scene.cursor.location = (10.0, 5.0, 1.0)
    summary_path = tmp_path / "summary.json"
    result = blender.ops.kiln.generate_batch(filepath=str(prompt_file), summary_path=str(summary_path))
    assert result == {"FINISHED"}

    groups = kiln_groups(blender)
    assert sorted(groups) == sorted(prompts)
    assert all(groups.values())
    for name, objects in groups.items():
        assert {o["kiln_prompt"] for o in objects} == {name}
    boxes = {name: world_box(objects) for name, objects in groups.items()}
    for (a, box_a), (b, box_b) in itertools.combinations(boxes.items(), 2):
        assert not overlap(box_a, box_b), f"{a} overlaps {b}"
    # The grid starts at the 3D cursor: first box at its corner, three columns, two rows.
    first = boxes[prompts[0]]
    assert first[0][0] == pytest.approx(10.0) and first[1][1] == pytest.approx(5.0)
    rows = {round(box[1][1], 3) for box in boxes.values()}
    assert len(rows) == 2

    summary = json.loads(summary_path.read_text())
    engine = kiln_module("session.runtime").engine()
    jobs = {job.request.prompt: job for job in engine.jobs()}
    assert summary["imported"] == 5 and summary["failed"] == 0
    for row in summary["jobs"]:
        job = jobs[row["name"]]
        assert row["task_id"] == job.task_id and row["state"] == "imported"
        assert row["triangles"] == job.triangles > 0 and row["seconds"] > 0
        assert job.group == row["name"]


def test_one_failed_task_does_not_stop_the_others(service: Any, blender: Any, tmp_path: Path) -> None:
    prompt_file = tmp_path / "props.txt"
    prompt_file.write_text("a red chair\na doomed lamp\na blue mug\n")
    summary_path = tmp_path / "summary.json"
    with failing(service, "a doomed lamp"):
        result = blender.ops.kiln.generate_batch(filepath=str(prompt_file), summary_path=str(summary_path))
    assert result == {"FINISHED"}
    assert sorted(name for name, objects in kiln_groups(blender).items() if objects) == [
        "a blue mug",
        "a red chair",
    ]
    summary = json.loads(summary_path.read_text())
    assert (summary["imported"], summary["failed"]) == (2, 1)
    doomed = next(row for row in summary["jobs"] if row["name"] == "a doomed lamp")
    assert doomed["state"] == "failed" and doomed["task_id"].startswith("task_")
    assert "could not make a mesh from this prompt" in doomed["error"]
    assert "could not make this one" in doomed["error_details"], "the service's own words, for support"


def test_csv_batch_skips_bad_rows_and_sends_text_and_image(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    shutil.copy(CONCEPTS / "chair.png", tmp_path / "chair.png")
    table = tmp_path / "props.csv"
    table.write_text(
        "name,prompt,image,resolution\n"
        "Hero mug,a red mug,,1024\n"
        "Chair scan,,chair.png,1024\n"
        "Nothing,,,\n"
        "Lost,,missing.png,1024\n"
        f"Unreachable,,{service.base_url}/files/nothing.png,1024\n"
    )
    assert blender.ops.kiln.generate_batch(filepath=str(table)) == {"FINISHED"}
    groups = {name: objects for name, objects in kiln_groups(blender).items() if objects}
    assert sorted(groups) == ["Chair scan", "Hero mug"]
    assert groups["Chair scan"][0]["kiln_image"] == str(tmp_path / "chair.png")
    assert groups["Hero mug"][0]["kiln_resolution"] == 1024


def test_a_batch_where_nothing_succeeds_is_cancelled_with_a_sentence(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    service.set_faults("fail=1")
    prompt_file = tmp_path / "props.txt"
    prompt_file.write_text("a red chair\na blue mug\n")
    with pytest.raises(RuntimeError, match=r"No job of props.txt succeeded \(0 of 2 are in the scene\)"):
        blender.ops.kiln.generate_batch(filepath=str(prompt_file))


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "does not exist"), ("# only a comment\n\n", "props.txt has no usable line")],
)
def test_an_unusable_file_sends_nothing(
    service: Any, blender: Any, tmp_path: Path, content: str | None, words: str
) -> None:
    prompt_file = tmp_path / "props.txt"
    if content is not None:
        prompt_file.write_text(content)
    with pytest.raises(RuntimeError, match=words):
        blender.ops.kiln.generate_batch(filepath=str(prompt_file))
    assert service.submit_attempts == 0


def test_refused_while_offline(offline: Any, tmp_path: Path) -> None:
    prompt_file = tmp_path / "props.txt"
    prompt_file.write_text("a red chair\n")
    with pytest.raises(RuntimeError, match="poll"):
        offline.ops.kiln.generate_batch(filepath=str(prompt_file))


def test_a_ui_batch_writes_its_summary_once_its_jobs_settle(
    service: Any, blender: Any, tmp_path: Path, kiln_module: Any
) -> None:
    """What the watcher's beats do, driven by hand (timers never fire in background mode)."""
    batches = kiln_module("session.batches")
    runtime = kiln_module("session.runtime")
    watcher = kiln_module("session.watcher")
    batch = kiln_module("api.features.batch")
    items = [batch.BatchItem(1, batch.JobRequest(kind="text", prompt="a red chair"))]
    job_ids = batches.send(blender.context, items)
    summary_path = tmp_path / "ui-summary.json"
    batches.follow(kiln_module("session.state").FollowedBatch("props.txt", job_ids, str(summary_path)))
    engine = runtime.engine()
    assert batches.conclude_settled(engine, True) == []
    assert not summary_path.exists()
    engine.wait(job_ids)
    assert batches.conclude_settled(engine, True) == []  # ready, waiting for the watcher to import it
    # One beat imports it; the batch is concluded on that beat or the next.
    said = watcher.tick(blender.context) + watcher.tick(blender.context)
    assert ("INFO", "Kiln: props.txt: 1 of 1 is in the scene") in said
    assert not kiln_module("session.state").current.followed
    assert json.loads(summary_path.read_text())["imported"] == 1
