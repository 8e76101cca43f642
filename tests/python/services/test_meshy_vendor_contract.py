"""Meshy's own client against Kiln's Meshy stand-in, and its wire beside Kiln's, call by call.

Meshy publishes its client as the npm package ``@meshy-ai/meshy-mcp-server`` (version pinned in
requirements/node.txt, installed into .node/ by ``make``). It reads ``MESHY_API_KEY`` and
``MESHY_API_HOST`` (its ``dist/constants.js``, ``.env.example``), so pointed at the stand-in it makes a
text job (preview, then refine), an image job, a multi-image job and a retexture, polls each task
and reads the balance: every call must succeed, so the stand-in speaks the vendor's wire. Kiln's
Meshy client then makes the same jobs, and each field Kiln sends must be one the vendor's client
sends on the same call with the same JSON type, unless :data:`KEPT` lists it with its reason.
Upgrading the pinned version is how a change of Meshy's wire is found. Without npm the test skips
with a sentence.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.http.models import Task
from api.services import Order, make_client
from api.services.meshy.client import Client
from fixtures.concept_images import write_concept
from fixtures.vendor_wire import McpServer, fields, node_missing, node_package, unknown_fields
from sandbox.server import Sandbox

PACKAGE = "@meshy-ai/meshy-mcp-server"
VENDOR_KEY = "msy_live_vendorclient0"
KILN_KEY = "msy_live_kilnclient000"
POLL_LIMIT_SECONDS = 30.0

#: Each difference Kiln keeps on purpose from what Meshy's client sends: ``(call, field)`` → why.
#: ("*" as the field: a whole call the vendor's client does not make.) Kiln's fields not listed here
#: must be ones the vendor's client sends on the same call.
#: Today there is none. (Headers are not compared: Kiln also sends an ``Idempotency-Key``, which Meshy
#: does not document and ignores, so a retried submit can be recognised where a service does.)
KEPT: dict[tuple[str, str], str] = {}
#: What Meshy's client sends that Kiln leaves out, on purpose (Meshy's own defaults apply; not checked,
#: for the reader): ``moderation: false`` (Meshy's default is off too); ``remove_lighting`` (the MCP
#: server's default true is Meshy's default); ``enable_original_uv`` (default true, as Kiln wants);
#: ``ai_model`` on a retexture (Kiln sends none: Meshy's default model); ``should_texture`` when the
#: artist left Texture at its default (on, Meshy's default).


def _call_name(method: str, path: str, body: dict[str, Any] | None) -> str:
    """A call named alike for both clients: the path with the task id as {id}, a text job's mode."""
    path = re.sub(r"/[A-Za-z0-9_-]{8,}$", "/{id}", path) if path.count("/") > 3 else path
    mode = f" {body['mode']}" if body and isinstance(body.get("mode"), str) else ""
    return f"{method} {path}{mode}"


def _bodies(sandbox: Sandbox, key: str) -> list[dict[str, Any]]:
    """The request body of each task ``key`` made, in order (taken before a cancel deletes one)."""
    return [t.submit_body for t in list(sandbox.tasks.values()) if t.key == key]


