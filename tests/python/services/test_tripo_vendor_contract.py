"""Tripo's own client, ``tripo3d`` (pinned in requirements/dev.txt), against Kiln's Tripo stand-in.

The SDK is the freshest statement of Tripo's wire. It runs here on loopback against
``sandbox/standins/tripo.py`` (``TripoClient(v3_base_url=…)``), making every call Kiln makes — upload
(multipart, and the presigned PUT the SDK uses for large files), text, image (a file and an
address), multiview, re-texture (import, then texture), polling until success, balance,
download — and each must succeed: the stand-in speaks the SDK's wire. Then Kiln makes the same
jobs, and what each sent (method, path, JSON field names and their value types, as the stand-in
recorded them) is compared: a field Kiln sends that the SDK never sends fails the test, unless
``KILN_ONLY`` lists it with its reason. Upgrading the pinned SDK is how a change of Tripo's wire is
found.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("TRIPO_DISABLE_GEO_DETECTION", "1")  # the SDK looks up the caller's country on import

from tripo3d import TaskStatus, TripoAPIError, TripoClient

from api.http.models import Task
from api.services import Order, make_client
from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

KEY = "tsk_live_tripocontract00"

#: Fields Kiln sends that the SDK, for the same job, does not: (path, field) → why Kiln keeps it.
KILN_ONLY: dict[tuple[str, str], str] = {}

#: Headers Kiln sends that the SDK does not (they are not JSON fields, listed for the record).
KILN_ONLY_HEADERS = {
    "idempotency-key": "every Kiln submit carries one (api/http/client.py); Tripo ignores it",
    "accept-encoding": "requests asks for gzip; an answer is still capped as read (api/http/transport.py)",
}

_TASK = re.compile(r"/v3/tasks/[^/]+$")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(service="tripo", keys=[KEY], speed=50.0, credits=100_000) as sb:
        yield sb


def shape(value: object) -> str:
    """A JSON value's type as a word (a list by the types of its items, an object by its fields')."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array of " + "|".join(sorted({shape(item) for item in value}))
    if isinstance(value, dict):
        return "object {" + ", ".join(f"{k}: {shape(v)}" for k, v in sorted(value.items())) + "}"
    return type(value).__name__


def calls(sandbox: Sandbox, start: int) -> set[tuple[str, str]]:
    """(method, path) of the API calls since ``start``, a task's id written ``{task_id}``."""
    seen = set()
    for record in sandbox.requests[start:]:
        if record.path.startswith(("/files/", "/uploads/")):
            continue
        seen.add((record.method, _TASK.sub("/v3/tasks/{task_id}", record.path)))
    return seen


def fields(sandbox: Sandbox, task_ids: list[str]) -> dict[str, dict[str, set[str]]]:
    """Generation path → field → the value types sent, over the tasks ``task_ids`` made."""
    out: dict[str, dict[str, set[str]]] = {}
    paths = {
        "texture_prompt": "/v3/models/texture",
        "prompt": "/v3/generation/text-to-model",
        "inputs": "/v3/generation/multiview-to-model",
    }
    for task_id in task_ids:
        body = sandbox.tasks[task_id].submit_body
        path = next((p for k, p in paths.items() if k in body), "")
        if not path:  # an image job's input is a file_token or an address; an import's, an uploaded mesh's
            path = "/v3/models/import" if set(body) == {"input"} else "/v3/generation/image-to-model"
        for name, value in body.items():
            out.setdefault(path, {}).setdefault(name, set()).add(shape(value))
    return out


async def vendor_jobs(sandbox: Sandbox, tmp_path: Path) -> tuple[list[str], int]:
    """The SDK's run: every call Kiln makes, each one asserted to succeed. Returns its task ids."""
    client = TripoClient(api_key=KEY, v3_base_url=sandbox.base_url)
    front, back, right = (write_concept(tmp_path / name, "robot") for name in ("front", "back", "right"))
    balance = await client.get_balance()
    assert balance.balance == sandbox.credits_left(KEY) and balance.frozen == 0
    token = (await client.upload_file(str(front)))["file_token"]
    client.MULTIPART_MAX_BYTES = 0  # a "large" file: the SDK presigns, then PUTs to the CDN host
    presigned = (await client.upload_file(str(back)))["file_token"]
    client.MULTIPART_MAX_BYTES = TripoClient.MULTIPART_MAX_BYTES
    task_ids = [
        await client.text_to_model(prompt="a red chair"),
        await client.text_to_model(
            prompt="a lamp",
            model_version="v3.1-20260211",
            texture=False,
            pbr=False,
            texture_quality="detailed",
            face_limit=5000,
        ),
        await client.text_to_model(prompt="a rock", model_version="P1-20260311"),
        await client.image_to_model(image=token, model_version="v3.1-20260211", texture_quality="detailed"),
        await client.image_to_model(image=presigned, model_version="v3.1-20260211"),
        await client.image_to_model(image=str(right), model_version="v3.1-20260211"),
        await client.multiview_to_model(
            images=[str(front), None, str(back), str(right)],
            model_version="v3.1-20260211",
            texture_quality="detailed",
        ),
    ]
    for task_id in task_ids:
        task = await client.wait_for_task(task_id, polling_interval=0.1, timeout=60)
        assert task.status is TaskStatus.SUCCESS, (task_id, task.status)
        assert task.output.model_url and task.output.rendered_image_url
    first = await client.get_task(task_ids[0])
    address = first.output.rendered_image_url
    assert address is not None
    by_address = await client.image_to_model(image=address, model_version="v3.1-20260211")
    task_ids.append(by_address)
    done = await client.wait_for_task(by_address, polling_interval=0.1, timeout=60)
    files = await client.download_task_models(done, str(tmp_path))
    assert files["model"] and Path(files["model"]).stat().st_size > 0
    assert files["rendered_image"] and Path(files["rendered_image"]).stat().st_size > 0
    imported = await client.import_model(files["model"])
    assert (
        await client.wait_for_task(imported, polling_interval=0.1, timeout=60)
    ).status is TaskStatus.SUCCESS
    task_ids.append(imported)
    for style in ({"text_prompt": "rusty metal", "pbr": False}, {"image_prompt": str(front)}):
        textured = await client.texture_model(imported, **style)
        assert (
            await client.wait_for_task(textured, polling_interval=0.1, timeout=60)
        ).status is TaskStatus.SUCCESS
        task_ids.append(textured)
    with pytest.raises(TripoAPIError) as unknown:
        await client.get_task("no-such-task")
    assert unknown.value.code == 2001
    await client.close()
    return task_ids, len(sandbox.requests)


