"""The heartbeat never holds off autosave: no Kiln modal runs while jobs are in flight, and it survives loads.

Blender postpones autosave while any modal operator runs, so the watcher is a persistent
``bpy.app.timers`` function. Timers never fire in background mode: the tests call the timer
function (``watcher.beat``) themselves, as Blender would.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ADDON = "bl_ext.kiln_dev.kiln"


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def kiln_operator_classes(bpy: Any) -> list[type]:
    return [getattr(bpy.types, name) for name in dir(bpy.types) if name.startswith("KILN_OT_")]


def defines_modal(cls: type) -> bool:
    return any("modal" in vars(k) for k in cls.__mro__ if k.__module__.startswith(ADDON))


def test_no_kiln_modal_watches_jobs_only_a_timer_does(slow_service: Any, blender: Any, ui: Any) -> None:
    for prompt in ("a red chair", "a blue mug"):
        assert blender.ops.kiln.generate_from_text(prompt=prompt, wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    assert engine.has_active()
    assert blender.app.timers.is_registered(ui.watcher.beat)
    assert ui.watcher.beat() == ui.watcher.BUSY_SECONDS  # jobs in flight: beat again soon
    # The one Kiln operator with a modal step is the announcer, and nothing about it watches jobs.
    modal = [cls for cls in kiln_operator_classes(blender) if defines_modal(cls)]
    assert modal == [ui.announce.KILN_OT_announce]
    for job in engine.jobs():
        engine.cancel(job.id)


def test_the_announcer_ends_at_its_first_timer_event(blender: Any, ui: Any) -> None:
    """Reports reach the status bar from a modal step; this one lasts one event-loop pass."""
    removed: list[object] = []
    reports: list[tuple[set[str], str]] = []
    announcer = SimpleNamespace(
        timer=object(),
        reports="WARNING Kiln: the service could not make this mesh\nINFO Kiln: “a rock” is in the scene",
        report=lambda level, message: reports.append((level, message)),
    )
    context = SimpleNamespace(window_manager=SimpleNamespace(event_timer_remove=removed.append))
    modal = ui.announce.KILN_OT_announce.modal
    assert modal(announcer, context, SimpleNamespace(type="MOUSEMOVE")) == {"PASS_THROUGH"}
    assert reports == [] and removed == []
    assert modal(announcer, context, SimpleNamespace(type="TIMER")) == {"FINISHED"}
    assert reports == [
        ({"WARNING"}, "Kiln: the service could not make this mesh"),
        ({"INFO"}, "Kiln: “a rock” is in the scene"),
    ]
    assert removed == [announcer.timer]
    removed.clear()
    ui.announce.KILN_OT_announce.cancel(announcer, context)  # e.g. a file load ends it first
    assert removed == [announcer.timer]


def test_an_idle_watcher_beats_slowly_and_a_submit_wakes_it(slow_service: Any, blender: Any, ui: Any) -> None:
    ui.runtime.engine()
    assert ui.watcher.is_idle()
    assert ui.watcher.beat() == ui.watcher.IDLE_SECONDS
    blender.app.timers.unregister(ui.watcher.beat)
    assert blender.ops.kiln.generate_from_text(prompt="a stone", wait=False) == {"FINISHED"}
    assert blender.app.timers.is_registered(ui.watcher.beat)
    assert ui.watcher.beat() == ui.watcher.BUSY_SECONDS


def test_the_timer_is_persistent_on_its_own(blender: Any, ui: Any, tmp_path: Path) -> None:
    """Without the load handler's help: a non-persistent timer would be dropped by these loads."""
    ui.watcher.ensure_running()
    blender.app.handlers.load_post.remove(ui.watcher._on_load_post)
    try:
        blender.ops.wm.read_homefile(use_empty=True)
        assert blender.app.timers.is_registered(ui.watcher.beat)
        scene_file = tmp_path / "scene.blend"
        blender.ops.wm.save_as_mainfile(filepath=str(scene_file))
        blender.ops.wm.open_mainfile(filepath=str(scene_file))
        assert blender.app.timers.is_registered(ui.watcher.beat)
    finally:
        blender.app.handlers.load_post.append(ui.watcher._on_load_post)


