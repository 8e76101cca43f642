"""The sandbox speaks the service interface: every field, its type and place, over real HTTP."""

from __future__ import annotations

import hashlib
import io
import re
import time
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
import trimesh
from concepts import CONCEPTS
from PIL import Image
from sandbox_http import (
    LoopbackPeer,
    assert_error,
    auth,
    picture,
    run_text,
    submit_image,
    submit_text,
    wait_final,
)
from trimesh.visual import TextureVisuals
from trimesh.visual.material import PBRMaterial

from sandbox.glb import glb_triangles
from sandbox.samples import FOLDER as SAMPLES_FOLDER
from sandbox.state import forget_built

ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
RESULT_KEYS = {"mesh_url", "preview_image_url", "format", "triangles"}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _download(url: str) -> bytes:
    response = requests.get(url, timeout=10)  # no Authorization: result links work like signed CDN links
    assert response.status_code == 200, response.text
    return response.content


def _load_glb(data: bytes) -> trimesh.Trimesh:
    mesh = trimesh.load(io.BytesIO(data), file_type="glb", force="mesh", process=False)
    assert isinstance(mesh, trimesh.Trimesh)
    return mesh


def _texture(mesh: trimesh.Trimesh) -> Image.Image:
    assert isinstance(mesh.visual, TextureVisuals)
    material = mesh.visual.material
    assert isinstance(material, PBRMaterial) and material.baseColorTexture is not None
    return material.baseColorTexture


def test_text_submit_has_exactly_the_spec_fields(sandbox, sandbox_key):
    response = submit_text(sandbox.base_url, sandbox_key, "a wooden chair")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"id", "status", "resolution", "links"}
    assert isinstance(body["id"], str) and body["id"]
    assert body["status"] == "queued"
    assert _is_int(body["resolution"]) and body["resolution"] == 1024  # documented text default
    assert set(body["links"]) == {"poll"}
    assert body["links"]["poll"] == f"{sandbox.base_url}/v1/3d/tasks/{body['id']}"