def kiln_jobs(sandbox: Sandbox, tmp_path: Path) -> list[str]:
    """Kiln's run of the same jobs, through its Tripo client."""
    front, back, right = (write_concept(tmp_path / name, "robot") for name in ("kf", "kb", "kr"))
    made: list[Task] = []
    with make_client("TRIPO", sandbox.base_url, KEY) as client:
        client.check_connection()
        orders = [
            Order(kind="text", prompt="a red chair"),
            Order(
                kind="text",
                prompt="a lamp",
                tier="v3.1-detailed",
                options={"texture": False, "pbr": False, "polygons": 5000},
            ),
            Order(kind="text", prompt="a rock", tier="P1", options={"texture": True, "pbr": True}),
            Order(kind="image", image_path=str(front)),
            Order(kind="image", image_path=str(front), views=(str(back), "", str(right))),
        ]
        made = [client.submit(order, idempotency_key=f"k-{n}") for n, order in enumerate(orders)]
        done = [_finished(client, task) for task in made]
        preview = done[0].result.preview_image_url if done[0].result else None
        assert preview
        by_address = client.submit(Order(kind="image", image_url=preview), idempotency_key="k-url")
        made.append(by_address)
        last = _finished(client, by_address)
        assert last.result is not None and last.result.mesh_url
        mesh = client.download(last.result.mesh_url, tmp_path / "kiln.glb")
        for style in (
            Order(kind="retexture", prompt="rusty metal"),
            Order(kind="retexture", image_path=str(front)),
        ):
            retexture = replace(style, model_path=str(mesh), options={"pbr": False})
            imported = _finished(client, client.submit(retexture, idempotency_key=f"r-{len(made)}"))
            second = replace(retexture, stage=1, previous_task_id=imported.id)
            textured = _finished(client, client.submit(second, idempotency_key=f"r2-{len(made)}"))
            made += [imported, textured]
    return [task.id for task in made]


def _finished(client: Any, task: Task) -> Task:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        task = client.get_task(task.id, handle=task.handle)
        if task.raw_status not in ("queued", "running"):
            assert task.raw_status == "success", task
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task.id} did not finish")


def test_tripos_own_client_succeeds_on_the_stand_in_and_kiln_sends_nothing_it_does_not_know(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    start = len(sandbox.requests)
    vendor_ids, middle = asyncio.run(vendor_jobs(sandbox, tmp_path))
    vendor_calls = calls(sandbox, start)
    vendor_fields = fields(sandbox, vendor_ids)
    assert all(r.status < 400 for r in sandbox.requests[start:middle] if "no-such-task" not in r.path)

    kiln_ids = kiln_jobs(sandbox, tmp_path)
    kiln_calls = calls(sandbox, middle)
    kiln_fields = fields(sandbox, kiln_ids)

    assert kiln_calls <= vendor_calls, f"Kiln asks paths the SDK never does: {kiln_calls - vendor_calls}"
    assert (
        set(kiln_fields)
        == set(vendor_fields)
        == {
            "/v3/generation/text-to-model",
            "/v3/generation/image-to-model",
            "/v3/generation/multiview-to-model",
            "/v3/models/import",
            "/v3/models/texture",
        }
    )
    unknown = []
    for path, sent in kiln_fields.items():
        for name, types in sent.items():
            if (path, name) in KILN_ONLY:
                continue
            if name not in vendor_fields[path]:
                unknown.append(f"{path} {name}: the SDK never sends it")
            elif not types <= vendor_fields[path][name]:
                unknown.append(f"{path} {name}: Kiln sends {types}, the SDK {vendor_fields[path][name]}")
    assert not unknown, unknown
    for (path, name), why in KILN_ONLY.items():  # each listed difference is one Kiln still has
        assert name in kiln_fields.get(path, {}) and name not in vendor_fields.get(path, {}), why

    kiln_records = sandbox.requests[middle:]
    api = [r for r in kiln_records if not r.path.startswith(("/files/", "/uploads/"))]
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in api)
    assert all("authorization" not in r.headers for r in kiln_records if r not in api)
    vendor_api = [
        r for r in sandbox.requests[start:middle] if not r.path.startswith(("/files/", "/uploads/"))
    ]
    vendor_headers = {name for record in vendor_api for name in record.headers}
    kiln_headers = {name for record in api for name in record.headers}
    assert kiln_headers - vendor_headers <= set(KILN_ONLY_HEADERS), kiln_headers - vendor_headers


def test_kiln_never_asks_tripos_shut_down_v2_paths(sandbox: Sandbox, tmp_path: Path) -> None:
    kiln_jobs(sandbox, tmp_path)
    assert sandbox.requests and not [r.path for r in sandbox.requests if r.path.startswith("/v2/")]