def test_the_heartbeat_survives_file_loads_and_still_imports(
    service: Any, blender: Any, ui: Any, tmp_path: Path
) -> None:
    scene_file = tmp_path / "scene.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(scene_file))
    assert blender.ops.kiln.generate_from_text(prompt="a wooden table", wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    (job,) = engine.jobs()

    blender.ops.wm.read_homefile(use_empty=True)
    assert blender.app.timers.is_registered(ui.watcher.beat)
    blender.ops.wm.open_mainfile(filepath=str(scene_file))
    assert blender.app.timers.is_registered(ui.watcher.beat)

    assert engine.wait([job.id], timeout=60)
    ui.watcher.beat()
    assert [obj["kiln_prompt"] for obj in kiln_objects(blender)][:1] == ["a wooden table"]
    assert engine.get(job.id).state.value == "imported"
    assert ui.watcher.is_idle()
    assert ui.watcher.beat() == ui.watcher.IDLE_SECONDS


def test_unregister_removes_the_timer_and_register_brings_it_back(blender: Any, ui: Any) -> None:
    operators, session = sys.modules[f"{ADDON}.operators"], sys.modules[f"{ADDON}.session"]
    session.unregister()
    operators.unregister()
    try:
        assert not blender.app.timers.is_registered(ui.watcher.beat)
        assert not hasattr(blender.types, "KILN_OT_announce")
    finally:
        operators.register()
        session.register()
    assert blender.app.timers.is_registered(ui.watcher.beat)


def test_in_background_mode_the_operators_wait_and_import_themselves(
    service: Any, blender: Any, ui: Any
) -> None:
    """No beat ever comes in background mode: wait_jobs and resume_task block, then import."""
    for prompt in ("a stone", "a wooden cabin"):
        assert blender.ops.kiln.generate_from_text(prompt=prompt, wait=False) == {"FINISHED"}
    assert kiln_objects(blender) == []
    assert blender.ops.kiln.wait_jobs() == {"FINISHED"}
    assert {obj["kiln_prompt"] for obj in kiln_objects(blender)} == {"a stone", "a wooden cabin"}
    engine = ui.runtime.engine()
    task_id = engine.jobs()[0].task_id
    blender.ops.wm.read_homefile(use_empty=True)
    assert blender.ops.kiln.resume_task(task_id=task_id, name="Resumed stone") == {"FINISHED"}
    (resumed,) = [job for job in engine.jobs() if job.request.name == "Resumed stone"]
    assert resumed.state.value == "imported"
    assert {obj["kiln_task_id"] for obj in kiln_objects(blender)} == {task_id}


def test_the_sidebar_redraws_for_jobs_at_most_every_few_seconds_and_at_once_for_a_sentence(ui: Any) -> None:
    """Each redraw costs the window a frame: the first change after a quiet while is drawn at once,
    the changes that follow together, REDRAW_SECONDS later (the beat after); a sentence at once."""
    redraws = ui.watcher._Redraws()
    redraws.after(True, False)
    first = redraws.last
    assert first > 0 and not redraws.waiting, "the first change is drawn at once"
    redraws.after(True, False)
    redraws.after(False, False)
    assert redraws.last == first and redraws.waiting, "the next change waits for the rest"
    redraws.last -= ui.watcher.REDRAW_SECONDS
    redraws.after(False, False)
    assert redraws.last > first - ui.watcher.REDRAW_SECONDS and not redraws.waiting, "drawn a beat later"
    redraws.after(False, False)
    assert not redraws.waiting, "nothing changed: nothing waits"
    redraws.last = just_drawn = redraws.last + 100.0  # as if drawn a moment ago
    redraws.after(True, False)
    assert redraws.last == just_drawn and redraws.waiting
    redraws.after(False, True)
    assert redraws.last != just_drawn and not redraws.waiting, "a sentence is drawn at once"
