"""Jobs end to end inside Blender (the bpy module) against the sandbox over real HTTP."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from guards import main_thread_must_not_wait


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def triangles(objects: list[Any]) -> int:
    total = 0
    for obj in objects:
        if obj.type == "MESH":
            obj.data.calc_loop_triangles()
            total += len(obj.data.loop_triangles)
    return total


def engine_of(kiln_module: Any) -> Any:
    return kiln_module("session.runtime").engine()


def test_text_job_in_background_mode_lands_in_the_scene(service: Any, blender: Any, kiln_module: Any) -> None:
    blender.context.scene.cursor.location = (1.0, 2.0, 3.0)
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    objects = kiln_objects(blender)
    assert objects
    job = engine_of(kiln_module).jobs()[-1]
    assert triangles(objects) == job.triangles
    obj = objects[0]
    assert obj["kiln_task_id"] == job.task_id
    assert obj["kiln_prompt"] == "a red chair"
    assert obj["kiln_resolution"] == job.resolution
    assert all(o.name in blender.data.collections["Kiln"].objects for o in objects)
    roots = [o for o in objects if o.parent is None]
    assert tuple(roots[0].location) == pytest.approx((1.0, 2.0, 3.0))
    assert blender.context.view_layer.objects.active in objects
    assert sorted(job.objects) == sorted(o.name for o in objects)


def test_image_job_in_background_mode_lands_in_the_scene(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    path = CONCEPTS / "chair.png"
    assert blender.ops.kiln.generate_from_image(filepath=str(path), resolution="1024") == {"FINISHED"}
    objects = kiln_objects(blender)
    job = engine_of(kiln_module).jobs()[-1]
    assert triangles(objects) == job.triangles
    assert objects[0]["kiln_image"] == str(path)
    assert objects[0]["kiln_resolution"] == 1024


def test_a_blender_image_is_saved_and_sent(service: Any, blender: Any, kiln_module: Any) -> None:
    image = blender.data.images.new("Concept", 256, 256, alpha=True)  # the service takes 128 and more
    image.generated_type = "COLOR_GRID"
    assert blender.ops.kiln.generate_from_image(image_name="Concept", resolution="1024") == {"FINISHED"}
    assert kiln_objects(blender)[0]["kiln_image"] == "Concept"
    engine = engine_of(kiln_module)
    (job,) = engine.jobs()
    upload = Path(job.request.image_path)
    assert upload.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    engine.remove(job.id)
    deadline = time.monotonic() + 10  # the store thread deletes it, off the UI thread
    while upload.exists() and time.monotonic() < deadline:
        threading.Event().wait(0.02)
    assert not upload.exists()


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ({"faults": "fail=1"}, "could not make a mesh from this prompt"),
        ({"faults": "corrupt=1"}, "mesh"),
        ({"credits": 0}, "credits"),
    ],
)
def test_failures_raise_a_sentence_and_keep_the_job(
    blender: Any,
    fresh_jobs: Path,
    sandbox_factory: Any,
    sandbox_key: str,
    monkeypatch: Any,
    kiln_module: Any,
    setup: dict[str, Any],
    words: str,
) -> None:
    sandbox = sandbox_factory(**setup)
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    with pytest.raises(RuntimeError, match="(?i)" + words) as caught:
        blender.ops.kiln.generate_from_text(prompt="a lamp")
    assert "Traceback" not in str(caught.value)
    job = engine_of(kiln_module).jobs()[-1]
    assert job.state.value == "failed" and job.error
    assert not kiln_objects(blender)


def test_a_rejected_key_raises_a_sentence(service: Any, blender: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("KILN_API_KEY", "sbx_live_wrongwrongwrong0000")
    with pytest.raises(RuntimeError, match=r"(?i)key"):
        blender.ops.kiln.generate_from_text(prompt="a lamp")


def test_a_dead_service_raises_a_sentence(
    blender: Any, fresh_jobs: Path, monkeypatch: Any, sandbox_key: str
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KILN_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    with pytest.raises(RuntimeError, match="Kiln: ") as caught:
        blender.ops.kiln.generate_from_text(prompt="a lamp")
    assert "reach" in str(caught.value).lower() or "connect" in str(caught.value).lower()
    assert blender.ops.wm.read_homefile(use_empty=True) == {"FINISHED"}


def test_empty_prompt_and_missing_key_are_refused_before_sending(
    service: Any, blender: Any, monkeypatch: Any
) -> None:
    # Every refusal starts the same way, whoever wrote its sentence (session.messenger.refuse).
    with pytest.raises(RuntimeError, match=r"Kiln: .*prompt is empty"):
        blender.ops.kiln.generate_from_text(prompt="   ")
    monkeypatch.delenv("KILN_API_KEY")
    with pytest.raises(RuntimeError, match="Kiln: No API key"):
        blender.ops.kiln.generate_from_text(prompt="a mug")
    with pytest.raises(RuntimeError, match=r"Kiln: .*not a PNG, JPEG or WebP"):
        monkeypatch.setenv("KILN_API_KEY", "sbx_live_whatever00000000")
        blender.ops.kiln.generate_from_image(filepath=__file__)
    assert service.submit_attempts == 0


def test_online_access_off_refuses_and_sends_nothing(service: Any, offline: Any) -> None:
    with pytest.raises(RuntimeError, match=r"(?i)online access"):
        offline.ops.kiln.generate_from_text(prompt="a red chair")
    with pytest.raises(RuntimeError, match=r"(?i)online access"):
        offline.ops.kiln.generate_from_image(filepath=str(CONCEPTS / "chair.png"))
    assert service.requests == []


def test_ui_path_never_waits_on_the_main_thread(service: Any, blender: Any, kiln_module: Any) -> None:
    watcher = kiln_module("session.watcher")
    prompts = ["a red chair", "a blue mug", "a green tree", "a sword"]
    deadline = time.monotonic() + 90
    with main_thread_must_not_wait() as offences:
        for prompt in prompts:
            assert blender.ops.kiln.generate_from_text(prompt=prompt, wait=False) == {"FINISHED"}
        assert len(kiln_objects(blender)) == 0
        while len({o["kiln_prompt"] for o in kiln_objects(blender)}) < len(prompts):
            assert time.monotonic() < deadline, "jobs did not import in time"
            watcher.tick(blender.context)
            threading.Event().wait(0.05)
    assert offences == []
    assert service.submit_count == len(prompts)
    assert watcher.is_idle()


def test_a_file_load_while_a_job_runs_loses_nothing(
    blender: Any,
    fresh_jobs: Path,
    sandbox_factory: Any,
    sandbox_key: str,
    monkeypatch: Any,
    kiln_module: Any,
    tmp_path: Path,
) -> None:
    sandbox = sandbox_factory(speed=2.0)
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    watcher = kiln_module("session.watcher")
    scene_file = tmp_path / "scene.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(scene_file))
    blender.ops.kiln.generate_from_text(prompt="a wooden table", wait=False)
    blender.ops.wm.read_homefile(use_empty=True)
    assert blender.app.timers.is_registered(watcher.beat)
    engine = engine_of(kiln_module)
    assert [job.request.prompt for job in engine.jobs()] == ["a wooden table"]

    blender.ops.wm.open_mainfile(filepath=str(scene_file))
    assert engine.wait([engine.jobs()[0].id], timeout=60)
    watcher.tick(blender.context)
    assert [o["kiln_prompt"] for o in kiln_objects(blender)][:1] == ["a wooden table"]
    assert sandbox.submit_count == 1


def test_a_job_from_another_file_waits_for_an_explicit_import(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    watcher = kiln_module("session.watcher")
    blender.ops.kiln.generate_from_text(prompt="a rock", wait=False)
    engine = engine_of(kiln_module)
    job = engine.jobs()[0]
    blender.ops.wm.read_homefile(use_empty=True)
    assert engine.wait([job.id], timeout=60)
    messages = watcher.tick(blender.context)
    assert ("INFO", "Kiln: “a rock” is ready to import: press Import in the Kiln panel.") in messages
    assert kiln_objects(blender) == []
    assert watcher.is_idle()
    assert engine.get(job.id).state.value == "ready"
    assert blender.ops.kiln.import_job(job_id=job.id) == {"FINISHED"}
    assert kiln_objects(blender)


def test_the_preferences_ask_for_isolated_imports_and_the_bpy_module_has_no_helper_blender(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    config = kiln_module("preferences").service_config()
    assert config.import_in_place is False and config.large_import_triangles == 200_000
    assert blender.app.binary_path == "" and config.helper_command == ()
    command = kiln_module("api.isolation").helper_command(sys.executable)
    assert command == (), "the Python running the bpy module is not a Blender program"


def test_the_workers_settings_are_made_again_when_what_they_are_made_from_changes(
    service: Any, blender: Any, kiln_module: Any, monkeypatch: Any
) -> None:
    """Every beat asks for the workers' settings: the same snapshot while nothing changed, which the
    engine takes without its lock, and a new one after each change a setting can see."""
    preferences = kiln_module("preferences")
    prefs = preferences.get()
    config = preferences.service_config()
    assert preferences.service_config() is config
    changes = {
        "Jobs in Flight": lambda: setattr(prefs, "max_in_flight", prefs.max_in_flight + 1),
        "a key typed in": lambda: preferences.key_home("TRIPO").write("tsk_live_typed0000000000000"),
        "a key in the environment": lambda: monkeypatch.setenv("KILN_MESHY_API_KEY", "msy_from_env_00000"),
        "online access": lambda: setattr(blender.context.preferences.system, "use_online_access", False),
    }
    for change, make in changes.items():
        make()
        changed = preferences.service_config()
        assert changed is not config and changed != config, change
        config = changed
    assert config.account("TRIPO").api_key == "tsk_live_typed0000000000000"
    assert config.account("MESHY").api_key == "msy_from_env_00000"
    assert config.online is False
    preferences.key_home("TRIPO").write("")

    engine = engine_of(kiln_module)  # configured with the settings as they are now
    taken, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        with engine.scheduler._lock:
            taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert taken.wait(10)
        with main_thread_must_not_wait() as offences:
            start = time.monotonic()
            engine.configure(preferences.service_config())
            assert time.monotonic() - start < 1.0, "the same settings waited for the engine's lock"
        assert offences == []
    finally:
        release.set()
        holder.join()


def test_the_watcher_survives_an_unexpected_error_and_keeps_beating(
    service: Any, blender: Any, kiln_module: Any, caplog: Any, monkeypatch: Any
) -> None:
    watcher = kiln_module("session.watcher")
    blender.ops.kiln.generate_from_text(prompt="a mug", wait=False)
    engine = engine_of(kiln_module)
    assert engine.wait([engine.jobs()[0].id], timeout=60)

    def broken() -> None:
        raise RuntimeError("a bug in the engine")

    monkeypatch.setattr(engine, "drain_events", broken)
    next_beat = watcher.beat()
    # A timer function that raises is unregistered by Blender: the beat must return its interval.
    assert next_beat == watcher.BUSY_SECONDS
    assert watcher.UNEXPECTED_ERROR in caplog.text
    assert blender.app.timers.is_registered(watcher.beat)
