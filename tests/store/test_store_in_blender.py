"""What the artist sees in Blender when the job list is damaged or cannot be written."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from ui.recording_layout import draw


def test_a_damaged_job_list_is_said_in_the_panel_and_the_status_bar(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    runtime, watcher = kiln_module("operators.runtime"), kiln_module("operators.watcher")
    (fresh_jobs / "jobs.json").write_text('{"format": 1, "jobs": [{"id": "a", "request": {"ki')
    engine = runtime.engine()
    (problem,) = engine.store_problems()
    assert "damaged" in problem and "jobs.json.damaged-" in problem
    panel = draw(kiln_module("panels.jobs").KILN_PT_jobs, blender.context)
    assert "".join(problem.split()) in "".join(panel.text().split())  # wrapped over several labels
    assert ("WARNING", f"Kiln: {problem}") in watcher.tick(blender.context)


def test_every_operator_says_when_kilns_folder_cannot_hold_the_job_list(
    service: Any, blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    kiln_module("operators.runtime").shutdown()
    shutil.rmtree(fresh_jobs)
    fresh_jobs.write_text("a file where Kiln's folder should be")
    sentence = f"{fresh_jobs}: it is a file, not a folder"
    try:
        for call in (
            lambda: blender.ops.kiln.generate_from_text(prompt="a chair"),
            lambda: blender.ops.kiln.generate_from_text(prompt="a chair", wait=False),
            lambda: blender.ops.kiln.resume_task(task_id="task_123"),
            blender.ops.kiln.wait_jobs,
            blender.ops.kiln.clear_finished,
            lambda: blender.ops.kiln.retry_job(job_id="abc"),
        ):
            with pytest.raises(RuntimeError, match="Nothing was sent") as caught:
                call()
            assert sentence in str(caught.value) and "Traceback" not in str(caught.value)
    finally:
        fresh_jobs.unlink()
        fresh_jobs.mkdir()
    assert service.requests == []
