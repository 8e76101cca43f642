"""What each service can do beyond one prompt, inside Blender against each service's stand-in:
several views of one object, the options under their documented fields, re-texturing the selected
mesh (the result beside the original, which stays as it was), and Cancel reaching Meshy.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS

from sandbox.server import Sandbox

KEYS = {
    "TRIPO": ("tripo", "tsk_live_canblendertripo0", "KILN_TRIPO_BASE_URL", "KILN_TRIPO_API_KEY"),
    "MESHY": ("meshy", "msy_live_canblendermeshy0", "KILN_MESHY_BASE_URL", "KILN_MESHY_API_KEY"),
    "RODIN": ("rodin", "rodin_live_canblenderrodin", "KILN_RODIN_BASE_URL", "KILN_RODIN_API_KEY"),
}


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    started = {
        sid: Sandbox(service=standin, keys=[key], speed=50.0, credits=100_000).start()
        for sid, (standin, key, _base, _env) in KEYS.items()
    }
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture
def services(
    blender: Any, fresh_jobs: Path, stand_ins: dict[str, Sandbox], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Sandbox]:
    for sid, (_standin, key, base_env, key_env) in KEYS.items():
        monkeypatch.setenv(base_env, stand_ins[sid].base_url)
        monkeypatch.setenv(key_env, key)
    for server in stand_ins.values():
        server.requests.clear()
    return stand_ins


def posted(server: Sandbox, word: str) -> list[Any]:
    return [r for r in server.requests if r.method == "POST" and word in r.path]


def last_body(server: Sandbox) -> dict[str, Any]:
    task = list(server.tasks.values())[-1]  # the newest (creation times are whole seconds)
    body = task.submit_body
    assert isinstance(body, dict)
    return body


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def test_views_reach_meshy_as_image_urls_with_a_missing_view_left_out(
    services: dict[str, Sandbox], blender: Any
) -> None:
    front, side = CONCEPTS / "chair.png", CONCEPTS / "teapot.png"
    result = blender.ops.kiln.generate_from_views(front=str(front), right=str(side), service="MESHY")
    assert result == {"FINISHED"}
    assert posted(services["MESHY"], "multi-image-to-3d")
    urls = last_body(services["MESHY"])["image_urls"]
    assert len(urls) == 2 and all(url.startswith("data:image/png;base64,") for url in urls)
    assert kiln_objects(blender)


def test_views_reach_tripo_in_its_four_slots(services: dict[str, Sandbox], blender: Any) -> None:
    front, back = CONCEPTS / "chair.png", CONCEPTS / "teapot.png"
    image = blender.data.images.load(str(back))
    result = blender.ops.kiln.generate_from_views(front=str(front), back=image.name, service="TRIPO")
    assert result == {"FINISHED"}
    assert ("POST", "/v3/generation/multiview-to-model") in {
        (r.method, r.path) for r in services["TRIPO"].requests
    }
    # API v3: [front, left, back, right], null where a view is missing (tripo3d multiview_to_model).
    slots = last_body(services["TRIPO"])["inputs"]
    assert len(slots) == 4 and slots[0] and slots[2] and slots[1] is None and slots[3] is None


def test_several_views_on_a_service_of_one_image_are_refused_with_nothing_sent(
    blender: Any, fresh_jobs: Path, sandbox: Any, sandbox_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    sandbox.requests.clear()
    with pytest.raises(RuntimeError, match="one image"):
        blender.ops.kiln.generate_from_views(
            front=str(CONCEPTS / "chair.png"), back=str(CONCEPTS / "teapot.png"), service="INTERFACE"
        )
    assert not [r for r in sandbox.requests if r.method == "POST"]


@pytest.mark.parametrize(
    ("service", "options", "fields"),
    [
        ("MESHY", {"pbr": True, "quad": True, "polygons": 5000}, {"enable_pbr": True, "topology": "quad"}),
        ("TRIPO", {"pbr": False, "polygons": 5000, "texture": False}, {"face_limit": 5000, "texture": False}),
        (
            "RODIN",
            {"pbr": False, "quad": True, "polygons": 5000},
            {"material": "Shaded", "mesh_mode": "Quad"},
        ),
    ],
)
def test_each_option_reaches_the_service_under_its_documented_field(
    services: dict[str, Sandbox], blender: Any, service: str, options: dict[str, Any], fields: dict[str, Any]
) -> None:
    image = str(CONCEPTS / "chair.png")
    assert blender.ops.kiln.generate_from_image(filepath=image, service=service, **options) == {"FINISHED"}
    body = last_body(services[service])
    received = body.get("received", body)
    for name, value in fields.items():
        assert str(received[name]).lower() == str(value).lower(), name


@pytest.mark.parametrize(("service", "option"), [("TRIPO", "quad"), ("RODIN", "texture")])
def test_an_option_the_service_lacks_is_refused_with_nothing_sent(
    services: dict[str, Sandbox], blender: Any, service: str, option: str
) -> None:
    with pytest.raises(RuntimeError, match=option):
        blender.ops.kiln.generate_from_text(prompt="a chair", service=service, **{option: False})
    assert not [r for r in services[service].requests if r.method == "POST"]


def test_a_retextured_mesh_lands_beside_the_original_which_is_unchanged(
    services: dict[str, Sandbox], blender: Any
) -> None:
    blender.ops.mesh.primitive_cube_add(location=(2.0, 1.0, 0.5), size=2.0)
    original = blender.context.active_object
    original.name = "Crate"
    before = [tuple(v.co) for v in original.data.vertices]
    materials = list(original.data.materials)
    result = blender.ops.kiln.retexture_selected(prompt="rusty metal", service="MESHY", pbr=True)
    assert result == {"FINISHED"}
    body = last_body(services["MESHY"])
    assert body["text_style_prompt"] == "rusty metal" and body["enable_pbr"] is True
    assert body["model_url"].startswith("data:application/octet-stream;base64,")
    made = [obj for obj in kiln_objects(blender) if obj.get("kiln_retexture_of") == "Crate"]
    assert made
    assert blender.data.objects["Crate"] is original
    assert [tuple(v.co) for v in original.data.vertices] == before
    assert list(original.data.materials) == materials
    assert tuple(original.location) == (2.0, 1.0, 0.5)
    root = next(obj for obj in made if obj.parent is None)
    assert root.location.x == pytest.approx(4.0)


def test_retexture_is_refused_where_the_service_has_none(services: dict[str, Sandbox], blender: Any) -> None:
    blender.ops.mesh.primitive_cube_add()
    with pytest.raises(RuntimeError, match="re-texture"):
        blender.ops.kiln.retexture_selected(prompt="rusty metal", service="RODIN")
    assert not services["RODIN"].requests


def test_tripo_retextures_by_importing_the_mesh_then_texturing_it(
    services: dict[str, Sandbox], blender: Any
) -> None:
    blender.ops.mesh.primitive_cube_add(location=(2.0, 1.0, 0.5), size=2.0)
    original = blender.context.active_object
    original.name = "Barrel"
    result = blender.ops.kiln.retexture_selected(prompt="rusty metal", service="TRIPO", pbr=False)
    assert result == {"FINISHED"}
    sent = [r.path for r in services["TRIPO"].requests if r.method == "POST"]
    # API v3 (tripo3d import_model, texture_model): upload, import, then texture the import.
    assert sent[-3:] == ["/v3/files", "/v3/models/import", "/v3/models/texture"]
    body = last_body(services["TRIPO"])
    assert body["texture_prompt"] == {"text": "rusty metal"} and body["pbr"] is False
    assert [obj for obj in kiln_objects(blender) if obj.get("kiln_retexture_of") == "Barrel"]


def test_a_mesh_too_large_for_the_service_is_refused_before_anything_is_sent(
    services: dict[str, Sandbox], blender: Any, kiln_module: Any
) -> None:
    meshy = kiln_module("api.services").info("MESHY")
    kept = meshy.capabilities
    object.__setattr__(meshy, "capabilities", dataclasses.replace(kept, retexture_max_bytes=100))
    try:
        blender.ops.mesh.primitive_cube_add()
        with pytest.raises(RuntimeError, match="more than"):
            blender.ops.kiln.retexture_selected(prompt="rusty metal", service="MESHY")
    finally:
        object.__setattr__(meshy, "capabilities", kept)
    assert not services["MESHY"].requests


def wait_for(check: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_cancel_job_deletes_the_task_on_meshy_and_says_so(
    blender: Any, fresh_jobs: Path, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _standin, key, base_env, key_env = KEYS["MESHY"]
    with Sandbox(service="meshy", keys=[key], speed=0.01, credits=1000) as server:
        monkeypatch.setenv(base_env, server.base_url)
        monkeypatch.setenv(key_env, key)
        blender.ops.kiln.generate_from_text(prompt="a lamp", service="MESHY", wait=False)
        engine = kiln_module("session.runtime").engine()
        job = engine.jobs()[-1]
        assert wait_for(lambda: bool(engine.get(job.id).task_id))
        assert blender.ops.kiln.cancel_job(job_id=job.id) == {"FINISHED"}
        assert wait_for(lambda: "Cancelled on Meshy" in engine.get(job.id).note)
        assert engine.get(job.id).state.value == "cancelled"
        assert [r for r in server.requests if r.method == "DELETE"]


def test_stop_waiting_elsewhere_keeps_saying_the_service_may_charge(
    blender: Any, fresh_jobs: Path, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _standin, key, base_env, key_env = KEYS["TRIPO"]
    with Sandbox(service="tripo", keys=[key], speed=0.01, credits=1000) as server:
        monkeypatch.setenv(base_env, server.base_url)
        monkeypatch.setenv(key_env, key)
        blender.ops.kiln.generate_from_text(prompt="a lamp", service="TRIPO", wait=False)
        engine = kiln_module("session.runtime").engine()
        job = engine.jobs()[-1]
        assert wait_for(lambda: bool(engine.get(job.id).task_id))
        assert blender.ops.kiln.cancel_job(job_id=job.id) == {"FINISHED"}
        assert "may still finish" in engine.get(job.id).note
        assert not [r for r in server.requests if r.method == "DELETE"]
