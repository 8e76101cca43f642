"""The status bar hears about finished and failed jobs from the watcher, Sidebar open or not."""

from __future__ import annotations

from typing import Any


def test_a_finished_job_is_reported(service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair", wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    assert engine.wait([job.id], timeout=60)
    messages = ui.watcher.tick(blender.context)
    assert (
        "INFO",
        f"Kiln: “a red chair” is in the scene ({engine.get(job.id).triangles:,} triangles).",
    ) in messages


def test_a_failed_job_is_reported_with_its_sentence(
    blender: Any, fresh_jobs: Any, sandbox_factory: Any, sandbox_key: str, monkeypatch: Any, ui: Any
) -> None:
    server = sandbox_factory(faults="fail=1")
    monkeypatch.setenv("KILN_BASE_URL", server.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    assert blender.ops.kiln.generate_from_text(prompt="doomed", wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    assert engine.wait([job.id], timeout=60)
    messages = ui.watcher.tick(blender.context)
    assert ("WARNING", f"Kiln: {engine.get(job.id).error}") in messages


def test_the_beat_hands_each_sentence_on(service: Any, blender: Any, ui: Any, caplog: Any) -> None:
    """The timer has no operator to report through: in the UI a one-shot announcer shows each
    sentence (see test_ui_heartbeat); in background mode, with no window, the log carries it."""
    ui.messenger.announce("INFO", "Kiln: batch props.txt: 2 of 2 imported")
    assert blender.ops.kiln.generate_from_text(prompt="a green lamp", wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    assert engine.wait([job.id], timeout=60)
    ui.watcher.beat()
    assert "Kiln: batch props.txt: 2 of 2 imported" in caplog.text
    assert f"Kiln: “a green lamp” is in the scene ({engine.get(job.id).triangles:,} triangles)" in caplog.text
    assert ui.watcher.tick(blender.context) == []  # each sentence is said once


def test_kiln_is_named_once_before_a_sentence_that_opens_with_it(ui: Any, kiln_module: Any) -> None:
    """ "Kiln: Kiln cannot tell whether …" read as a stutter: the one place the prefix is added
    leaves it off a sentence that already opens with Kiln's name."""
    words = kiln_module("api.words").catalogue
    said = ui.messenger.sentence(words.OUTCOME_UNKNOWN)
    assert said.startswith("Kiln cannot tell whether the service received this job")
    assert "Kiln: Kiln" not in said
    assert ui.messenger.sentence(words.TASK_FAILED).startswith("Kiln: The service could not make a mesh")