def _wire(sandbox: Sandbox, key: str, since: int, made: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Every API call made with ``key`` since request ``since``: its name → its JSON fields and types.

    The stand-in records each request's method and path (sandbox/state.py) and keeps each task's
    request body (``made``); a POST is matched to the task it made, in order."""
    bodies = iter(made)
    calls: dict[str, dict[str, str]] = {}
    for seen in sandbox.requests[since:]:
        if not seen.path.startswith("/openapi/") or seen.headers.get("Authorization") != f"Bearer {key}":
            continue
        body = next(bodies, None) if seen.method == "POST" and seen.status < 300 else None
        name = _call_name(seen.method, seen.path, body)
        calls.setdefault(name, {}).update(fields(body or {}))
    return calls


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="meshy", keys=[VENDOR_KEY, KILN_KEY], speed=50.0, credits=100_000) as sb:
        yield sb


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("meshy-vendor")
    return write_concept(folder, "chair", "png"), write_concept(folder, "teapot", "png")


@pytest.fixture(scope="module")
def vendor(
    sandbox: Sandbox, images: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """Meshy's client runs every job it offers Kiln's kinds of; what it sent, by call."""
    missing = node_missing(PACKAGE)
    if missing:
        pytest.skip(missing)
    package = node_package(PACKAGE)
    assert package is not None
    env = {"MESHY_API_KEY": VENDOR_KEY, "MESHY_API_HOST": sandbox.base_url, "TRANSPORT": "stdio"}
    since = len(sandbox.requests)
    front, side = images
    with McpServer(package / "dist" / "index.js", env, cwd=tmp_path_factory.mktemp("mcp")) as mcp:
        mesh = {"topology": "quad", "target_polycount": 5000, "should_remesh": True}
        preview = mcp.call(
            "meshy_text_to_3d", prompt="a vase", ai_model="meshy-6", response_format="json", **mesh
        )
        preview_id = _task_id(preview)
        _wait_vendor(mcp, preview_id, "text-to-3d")
        refine = mcp.call(
            "meshy_text_to_3d_refine",
            preview_task_id=preview_id,
            ai_model="meshy-6",
            enable_pbr=True,
            response_format="json",
        )
        _wait_vendor(mcp, _task_id(refine), "text-to-3d")
        image = mcp.call(
            "meshy_image_to_3d",
            file_path=str(front),
            ai_model="meshy-6",
            should_texture=True,
            enable_pbr=True,
            response_format="json",
            **mesh,
        )
        _wait_vendor(mcp, _task_id(image), "image-to-3d")
        multi = mcp.call(
            "meshy_multi_image_to_3d",
            file_paths=[str(front), str(side)],
            ai_model="meshy-6",
            should_texture=True,
            enable_pbr=True,
            response_format="json",
            **mesh,
        )
        _wait_vendor(mcp, _task_id(multi), "multi-image-to-3d")
        glb = f"{sandbox.base_url}/files/{preview_id}.glb"
        retexture = mcp.call(
            "meshy_retexture",
            model_url=glb,
            text_style_prompt="rusty metal",
            enable_pbr=True,
            response_format="json",
        )
        _wait_vendor(mcp, _task_id(retexture), "retexture")
        balance = mcp.call("meshy_check_balance", response_format="json")
        made = _bodies(sandbox, VENDOR_KEY)
        mcp.call("meshy_cancel_task", task_id=preview_id, task_type="text-to-3d")
    return {"wire": _wire(sandbox, VENDOR_KEY, since, made), "balance": balance}


def _task_id(answer: dict[str, Any]) -> str:
    task_id = answer.get("task_id")
    assert isinstance(task_id, str) and task_id, f"no task id in the vendor's answer: {answer}"
    return task_id


def _wait_vendor(mcp: McpServer, task_id: str, task_type: str) -> None:
    deadline = time.monotonic() + POLL_LIMIT_SECONDS
    while True:
        answer = mcp.call(
            "meshy_get_task_status", task_id=task_id, task_type=task_type, wait=False, response_format="json"
        )
        if answer.get("status") == "SUCCEEDED":
            return
        assert answer.get("status") not in ("FAILED", "CANCELED"), answer
        assert time.monotonic() < deadline, f"the vendor's task {task_id} never ended"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def kiln(
    sandbox: Sandbox, images: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, str]]:
    """Kiln's Meshy client makes the same jobs with the same choices; what it sent, by call."""
    since = len(sandbox.requests)
    front, side = images
    options: dict[str, object] = {"quad": True, "polygons": 5000, "pbr": True}
    made = make_client("MESHY", sandbox.base_url, KILN_KEY)
    assert isinstance(made, Client)
    with made as client:
        preview = _wait(
            client, client.submit(Order(kind="text", prompt="a vase", options=options), idempotency_key="p")
        )
        refine = Order(kind="text", prompt="a vase", options=options, stage=1, previous_task_id=preview.id)
        _wait(client, client.submit(refine, idempotency_key="r"))
        _wait(
            client,
            client.submit(Order(kind="image", image_path=str(front), options=options), idempotency_key="i"),
        )
        multi = Order(kind="image", image_path=str(front), views=(str(side),), options=options)
        _wait(client, client.submit(multi, idempotency_key="m"))
        mesh = tmp_path_factory.mktemp("kiln-mesh") / "vase.glb"
        assert preview.result is not None and preview.result.mesh_url
        client.download(preview.result.mesh_url, mesh)
        retexture = Order(kind="retexture", prompt="rusty metal", model_path=str(mesh), options={"pbr": True})
        _wait(client, client.submit(retexture, idempotency_key="t"))
        client.check_connection()
        made = _bodies(sandbox, KILN_KEY)
        client.cancel_task(preview.id, handle=preview.handle)
    return _wire(sandbox, KILN_KEY, since, made)


def _wait(client: Client, task: Task) -> Task:
    deadline = time.monotonic() + POLL_LIMIT_SECONDS
    while not task.is_final:
        assert time.monotonic() < deadline, f"task {task.id} never ended"
        time.sleep(0.05)
        task = client.get_task(task.id, handle=task.handle)
    return task


# ---------------------------------------------------------------------- the tests


def test_every_call_of_meshys_own_client_succeeds_on_the_stand_in(vendor: dict[str, Any]) -> None:
    """The stand-in answers Meshy's client as Meshy does: jobs made, polled, the balance read."""
    wire = vendor["wire"]
    for call in (
        "GET /openapi/v2/text-to-3d",  # the MCP server checks its key with a list call at start
        "POST /openapi/v2/text-to-3d preview",
        "POST /openapi/v2/text-to-3d refine",
        "POST /openapi/v1/image-to-3d",
        "POST /openapi/v1/multi-image-to-3d",
        "POST /openapi/v1/retexture",
        "GET /openapi/v1/image-to-3d/{id}",
        "GET /openapi/v1/balance",
        "DELETE /openapi/v2/text-to-3d/{id}",
    ):
        assert call in wire, f"{call} not made; made: {sorted(wire)}"
    assert isinstance(vendor["balance"].get("balance"), int)


def test_each_field_kiln_sends_is_one_meshys_client_sends(
    vendor: dict[str, Any], kiln: dict[str, dict[str, str]]
) -> None:
    """Call by call (method, path, mode), each field Kiln sends has the vendor's name and JSON type."""
    assert unknown_fields(kiln, vendor["wire"], KEPT) == []
    # Kiln makes the calls it should, and never the deprecated style.
    assert {
        "POST /openapi/v2/text-to-3d preview",
        "POST /openapi/v2/text-to-3d refine",
        "GET /openapi/v1/balance",
    } <= set(kiln)
    assert all("art_style" not in sent for sent in kiln.values())


def test_the_comparison_catches_a_field_meshys_client_does_not_send(vendor: dict[str, Any]) -> None:
    """The comparison can fail: a deprecated ``art_style`` (or a number sent as text) is caught."""
    preview = "POST /openapi/v2/text-to-3d preview"
    sent = {preview: {**vendor["wire"][preview], "art_style": "string", "target_polycount": "string"}}
    problems = unknown_fields(sent, vendor["wire"], KEPT)
    assert len(problems) == 2 and "art_style" in problems[0] + problems[1]
    assert unknown_fields({"POST /openapi/v9/gone": {}}, vendor["wire"], KEPT)
