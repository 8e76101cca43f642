"""Prompt files without Blender: every bad line named by its number, the good ones kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from concepts import CONCEPTS

from api.errors import InputError
from api.features.batch import (
    group_names,
    parse_csv,
    parse_txt,
    read_batch,
    summarize,
    summary_lines,
    write_summary,
)
from api.jobs import Job, JobRequest, JobState


def test_txt_skips_blank_lines_and_comments_and_keeps_line_numbers() -> None:
    text = "# props for level 3\n\na red chair\n   \n  # not this one\n  a wooden table  \nbad\x00line\n"
    batch = parse_txt(text, resolution=1024)
    assert [(item.line, item.request.prompt) for item in batch.items] == [
        (3, "a red chair"),
        (6, "a wooden table"),
    ]
    assert all(item.request.kind == "text" and item.request.resolution == 1024 for item in batch.items)
    assert [str(problem) for problem in batch.problems] == [
        "line 7: It contains control characters. Is the file a text file?"
    ]
    said = "Line 7 was skipped: It contains control characters. Is the file a text file?"
    assert str(batch.problems[0].said) == said


def test_csv_rows_become_text_and_image_requests(tmp_path: Path) -> None:
    shutil.copy(CONCEPTS / "chair.png", tmp_path / "chair.png")
    text = (
        "# level 3 props\n"
        "name,prompt,image,resolution\n"
        "Hero chair,a red chair,,1536\n"
        ",,chair.png,1024\n"
        "\n"
        "Web,,https://example.com/concept.png,\n"
        ",a tall lamp,,auto\n"
    )
    batch = parse_csv(text, folder=tmp_path, resolution=1024)
    assert batch.problems == []
    lines = [item.line for item in batch.items]
    requests = [item.request for item in batch.items]
    assert lines == [3, 4, 6, 7]
    assert requests[0] == JobRequest(kind="text", prompt="a red chair", resolution=1536, name="Hero chair")
    assert requests[1].kind == "image" and requests[1].image_path == str(tmp_path / "chair.png")
    assert requests[1].resolution == 1024 and requests[1].label == "chair.png"
    assert requests[2].image_url == "https://example.com/concept.png" and requests[2].resolution == 1024
    assert requests[3].resolution is None


def test_csv_bad_rows_are_reported_with_their_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("not an image")
    text = (
        "prompt,image,resolution\n"
        "a red chair,chair.png,\n"
        ",,\n"
        ",missing.png,\n"
        ",notes.png,\n"
        "a mug,,2048\n"
        ",http://example.com/x.png,\n"
        '"a chair\nover two lines",,\n'
        ",,1024\n"
        "a good mug,,\n"
    )
    batch = parse_csv(text, folder=tmp_path)
    assert [(item.line, item.request.prompt) for item in batch.items] == [
        (8, "a chair\nover two lines"),
        (11, "a good mug"),
    ]
    problems = {problem.line: str(problem.message) for problem in batch.problems}
    assert sorted(problems) == [2, 4, 5, 6, 7, 10]
    assert "both a prompt and an image" in problems[2]
    assert "does not exist" in problems[4] and "missing.png" in problems[4]
    assert "notes.png" in problems[5]
    assert "2048" in problems[6]
    assert "https://" in problems[7]
    assert "neither a prompt nor an image" in problems[10]


def test_csv_header_must_name_a_prompt_or_image_column(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match=r"\(line 2\) needs a “prompt” or an “image” column; it has: prompts, size"
    ):
        parse_csv("\nprompts,size\nchair,1\n", folder=tmp_path)
    with pytest.raises(InputError, match="empty"):
        parse_csv("# nothing here\n\n", folder=tmp_path)


def test_read_batch_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_batch(tmp_path / "props.txt")
    (tmp_path / "props.json").write_text("[]")
    with pytest.raises(InputError, match=r"\.txt .* \.csv"):
        read_batch(tmp_path / "props.json")
    (tmp_path / "bom.csv").write_bytes("\ufeffPrompt\na red chair\n".encode())
    assert [item.request.prompt for item in read_batch(tmp_path / "bom.csv").items] == ["a red chair"]


def test_group_names_are_short_unique_and_fit_blender() -> None:
    long_prompt = "a very long prompt " * 10
    names = group_names(
        ["a red chair", "a red chair", "Kiln", long_prompt, "  spaced\tout  ", "ü" * 60], ["Kiln"]
    )
    assert names[:3] == ["a red chair", "a red chair 2", "Kiln 2"]
    assert len(names[3]) <= 40 and not names[3].endswith(" ")
    assert names[4] == "spaced out"
    assert all(len(name.encode()) <= 63 for name in names)
    assert len(set(names)) == len(names)


def test_summary_per_job_and_as_json(tmp_path: Path) -> None:
    done = Job(id="a", request=JobRequest(kind="text", prompt="a red chair"), task_id="task_1")
    done.state, done.triangles, done.created_at, done.finished_at = JobState.IMPORTED, 3072, 100.0, 104.25
    failed = Job(id="b", request=JobRequest(kind="text", prompt="a mug", name="Mug"), task_id="task_2")
    failed.state, failed.error, failed.created_at, failed.finished_at = (
        JobState.FAILED,
        "No mesh.",
        100.0,
        102.0,
    )
    summary = summarize([done, failed])
    assert summary["imported"] == 1 and summary["failed"] == 1
    assert summary["jobs"][0] == {
        "name": "a red chair",
        "task_id": "task_1",
        "state": "imported",
        "triangles": 3072,
        "seconds": 4.2,
        "error": "",
        "error_details": "",
        "verdict": None,
        "reasons": [],
        "quality": None,
    }
    assert summary["jobs"][1]["name"] == "Mug" and summary["jobs"][1]["error"] == "No mesh."
    lines = summary_lines(summary)
    assert "task_1" in lines[0] and "3,072 triangles" in lines[0] and "4.2 s" in lines[0]
    assert "failed: No mesh." in lines[1]
    assert lines[-1] == "1 of 2 jobs imported"
    path = tmp_path / "out" / "summary.json"
    write_summary(path, summary)
    assert json.loads(path.read_text()) == summary
    assert [p.name for p in path.parent.iterdir()] == ["summary.json"]
