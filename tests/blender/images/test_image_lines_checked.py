"""A batch's image lines go through the image check as one image job does: a refused line is said
and left out, the others are sent prepared; with a window the check runs off the main thread and
the batch asks once, naming what it found."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from fixtures.concept_images import write_case

CASES = Path(tempfile.mkdtemp(prefix="kiln-line-cases-"))


def batch_file(folder: Path) -> Path:
    table = folder / "props.csv"
    table.write_text(
        "name,prompt,image\n"
        "Mug,a red mug,\n"
        f"Tiny,,{write_case(CASES, 'tiny')}\n"
        f"Small,,{write_case(CASES, 'off_centre')}\n"
    )
    return table


def test_a_refused_image_line_is_said_and_the_others_go_prepared(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Path, capsys: Any
) -> None:
    assert blender.ops.kiln.generate_batch(filepath=str(batch_file(tmp_path))) == {"FINISHED"}
    said = capsys.readouterr().out
    assert "at least 128" in said and "Kiln leaves Tiny out; the others are sent." in said
    assert service.submit_attempts == 2
    jobs = {job.request.label: job for job in kiln_module("session.runtime").engine().jobs()}
    assert sorted(jobs) == ["Mug", "Small"]
    assert jobs["Small"].request.image_sent and jobs["Small"].request.preflight


def test_with_a_window_the_lines_are_checked_off_the_main_thread_then_asked_about_once(
    service: Any, blender: Any, kiln_module: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    image_lines = kiln_module("session.image_lines")
    batch_run = kiln_module("session.batch_run")
    batch_operator = kiln_module("operators.batch")
    threads: list[str] = []
    tokens: list[str] = []

    def follow(name: str, work: Any, done: Any) -> None:
        outcome: list[Any] = []
        thread = threading.Thread(target=lambda: (threads.append(name), outcome.append(work())))
        thread.start()
        thread.join()
        done(outcome[0])

    monkeypatch.setattr(image_lines, "follow", follow)
    monkeypatch.setattr(batch_run, "has_event_loop", lambda: True)
    monkeypatch.setattr(
        batch_operator.KILN_OT_generate_batch, "_again", lambda op, token: tokens.append(token)
    )
    table = batch_file(tmp_path)
    assert blender.ops.kiln.generate_batch(filepath=str(table)) == {"FINISHED"}
    assert threads == ["batch-image-check"] and service.submit_attempts == 0
    (token,) = tokens
    parsed = batch_run.read(
        batch_run.Given(
            table, None, "NEVER", 0, "", kiln_module("api.features.quality.options").GameOptions()
        )
    )
    checked, found = batch_run.with_checked_images(parsed, image_lines.peek(token))
    assert [item.request.label for item in checked.items] == ["Mug", "Small"]
    assert [m.name for m in found.refused] == ["IMAGE_TOO_SMALL", "IMAGE_LEFT_OUT"]
    assert found.found and found.found[0].name == "IMAGE_SUBJECT_SMALL"
    monkeypatch.setattr(batch_run, "has_event_loop", lambda: False)  # the artist said yes
    assert blender.ops.kiln.generate_batch(filepath=str(table), confirmed=True, checked=token) == {"FINISHED"}
    assert service.submit_attempts == 2


def placeholder(bpy: Any, name: str, **marks: str) -> Any:
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    obj = bpy.context.active_object
    obj.name = name
    for key, value in marks.items():
        obj[key] = value
    return obj


def select(bpy: Any, objects: list[Any]) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)


def test_a_placeholder_whose_image_is_refused_is_said_and_the_others_go(
    service: Any, blender: Any, kiln_module: Any, capsys: Any
) -> None:
    tiny = placeholder(blender, "Badge", kiln_image=str(write_case(CASES, "tiny")))
    small = placeholder(blender, "Seat", kiln_image=str(write_case(CASES, "off_centre")))
    crate = placeholder(blender, "Crate", kiln_prompt="a wooden crate")
    select(blender, [tiny, small, crate])
    assert blender.ops.kiln.generate_from_selection(resolution="1024") == {"FINISHED"}
    said = capsys.readouterr().out
    assert "at least 128" in said and "Kiln leaves Badge out" in said
    assert service.submit_attempts == 2
    jobs = {job.request.placeholder: job for job in kiln_module("session.runtime").engine().jobs()}
    assert sorted(jobs) == ["Crate", "Seat"] and jobs["Seat"].request.image_sent


def test_with_a_window_placeholders_are_checked_off_the_main_thread(
    service: Any, blender: Any, kiln_module: Any, monkeypatch: Any
) -> None:
    image_lines = kiln_module("session.image_lines")
    blockout = kiln_module("operators.blockout")
    threads: list[str] = []
    tokens: list[str] = []

    def follow(name: str, work: Any, done: Any) -> None:
        outcome: list[Any] = []
        thread = threading.Thread(target=lambda: (threads.append(name), outcome.append(work())))
        thread.start()
        thread.join()
        done(outcome[0])

    monkeypatch.setattr(image_lines, "follow", follow)
    monkeypatch.setattr(image_lines, "has_event_loop", lambda: True)
    monkeypatch.setattr(
        blockout.KILN_OT_generate_from_selection, "_again", lambda op, token: tokens.append(token)
    )
    tiny = placeholder(blender, "Badge", kiln_image=str(write_case(CASES, "tiny")))
    small = placeholder(blender, "Seat", kiln_image=str(write_case(CASES, "off_centre")))
    select(blender, [tiny, small])
    assert blender.ops.kiln.generate_from_selection(resolution="1024") == {"FINISHED"}
    assert threads == ["blockout-image-check"] and service.submit_attempts == 0
    (token,) = tokens
    messenger = kiln_module("session.messenger")
    messenger.take()
    assert blender.ops.kiln.generate_from_selection(resolution="1024", checked=token) == {"FINISHED"}
    said = " ".join(text for _, text in messenger.take())
    assert "Kiln leaves Badge out" in said and service.submit_attempts == 1
