"""The Jobs panel and its UIList, drawn for real over real engine jobs (sandbox over HTTP)."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

from recording_layout import (
    ADDON_MODULE,
    Recorder,
    draw,
    finish_followed,
    run_pending_sync,
    sync_asked,
    wait_for,
)

ROW = SimpleNamespace(layout_type="DEFAULT")


def submit(bpy: Any, prompt: str) -> str:
    """Press Generate without waiting (as in the UI); returns the new job's id."""
    assert bpy.ops.kiln.generate_from_text(prompt=prompt, wait=False) == {"FINISHED"}
    return str(_engine(bpy).jobs()[-1].id)


def _engine(bpy: Any) -> Any:
    return sys.modules[f"{ADDON_MODULE}.session.runtime"].engine(bpy.context)


def draw_rows(bpy: Any, ui: Any) -> list[tuple[str, Recorder]]:
    """Each row of the list as the UIList draws it, in list order."""
    wm = bpy.context.window_manager
    rows = []
    for index, item in enumerate(wm.kiln_jobs):
        layout = Recorder()
        ui.jobs.KILN_UL_jobs.draw_item(ROW, bpy.context, layout, wm, item, 0, wm, "kiln_job_index", index)
        rows.append((item.job_id, layout))
    return rows


def draw_synced(bpy: Any, ui: Any) -> Recorder:
    """Draw, let the resync the panel asked for happen, and draw again (what the artist then sees)."""
    draw(ui.jobs.KILN_PT_jobs, bpy.context)
    if sync_asked(ui.jobs):
        run_pending_sync(bpy, ui.jobs)
    return draw(ui.jobs.KILN_PT_jobs, bpy.context)


def test_no_jobs_yet(service: Any, blender: Any, ui: Any) -> None:
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert "No jobs yet: press Generate above." in layout.labels()
    assert not layout.of("template_list")
    # With no jobs there is nothing to filter, clear or add by ID: the panel says only how to start.
    assert not layout.operators("kiln.clear_finished") and not layout.operators("kiln.resume_task")


def test_queued_then_running_job_shows_progress_and_eta(slow_service: Any, blender: Any, ui: Any) -> None:
    engine = _engine(blender)
    job_id = submit(blender, "a slow lantern")
    wait_for(lambda: engine.get(job_id).state.value == "queued", what="queued")
    layout = draw_synced(blender, ui)
    (listing,) = layout.of("template_list")
    assert listing.args[0] == "KILN_UL_jobs"
    ((row_id, row),) = draw_rows(blender, ui)
    assert row_id == job_id
    (name,) = row.of("label")
    assert name.text == "a slow lantern"
    assert name.kwargs["icon"] == "SORTTIME"
    (bar,) = row.of("progress")
    assert bar.kwargs["type"] == "BAR"
    assert bar.kwargs["factor"] == 0.0
    assert bar.kwargs["text"] in ("Queued", "Waiting")
    assert layout.operators("kiln.cancel_job")[0].props.job_id == job_id

    job = wait_for(
        lambda: (j := engine.get(job_id)).state.value == "running" and j.progress > 0 and j, what="running"
    )
    ((_, row),) = draw_rows(blender, ui)
    (bar,) = row.of("progress")
    assert 0 < bar.kwargs["factor"] < 1
    assert bar.kwargs["text"].startswith(f"{job.progress:.0f}%")
    assert "left" in bar.kwargs["text"]
    details = draw(ui.jobs.KILN_PT_jobs, blender.context)
    (detail_bar,) = details.of("progress")
    assert detail_bar.kwargs["factor"] == bar.kwargs["factor"]
    assert [c.args[0] for c in details.of("operator") if c.props.__dict__.get("job_id") == job_id] == [
        "kiln.cancel_job",
        "kiln.copy_details",
    ]


