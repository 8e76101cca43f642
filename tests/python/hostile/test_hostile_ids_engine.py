"""Odd task ids through the real engine against the hostile service: followed to a ready mesh
when they are only odd, kept escaped and said when they can hurt, and never part of a path.

``EngineRun.check`` also asserts nothing outside the state folder was touched.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from hostile_glb import good_glb
from hostile_kit import completed, raw_glb, task
from hostile_server import HostileServer, json_answer
from PIL import Image

from api.jobs import JobState

SUBMIT = "/v1/3d/text-to-3d"
TASKS = "/v1/3d/tasks/"
OUTCOME_UNKNOWN = JobState("outcome unknown")

ODD_IDS = {
    "unicode": "kilnid-задача-日本語-✓",
    "slash": "kilnid/2026/seg-β",
    "colon equals plus": "urn:kilnid:v2=abc+def==",
    "spaces": "kilnid with spaces ",
    "parent path": "../../outside/victim",
    "absolute path": "/tmp/kiln-victim",
    "windows path": "..\\..\\outside\\victim",
    "device name": "NUL",
    "dot dot": "..",
}


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 40, 40)).save(out, "PNG")
    return out.getvalue()


def serve_task(service: HostileServer, task_id: str) -> None:
    """Submit answers ``task_id``; its poll says completed, with mesh and preview URLs naming the id."""
    mesh, preview = f"/files/{quote(task_id, safe='')}.glb", f"/previews/{quote(task_id, safe='')}.png"
    image = png()
    service.routes[SUBMIT] = json_answer(200, task(task_id))
    service.routes[TASKS + task_id] = json_answer(
        200, completed(task_id, service.url + mesh, result={"preview_image_url": service.url + preview})
    )
    service.routes[unquote(mesh)] = raw_glb(good_glb())
    service.routes[unquote(preview)] = lambda conn, req: conn.answer(200, image, Content_Type="image/png")


@pytest.mark.parametrize("name", ODD_IDS)
def test_an_odd_task_id_is_followed_to_a_ready_mesh(
    engine_run: Any, service: HostileServer, name: str
) -> None:
    task_id = ODD_IDS[name]
    run = engine_run()
    serve_task(service, task_id)
    run.start()
    job = run.run()
    assert job.state is JobState.READY and job.task_id == task_id, job.error
    assert job.preview_path and Path(job.mesh_path).is_file()
    run.check(job)
    polls = [r.target for r in service.seen if r.target.startswith(TASKS)]
    assert polls and {unquote(t.removeprefix(TASKS)) for t in polls} == {task_id}
    run.next_job_works()


@pytest.mark.parametrize(
    ("task_id", "shown"),
    [("abc\x00def", "abc\\x00def"), ("line\nbreak", "line\\nbreak"), ("a" * 5000, "a" * 200 + "…")],
    ids=["nul", "newline", "5000 chars"],
)
def test_a_task_id_that_can_hurt_is_kept_escaped_and_said(
    engine_run: Any, service: HostileServer, task_id: str, shown: str
) -> None:
    run = engine_run()
    service.routes[SUBMIT] = json_answer(200, task(task_id))
    run.start()
    job = run.run()
    assert job.state is OUTCOME_UNKNOWN and job.task_id == ""
    assert job.refused_task_id.startswith(shown) and job.refused_task_id.isprintable()
    sentence = run.check(job)
    assert "did not send it again" in sentence and f"task “{job.refused_task_id}”" in sentence
    assert [r.target for r in service.seen] == [SUBMIT]  # never re-sent, never polled
    run.next_job_works()


def test_no_task_id_is_part_of_any_path_kiln_wrote(engine_run: Any, service: HostileServer) -> None:
    run = engine_run()
    run.start()
    for task_id in ODD_IDS.values():
        serve_task(service, task_id)
        job = run.run()
        assert job.state is JobState.READY and job.task_id == task_id, job.error
    service.routes[SUBMIT] = json_answer(200, task("kilnid-refused\x00x"))
    assert run.run().state is OUTCOME_UNKNOWN
    run.check(job)
    run.engine.shutdown(timeout=10)  # everything on disk that Kiln will write
    written = [str(p.relative_to(run.state_dir)) for p in run.state_dir.rglob("*")]
    assert any(name.endswith(".glb") for name in written) and any(name.endswith(".png") for name in written)
    for task_id in [*ODD_IDS.values(), "kilnid-refused"]:
        pieces = {task_id, quote(task_id, safe=""), *(p for p in task_id.split("/") if "kilnid" in p)}
        pieces -= {"", ".", "..", "NUL"}  # too short to tell apart from Kiln's own names
        assert not [(piece, name) for name in written for piece in pieces if piece in name]
