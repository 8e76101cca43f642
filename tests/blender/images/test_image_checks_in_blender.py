"""Image checks end to end inside Blender (background mode): refused, said, prepared, measured, ranked."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from PIL import Image

from fixtures.concept_images import write_case

CASES = Path(tempfile.mkdtemp(prefix="kiln-cases-"))


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def engine_of(kiln_module: Any) -> Any:
    return kiln_module("session.runtime").engine()


@pytest.mark.parametrize(("case", "words"), [("single_colour", "single colour"), ("tiny", "at least 128")])
def test_a_refusal_sends_nothing(service: Any, blender: Any, case: str, words: str) -> None:
    with pytest.raises(RuntimeError, match=rf"Kiln: .*{words}"):
        blender.ops.kiln.generate_from_image(filepath=str(write_case(CASES, case)))
    assert service.submit_attempts == 0


@pytest.mark.parametrize(("case", "words"), [("cut_off", "touches the edge"), ("two", "several separate")])
def test_strict_refuses_what_is_said_and_sends_nothing(
    service: Any, blender: Any, case: str, words: str
) -> None:
    with pytest.raises(RuntimeError, match=rf"(?s){words}.*send only clean images"):
        blender.ops.kiln.generate_from_image(filepath=str(write_case(CASES, case)), preflight="STRICT")
    assert service.submit_attempts == 0


def test_ask_says_it_in_the_report_and_sends(service: Any, blender: Any, caplog: Any) -> None:
    path = write_case(CASES, "blurred")
    assert blender.ops.kiln.generate_from_image(filepath=str(path)) == {"FINISHED"}
    assert service.submit_attempts == 1


def test_the_prepared_image_is_sent_the_original_kept_and_fidelity_stamped(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    path = write_case(CASES, "off_centre")
    assert blender.ops.kiln.generate_from_image(filepath=str(path)) == {"FINISHED"}
    (job,) = engine_of(kiln_module).jobs()
    assert job.request.image_path == str(path)
    sent = Path(job.request.image_sent)
    assert sent.is_file() and sent != path
    with Image.open(sent) as image:
        assert image.size[0] == image.size[1]
    objects = kiln_objects(blender)
    assert objects[0]["kiln_image"] == str(path)
    assert objects[0]["kiln_fidelity"] >= 0.75
    assert job.fidelity == objects[0]["kiln_fidelity"]
    details = kiln_module("api.jobs.details").job_details(job)
    assert "matches your image well" in details and str(sent) in details


def test_unprepared_the_original_is_sent(service: Any, blender: Any, kiln_module: Any) -> None:
    path = CONCEPTS / "robot.png"
    assert blender.ops.kiln.generate_from_image(filepath=str(path), prepare=False) == {"FINISHED"}
    (job,) = engine_of(kiln_module).jobs()
    assert job.request.image_sent == "" and job.fidelity is not None and job.fidelity >= 0.75


def test_three_variants_three_submits_the_best_shown(service: Any, blender: Any, kiln_module: Any) -> None:
    path = CONCEPTS / "teapot.png"
    assert blender.ops.kiln.generate_from_image(filepath=str(path), variants=3) == {"FINISHED"}
    assert service.submit_attempts == 3
    objects = kiln_objects(blender)
    numbers = sorted({obj["kiln_variant"] for obj in objects})
    assert numbers == [1, 2, 3]
    shown = [obj for obj in objects if not obj.hide_get()]
    assert shown and all(obj["kiln_variant"] == 1 for obj in shown)
    best = max(obj["kiln_fidelity"] for obj in objects)
    assert all(obj["kiln_fidelity"] == best for obj in shown)


def test_with_a_window_the_check_runs_off_the_main_thread_and_the_operator_comes_back(
    service: Any, blender: Any, kiln_module: Any, monkeypatch: Any
) -> None:
    """The bpy module has no window and no timers: ``follow`` runs the work on its thread as Blender
    would, then its outcome is handed back here, as a timer would on the main thread."""
    import threading

    image_jobs = kiln_module("session.image_jobs")
    generate = kiln_module("operators.generate")
    threads: list[str] = []
    calls: list[dict[str, Any]] = []

    def follow(name: str, work: Any, done: Any) -> None:
        outcome: list[Any] = []

        def run() -> None:
            threads.append(threading.current_thread().name)
            outcome.append(work())

        thread = threading.Thread(target=run, name=f"kiln-{name}")
        thread.start()
        thread.join()
        done(outcome[0])

    monkeypatch.setattr(image_jobs, "follow", follow)
    monkeypatch.setattr(image_jobs, "_call_again", lambda mode, arguments: calls.append(arguments))
    monkeypatch.setattr(generate, "has_event_loop", lambda: True)
    path = write_case(CASES, "off_centre")
    assert blender.ops.kiln.generate_from_image(filepath=str(path), variants=2) == {"FINISHED"}
    assert threads == ["kiln-image-check"] and service.submit_attempts == 0
    (again,) = calls
    assert again["filepath"] == str(path) and again["variants"] == 2 and again["checked"]
    checked = image_jobs.peek(again["checked"])
    assert checked.preflight.said[0].code == "subject_small" and checked.request.image_sent
    monkeypatch.setattr(generate, "has_event_loop", lambda: False)
    assert blender.ops.kiln.generate_from_image(**again) == {"FINISHED"}
    assert service.submit_attempts == 2
    with pytest.raises(RuntimeError, match="image check's outcome is gone"):
        blender.ops.kiln.generate_from_image(**again)  # a token is used once


def test_the_job_details_say_the_fidelity_in_words(service: Any, blender: Any, kiln_module: Any) -> None:
    from recording_layout import draw, run_pending_sync, sync_asked

    jobs_panel = kiln_module("panels.jobs")
    assert blender.ops.kiln.generate_from_image(filepath=str(CONCEPTS / "chair.png")) == {"FINISHED"}
    draw(jobs_panel.KILN_PT_jobs, blender.context)
    if sync_asked(jobs_panel):
        run_pending_sync(blender, jobs_panel)
    blender.context.window_manager.kiln_job_index = 0
    layout = draw(jobs_panel.KILN_PT_jobs, blender.context)
    assert "The mesh matches your image well" in layout.text()


def test_the_best_variant_is_the_active_object_for_the_variant_buttons(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    assert blender.ops.kiln.generate_from_image(filepath=str(CONCEPTS / "robot.png"), variants=2) == {
        "FINISHED"
    }
    active = blender.context.view_layer.objects.active
    assert active["kiln_variant"] == 1 and not active.hide_get()
    assert blender.ops.kiln.variant_next() == {"FINISHED"}
    assert blender.context.view_layer.objects.active["kiln_variant"] == 2
    assert blender.ops.kiln.variant_keep() == {"FINISHED"}
    assert {obj["kiln_variant"] for obj in blender.data.objects if "kiln_variant" in obj} == {2}


def test_with_a_window_a_refusal_after_the_check_reaches_the_status_bar(
    service: Any, blender: Any, kiln_module: Any, monkeypatch: Any
) -> None:
    """The operator called again from the check's outcome (a timer) reports to nobody: the refusal
    is announced instead, and nothing is sent."""
    image_jobs = kiln_module("session.image_jobs")
    generate = kiln_module("operators.generate")
    messenger = kiln_module("session.messenger")
    checked = image_jobs.check_inline(
        kiln_module("api.jobs").JobRequest(kind="image", image_path=str(write_case(CASES, "single_colour"))),
        True,
    )
    image_jobs._checked["token"] = checked
    monkeypatch.setattr(generate, "has_event_loop", lambda: True)
    messenger.take()
    path = str(write_case(CASES, "single_colour"))
    assert blender.ops.kiln.generate_from_image(filepath=path, checked="token") == {"CANCELLED"}
    said = messenger.take()
    assert [level for level, _ in said] == ["ERROR"] and "single colour" in said[0][1]
    assert service.submit_attempts == 0