def test_done_job_shows_thumbnail_triangles_and_import_again(service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    job = _engine(blender).jobs()[-1]
    assert job.state.value == "imported" and job.preview_path and job.triangles
    draw_synced(blender, ui)
    draw_rows(blender, ui)
    finish_followed(ui.main_thread)  # the thumbnail, read off the main thread
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    ((_, row),) = draw_rows(blender, ui)
    preview = ui.thumbnails._previews[f"job:{job.id}"]
    (name,) = row.of("label")  # the row is the name; the details below the list say the rest
    assert name.kwargs["icon_value"] == preview.icon_id
    assert "icon" not in name.kwargs
    # Once: in the quality line (a line of its own above it said the same number again).
    (said,) = [label for label in layout.labels() if f"{job.triangles:,} triangles" in label]
    assert said.startswith(f"clean · {job.triangles:,} triangles · ")
    assert not row.of("progress")
    (big,) = layout.of("template_icon")
    assert big.kwargs["icon_value"] == preview.icon_id
    assert tuple(preview.image_size) != (0, 0)
    buttons = {c.args[0]: c for c in layout.of("operator")}
    assert buttons["kiln.import_job"].text == "Import Again"
    for action in ("kiln.import_job", "kiln.retry_job", "kiln.remove_job", "kiln.copy_details"):
        assert buttons[action].props.job_id == job.id
    assert "kiln.cancel_job" not in buttons
    assert "kiln.open_cache_folder" in buttons
    assert job.task_id not in layout.text()  # the service's id is for Copy Details, not the panel


def test_failed_job_shows_the_error_sentence_and_retry(
    blender: Any, fresh_jobs: Any, sandbox_factory: Any, sandbox_key: str, monkeypatch: Any, ui: Any
) -> None:
    server = sandbox_factory(faults="fail=1")
    monkeypatch.setenv("KILN_BASE_URL", server.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    job_id = submit(blender, "an impossible shape")
    engine = _engine(blender)
    assert engine.wait([job_id], timeout=60)
    job = engine.get(job_id)
    assert job.state.value == "failed" and job.error
    layout = draw_synced(blender, ui)
    ((_, row),) = draw_rows(blender, ui)
    assert [c.kwargs.get("icon") for c in row.of("label")] == ["ERROR"]  # the state's icon says it failed
    assert row.labels() == ["an impossible shape"]
    assert "Did not work" in layout.labels()
    assert job.error in layout.text()
    error_lines = [c for c in layout.of("label") if c.text and c.text in job.error]
    assert error_lines and all(c.alert for c in error_lines)
    ops = layout.operator_ids()
    assert "kiln.retry_job" in ops and "kiln.remove_job" in ops
    assert "kiln.import_job" not in ops and "kiln.cancel_job" not in ops


def test_newest_first_and_a_new_job_becomes_active(slow_service: Any, blender: Any, ui: Any) -> None:
    first = submit(blender, "first")
    draw_synced(blender, ui)
    second = submit(blender, "second")
    # Generate wrote the new row itself: the frame after the click shows it, with no resync after it.
    wm = blender.context.window_manager
    assert [row.job_id for row in wm.kiln_jobs] == [second, first]
    assert wm.kiln_job_index == 0
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert not sync_asked(ui.jobs), "Generate left the rows behind the engine"
    # A job the rows do not show yet (another Blender's, read from the shared list) asks for a resync.
    wm.kiln_jobs.remove(0)
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert sync_asked(ui.jobs), "rows behind the engine must trigger a resync"
    run_pending_sync(blender, ui.jobs)
    assert [row.job_id for row in wm.kiln_jobs] == [second, first]
    assert wm.kiln_job_index == 0
    wm.kiln_job_index = 1
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert not sync_asked(ui.jobs), "nothing changed: no resync"
    assert layout.operators("kiln.cancel_job")[0].props.job_id == first
    _engine(blender).remove(second)
    draw_synced(blender, ui)
    assert [row.job_id for row in wm.kiln_jobs] == [first]
    assert wm.kiln_job_index == 0


def test_filter_shows_active_done_or_failed(service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="done chair") == {"FINISHED"}
    engine = _engine(blender)
    done = engine.jobs()[-1].id
    cancelled = submit(blender, "cancelled lamp")
    engine.cancel(cancelled)
    draw_synced(blender, ui)
    wm = blender.context.window_manager
    ids = [row.job_id for row in wm.kiln_jobs]
    flt = SimpleNamespace(filter_name="", bitflag_filter_item=1 << 30)

    def shown(value: str, name: str = "") -> list[str]:
        wm.kiln_job_filter = value
        flt.filter_name = name
        flags, order = ui.jobs.KILN_UL_jobs.filter_items(flt, blender.context, wm, "kiln_jobs")
        assert order == []
        return [job_id for job_id, flag in zip(ids, flags, strict=True) if flag]

    assert shown("ALL") == [cancelled, done]
    assert shown("DONE") == [done]
    assert shown("FAILED") == [cancelled]
    assert shown("ACTIVE") == []
    assert shown("ALL", "LAMP") == [cancelled]
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    (filter_prop,) = [c for c in layout.of("prop") if c.args[1] == "kiln_job_filter"]
    assert filter_prop.kwargs["expand"] is True


def test_clear_finished_empties_the_list(service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a stool") == {"FINISHED"}
    draw_synced(blender, ui)
    assert blender.ops.kiln.clear_finished() == {"FINISHED"}
    layout = draw_synced(blender, ui)
    assert len(blender.context.window_manager.kiln_jobs) == 0
    assert "No jobs yet: press Generate above." in layout.labels()


class _NulIdService(BaseHTTPRequestHandler):
    """A service whose submit answers a task id with a NUL byte in it (Kiln refuses to follow it)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"id": "task\x00one", "status": "queued"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_refused_task_id_is_shown_escaped_and_can_be_copied(
    blender: Any, fresh_jobs: Any, sandbox_key: str, monkeypatch: Any, ui: Any
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NulIdService)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("KILN_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    try:
        job_id = submit(blender, "a chair with an odd task")
        engine = _engine(blender)
        assert engine.wait([job_id], timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    job = engine.get(job_id)
    assert job.state.value == "outcome unknown" and job.refused_task_id == "task\\x00one"
    layout = draw_synced(blender, ui)
    # The odd id stays out of the panel (Copy Details has it, escaped); the sentence says what to do.
    assert "task" not in layout.text().replace("a chair with an odd task", "") and "\x00" not in layout.text()
    assert "Check the service's dashboard before you press Retry." in layout.text()
    buttons = {c.args[0]: c for c in layout.of("operator")}
    assert buttons["kiln.copy_details"].props.job_id == job_id


def test_a_mesh_that_could_not_be_used_offers_resume_free_beside_retry(
    blender: Any,
    fresh_jobs: Any,
    sandbox_factory: Any,
    sandbox_key: str,
    monkeypatch: Any,
    ui: Any,
    kiln_module: Any,
) -> None:
    server = sandbox_factory(faults="corrupt=1")
    monkeypatch.setenv("KILN_BASE_URL", server.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    job_id = submit(blender, "a cracked vase")
    engine = _engine(blender)
    assert engine.wait([job_id], timeout=60)
    job = engine.get(job_id)
    assert job.state.value == "failed" and job.error_message is not None
    assert job.error_message.name in kiln_module("api.jobs.service_side").RESUMABLE_ENDINGS, job.error_message
    assert "Resume" in str(job.error_message)
    layout = draw_synced(blender, ui)
    ops = layout.operator_ids()
    assert "kiln.resume_job" in ops and "kiln.retry_job" in ops


def test_a_sentence_that_names_a_file_comes_with_a_button_that_shows_it(
    blender: Any, kiln_module: Any
) -> None:
    """ "a file named “cache” is where a folder should be": Show “cache” opens the folder holding it."""
    words = kiln_module("api.words")
    jobs = kiln_module("panels.jobs")
    problem = words.message(words.catalogue.FILES_NOT_A_FOLDER, name="cache", folder="/home/artist/kiln")
    layout = Recorder()
    jobs.draw_show_file(layout, problem)
    (show,) = layout.operators("wm.path_open")
    assert show.text == "Show “cache”" and show.props.filepath == "/home/artist/kiln"
    layout = Recorder()
    jobs.draw_show_file(layout, words.message(words.catalogue.TASK_FAILED))  # names no file: no button
    assert layout.operators("wm.path_open") == []


def test_a_stopped_job_whose_task_runs_on_offers_resume_beside_retry(
    slow_service: Any, blender: Any, ui: Any
) -> None:
    """Stop Waiting leaves the task on the service: the panel offers Resume (free) beside Retry (paid)."""
    engine = _engine(blender)
    job_id = submit(blender, "a stopped lantern")
    wait_for(lambda: engine.get(job_id).task_id, what="a task id")
    assert blender.ops.kiln.cancel_job(job_id=job_id) == {"FINISHED"}
    layout = draw_synced(blender, ui)
    mine = [c.args[0] for c in layout.of("operator") if c.props.__dict__.get("job_id") == job_id]
    assert mine[:2] == ["kiln.resume_job", "kiln.retry_job"]
    assert "Resume brings its mesh in at no extra cost" in layout.text()


def test_add_job_by_id_is_greyed_out_where_the_chosen_service_cannot_be_asked_by_id(
    service: Any, blender: Any, ui: Any, kiln_module: Any
) -> None:
    submit(blender, "a lamp")
    prefs = ui.preferences.get()
    registry = kiln_module("api.services")
    registry.register_service("TOYNOID", "toy_service_no_by_id", package="")
    try:
        for chosen, offered in (("INTERFACE", True), ("RODIN", True), ("TOYNOID", False)):
            prefs.service = chosen
            layout = draw_synced(blender, ui)
            (button,) = layout.operators("kiln.resume_task")
            assert button.enabled is offered, chosen
    finally:
        prefs.service = "INTERFACE"
        registry.unregister_service("TOYNOID")
