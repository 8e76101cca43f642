"""Job thumbnails: loaded once per job through bpy.utils.previews, all freed on unregister."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from recording_layout import Recorder, draw, run_pending_sync


@pytest.fixture
def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path bpy.utils.previews is asked to load."""
    import bpy.utils.previews

    loads: list[str] = []
    real_load = bpy.utils.previews.ImagePreviewCollection.load

    def load(self: Any, name: str, path: str, path_type: str, force_reload: bool = False) -> Any:
        loads.append(path)
        return real_load(self, name, path, path_type, force_reload)

    monkeypatch.setattr(bpy.utils.previews.ImagePreviewCollection, "load", load)
    return loads


def test_each_job_preview_is_loaded_once_and_freed_on_unregister(
    service: Any, blender: Any, ui: Any, count_loads: list[str]
) -> None:
    ui.thumbnails.free_all()
    for prompt in ("a red chair", "a green lamp"):
        assert blender.ops.kiln.generate_from_text(prompt=prompt) == {"FINISHED"}
    jobs = ui.runtime.engine().jobs()
    assert all(job.preview_path for job in jobs)
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    wm = blender.context.window_manager
    for _ in range(3):
        draw(ui.jobs.KILN_PT_jobs, blender.context)
        for index, item in enumerate(wm.kiln_jobs):
            row = SimpleNamespace(layout_type="DEFAULT")
            ui.jobs.KILN_UL_jobs.draw_item(
                row, blender.context, Recorder(), wm, item, 0, wm, "kiln_job_index", index
            )
    assert sorted(count_loads) == sorted(job.preview_path for job in jobs)
    assert sorted(ui.thumbnails.loaded_keys()) == sorted(f"job:{job.id}" for job in jobs)

    previews = ui.thumbnails._previews
    ui.panels.unregister()
    try:
        assert ui.thumbnails.loaded_keys() == []
        assert len(previews) == 0, "the collection was not cleared"
        assert previews._uuid not in blender.utils.previews._uuid_open, "the collection was not closed"
    finally:
        ui.panels.register()
    assert hasattr(blender.types.Scene, "kiln")


def test_a_retried_job_shows_its_new_preview(
    service: Any, blender: Any, ui: Any, count_loads: list[str]
) -> None:
    ui.thumbnails.free_all()
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    ui.thumbnails.job_icon(job.id, job.preview_path)
    engine.retry(job.id)
    assert engine.wait([job.id], timeout=60)
    again = engine.get(job.id)
    assert again.preview_path != job.preview_path
    ui.thumbnails.job_icon(again.id, again.preview_path)
    ui.thumbnails.job_icon(again.id, again.preview_path)
    assert count_loads == [job.preview_path, again.preview_path]
    assert ui.thumbnails.loaded_keys() == [f"job:{job.id}"]


def test_no_preview_file_means_the_status_icon(
    service: Any, blender: Any, ui: Any, count_loads: list[str]
) -> None:
    assert ui.thumbnails.job_icon("nojob", "") is None
    assert ui.thumbnails.job_icon("gone", "/nowhere/preview.png") is None
    assert count_loads == []


def test_removed_jobs_release_their_thumbnails(service: Any, blender: Any, ui: Any) -> None:
    ui.thumbnails.free_all()
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    assert ui.thumbnails.loaded_keys() == [f"job:{job.id}"]
    assert blender.ops.kiln.remove_job(job_id=job.id) == {"FINISHED"}
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    assert ui.thumbnails.loaded_keys() == []