def test_text_submit_echoes_resolution_and_accepts_image_model(sandbox, sandbox_key):
    response = submit_text(
        sandbox.base_url,
        sandbox_key,
        "a lamp",
        resolution=1536,
        image_model={"provider": "any-provider", "quality": "high"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["resolution"] == 1536


def test_image_submit_has_exactly_the_spec_fields(sandbox, sandbox_key):
    before = datetime.now(UTC).replace(microsecond=0)
    response = submit_image(sandbox.base_url, sandbox_key)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"id", "status", "resolution", "created_at", "eta_seconds", "links"}
    assert body["status"] == "queued"
    assert body["resolution"] == 1536  # spec default
    assert ISO_UTC.match(body["created_at"])
    created = datetime.strptime(body["created_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= created <= datetime.now(UTC)
    assert _is_int(body["eta_seconds"]) and body["eta_seconds"] >= 1
    assert body["links"] == {"poll": f"{sandbox.base_url}/v1/3d/tasks/{body['id']}"}


def test_image_submit_by_json_image_url_from_loopback(sandbox, sandbox_key):
    with LoopbackPeer(content=picture("JPEG")) as peer:
        response = requests.post(
            f"{sandbox.base_url}/v1/3d/image-to-3d",
            json={"image_url": f"{peer.url}/concept.jpg", "resolution": 1024},
            headers=auth(sandbox_key),
            timeout=10,
        )
    assert response.status_code == 200, response.text
    assert response.json()["resolution"] == 1024
    final = wait_final(response.json()["links"]["poll"], sandbox_key)
    assert final["status"] == "completed"


def test_lifecycle_queued_running_completed(sandbox_factory, sandbox_key):
    sandbox = sandbox_factory(speed=5.0)  # a text task takes ~1 s: slow enough to see every state
    poll = submit_text(sandbox.base_url, sandbox_key, "a tree").json()["links"]["poll"]
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        body = requests.get(poll, headers=auth(sandbox_key), timeout=10).json()
        seen.append(body)
        if body["status"] == "completed":
            break
        time.sleep(0.02)
    statuses = [body["status"] for body in seen]
    assert statuses[0] == "queued" and seen[0]["progress"] == 0
    assert "running" in statuses and statuses[-1] == "completed"
    order = {"queued": 0, "running": 1, "completed": 2}
    assert [order[s] for s in statuses] == sorted(order[s] for s in statuses)
    progress = [body["progress"] for body in seen]
    assert progress == sorted(progress), "progress must never go back"
    running = [body["progress"] for body in seen if body["status"] == "running"]
    assert all(1 <= p <= 99 for p in running) and len(set(running)) > 1, "progress rises while running"
    for body in seen[:-1]:
        assert set(body) == {"id", "status", "progress"}
        assert _is_int(body["progress"])
    final = seen[-1]
    assert set(final) == {"id", "status", "progress", "result"}
    assert final["progress"] == 100
    assert set(final["result"]) == RESULT_KEYS
    assert final["result"]["format"] == "glb"
    assert _is_int(final["result"]["triangles"])


@pytest.mark.parametrize("kind", ["text", "image"])
def test_triangles_match_the_served_glb_and_preview_is_png(sandbox, sandbox_key, kind):
    if kind == "text":
        final = run_text(sandbox.base_url, sandbox_key, "a red mug")
    else:
        final = wait_final(submit_image(sandbox.base_url, sandbox_key).json()["links"]["poll"], sandbox_key)
    result = final["result"]
    glb = _download(result["mesh_url"])
    assert glb[:4] == b"glTF" and int.from_bytes(glb[4:8], "little") == 2
    assert int.from_bytes(glb[8:12], "little") == len(glb)
    mesh = _load_glb(glb)
    assert len(mesh.faces) == result["triangles"] == glb_triangles(glb)
    assert 1000 <= result["triangles"] <= 200_000
    preview = Image.open(io.BytesIO(_download(result["preview_image_url"])))
    preview.load()
    assert preview.format == "PNG"
    assert preview.size == (256, 256)
    assert preview.getbbox() is not None, "the preview shows something"


def test_resolution_1536_has_at_least_twice_the_triangles(sandbox, sandbox_key):
    counts = {}
    for resolution in (1024, 1536):
        text = run_text(sandbox.base_url, sandbox_key, "a stone house", resolution=resolution)
        image = wait_final(
            submit_image(sandbox.base_url, sandbox_key, resolution=resolution).json()["links"]["poll"],
            sandbox_key,
        )
        counts[resolution] = (text["result"]["triangles"], image["result"]["triangles"])
    assert counts[1536][0] >= 2 * counts[1024][0]
    assert counts[1536][1] >= 2 * counts[1024][1]


def test_same_prompt_gives_the_same_mesh_and_words_pick_the_object(sandbox, sandbox_key):
    def mesh_hash(prompt: str) -> str:
        forget_built()  # built afresh each time: the generator's own determinism is what is tested
        return hashlib.sha256(
            _download(run_text(sandbox.base_url, sandbox_key, prompt)["result"]["mesh_url"])
        ).hexdigest()

    assert mesh_hash("an old sword") == mesh_hash("an old sword")
    shapes = {
        mesh_hash(p)
        for p in ("a chair", "a table", "a mug", "a tree", "a rock", "a lamp", "a sword", "a house")
    }
    assert len(shapes) == 8
    assert mesh_hash("zorblax") == mesh_hash("zorblax")
    assert mesh_hash("zorblax") != mesh_hash("quintessence")


def _colours(image: Image.Image) -> set[Any]:
    counted = image.convert("RGB").getcolors(1 << 24)
    assert counted is not None
    return {colour for _count, colour in counted}


def _texture_colours(glb: bytes) -> set[Any]:
    return _colours(_texture(_load_glb(glb)))


def test_colour_words_tint_the_object(sandbox, sandbox_key):
    red = _download(run_text(sandbox.base_url, sandbox_key, "a red chair")["result"]["mesh_url"])
    blue = _download(run_text(sandbox.base_url, sandbox_key, "a blue chair")["result"]["mesh_url"])
    assert (200, 40, 40) in _texture_colours(red)
    assert (40, 80, 200) in _texture_colours(blue)
    assert (200, 40, 40) not in _texture_colours(blue)
    # Same shape, only the colour differs.
    assert len(_load_glb(red).faces) == len(_load_glb(blue).faces)


def test_image_mesh_is_textured_with_the_picture(sandbox, sandbox_key):
    wide, tall = picture(size=(200, 80)), picture(size=(80, 200))
    results = {}
    for name, data in (("wide", wide), ("tall", tall)):
        poll = submit_image(sandbox.base_url, sandbox_key, data, resolution=1024).json()["links"]["poll"]
        results[name] = _load_glb(_download(wait_final(poll, sandbox_key)["result"]["mesh_url"]))
    texture = _texture(results["wide"])
    assert texture.size == (200, 80)
    assert {(200, 30, 30), (30, 30, 200)} <= _colours(texture)
    # glTF is Y-up: the silhouette's proportions survive (width along X, height along Y).
    wide_extent, tall_extent = results["wide"].extents, results["tall"].extents
    assert wide_extent[0] > wide_extent[1] and tall_extent[1] > tall_extent[0]


def test_sample_chair_upload_completes(sandbox, sandbox_key):
    response = submit_image(sandbox.base_url, sandbox_key, (CONCEPTS / "chair.png").read_bytes(), "chair.png")
    final = wait_final(response.json()["links"]["poll"], sandbox_key)
    assert final["status"] == "completed"
    assert len(_load_glb(_download(final["result"]["mesh_url"])).faces) == final["result"]["triangles"]


def test_forced_final_states(sandbox_factory, sandbox_key):
    sandbox = sandbox_factory(speed=0.01)  # would take minutes on its own
    done = submit_text(sandbox.base_url, sandbox_key, "a rock").json()
    doomed = submit_text(sandbox.base_url, sandbox_key, "a rock").json()
    assert sandbox.tasks[done["id"]].status == "queued"
    sandbox.complete_now(done["id"])
    sandbox.fail_now(doomed["id"], {"code": "boom", "message": "forced"})
    assert (
        requests.get(done["links"]["poll"], headers=auth(sandbox_key), timeout=10).json()["status"]
        == "completed"
    )
    failed = requests.get(doomed["links"]["poll"], headers=auth(sandbox_key), timeout=10).json()
    assert set(failed) == {"id", "status", "progress", "error"}
    assert failed["status"] == "failed" and failed["error"] == {"code": "boom", "message": "forced"}
    assert sandbox.tasks[doomed["id"]].status == "failed"


def test_unknown_task_and_other_keys_task_are_404(sandbox_factory, sandbox_key):
    other = "sbx_live_otherkey0000000"
    sandbox = sandbox_factory(keys=[sandbox_key, other])
    poll = submit_text(sandbox.base_url, sandbox_key).json()["links"]["poll"]
    assert_error(
        requests.get(f"{sandbox.base_url}/v1/3d/tasks/nope", headers=auth(sandbox_key)), 404, "task_not_found"
    )
    assert_error(requests.get(poll, headers=auth(other), timeout=10), 404, "task_not_found")


def test_openapi_documents_the_endpoints(sandbox):
    spec = requests.get(f"{sandbox.base_url}/openapi.json", timeout=10).json()
    assert {"/v1/3d/text-to-3d", "/v1/3d/image-to-3d", "/v1/3d/tasks/{task_id}"} <= set(spec["paths"])
    image_body = spec["paths"]["/v1/3d/image-to-3d"]["post"]["requestBody"]["content"]
    assert {"application/json", "multipart/form-data"} <= set(image_body)
    assert requests.get(f"{sandbox.base_url}/docs", timeout=10).status_code == 200


def test_a_treasure_chest_is_the_sample_blender_exported(sandbox, sandbox_key):
    """The modelled chest, byte for byte, with its baked wood texture and a preview of it."""

    def mesh(prompt: str) -> bytes:
        return _download(run_text(sandbox.base_url, sandbox_key, prompt)["result"]["mesh_url"])

    result = run_text(sandbox.base_url, sandbox_key, "a weathered oak treasure chest with iron bands")
    result = result["result"]
    data = _download(result["mesh_url"])
    assert data == (SAMPLES_FOLDER / "treasure-chest.glb").read_bytes()
    assert result["triangles"] == glb_triangles(data) > 1000
    assert _texture(_load_glb(data)).size == (1024, 1024)
    assert Image.open(io.BytesIO(_download(result["preview_image_url"]))).size == (256, 256)
    assert mesh("two chests") == data
    assert mesh("a chest on a table") != data
