"""What the artist sees in Blender when the job list is damaged or cannot be written."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from plain_words import internals_in
from recording_layout import draw


def test_a_damaged_job_list_is_said_in_the_panel_and_the_status_bar(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    runtime, watcher = kiln_module("session.runtime"), kiln_module("session.watcher")
    (fresh_jobs / "jobs.json").write_text('{"format": 1, "jobs": [{"id": "a", "request": {"ki')
    engine = runtime.engine()
    (problem,) = engine.store_problems()
    assert "from an older version was damaged" in problem and not internals_in(problem)
    assert str(fresh_jobs) not in problem and str(fresh_jobs) in engine.store_problem_messages()[0].details
    panel = draw(kiln_module("panels.jobs").KILN_PT_jobs, blender.context)
    assert "".join(problem.split()) in "".join(panel.text().split())  # wrapped over several labels
    # "Kiln's job list …" opens with Kiln's name: the status bar says it once, with no "Kiln: " before.
    assert ("WARNING", problem) in watcher.tick(blender.context)


@pytest.mark.parametrize("damage", ["emptied store", "garbage write-ahead log"])
def test_a_store_sqlite_would_read_as_new_is_kept_and_said(
    blender: Any, fresh_jobs: Path, kiln_module: Any, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    runtime, watcher = kiln_module("session.runtime"), kiln_module("session.watcher")
    runtime.engine()  # Kiln writes its list
    runtime.shutdown()
    store = fresh_jobs / "jobs.sqlite3"
    damaged = b"" if damage == "emptied store" else os.urandom(4096)
    store.with_name(store.name + ("" if damage == "emptied store" else "-wal")).write_bytes(damaged)
    caplog.clear()
    engine = runtime.engine()
    (problem,) = engine.store_problems()
    (backup,) = [
        p for p in fresh_jobs.glob("jobs.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    ]
    kept = backup if damage == "emptied store" else backup.with_name(backup.name + "-wal")
    assert kept.read_bytes() == damaged and str(fresh_jobs) not in problem and not internals_in(problem)
    assert "Kiln kept a copy of it in its user folder" in problem
    assert str(fresh_jobs) in engine.store_problem_messages()[0].details
    assert any(backup.name in r.getMessage() for r in caplog.records), "the file's name is in the console log"
    panel = draw(kiln_module("panels.jobs").KILN_PT_jobs, blender.context)
    assert "".join(problem.split()) in "".join(panel.text().split())
    # Show the Copy opens the folder that holds the copy (the sentence itself names no path).
    (show,) = panel.operators("wm.path_open")
    assert show.text == "Show the Copy" and show.props.filepath == str(fresh_jobs)
    # A sentence that opens with Kiln's name is said once, with no "Kiln: " before it.
    shown = problem if problem.startswith("Kiln") else f"Kiln: {problem}"
    assert ("WARNING", shown) in watcher.tick(blender.context)
    # Blender here runs in background mode: the sentence reached the console when it was raised.
    said = [r for r in caplog.records if r.getMessage() == shown]
    assert said and said[0].levelno >= logging.WARNING


def test_every_operator_says_when_kilns_folder_cannot_hold_the_job_list(
    service: Any, blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    kiln_module("session.runtime").shutdown()
    shutil.rmtree(fresh_jobs)
    fresh_jobs.write_text("a file where Kiln's folder should be")
    named = f"a file named “{fresh_jobs.name}” is where its folder should be."
    sentence = f"Kiln could not record its jobs because {named}"
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
            assert str(fresh_jobs) not in str(caught.value), "Kiln's own folder is for the details"
    finally:
        fresh_jobs.unlink()
        fresh_jobs.mkdir()
    assert service.requests == []


def test_another_kilns_job_is_listed_marked_and_left_to_it(
    blender: Any, fresh_jobs: Path, sandbox_factory: Any, sandbox_key: str, monkeypatch: Any, kiln_module: Any
) -> None:
    from recording_layout import run_pending_sync, wait_for

    slow = sandbox_factory(speed=0.2)  # the other Kiln's job runs for the whole test
    monkeypatch.setenv("KILN_BASE_URL", slow.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    jobs_module, runtime = kiln_module("api.jobs"), kiln_module("session.runtime")
    here = runtime.engine()
    other = jobs_module.JobEngine(fresh_jobs, workers=1, label="a background Blender")
    other.start(jobs_module.ServiceConfig(slow.base_url, sandbox_key, poll_interval=0.2))
    try:
        theirs = other.submit(jobs_module.JobRequest(kind="text", prompt="their lamp"))
        listed = wait_for(lambda: here.get(theirs.id), what="the other Kiln's job in this list")
        assert not here.is_own(listed) and here.runs_elsewhere(listed)
        where = here.where(listed)
        assert str(where) == "This job runs in a background Blender."
        assert where is not None and where.details == f"process {listed.owner.pid}"
        panels = kiln_module("panels.jobs")
        draw(panels.KILN_PT_jobs, blender.context)
        run_pending_sync(blender, panels)
        details = draw(panels.KILN_PT_jobs, blender.context)
        assert "This job runs in a background Blender" in details.text()
        assert details.operators("kiln.cancel_job") == [], "only its owner may cancel it"
        with pytest.raises(RuntimeError, match="runs in a background Blender"):
            blender.ops.kiln.cancel_job(job_id=theirs.id)
        assert here.ready_for(runtime.current_origin()) is None and not here.has_active()

        task_id = wait_for(lambda: other.get(theirs.id).task_id, what="the task id")
        slow.complete_now(task_id)
        wait_for(lambda: here.get(theirs.id).state.value == "ready", timeout=60, what="ready, seen here")
        assert here.ready_for(runtime.current_origin()) is None, "never imported here on its own"
        assert blender.ops.kiln.import_job(job_id=theirs.id) == {"FINISHED"}  # an explicit Import
        assert [o["kiln_prompt"] for o in blender.data.objects if "kiln_prompt" in o][:1] == ["their lamp"]
        assert other.get(theirs.id).state.value == "ready", "its owner still imports it into its own file"
    finally:
        other.shutdown()
