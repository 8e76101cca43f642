"""Thumbnails: each file read once, off the main thread, into bpy.utils.previews as its pixels (not
through Blender's own deferred loading, whose job redraws the whole window); all freed on unregister."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest
from concepts import CONCEPTS
from recording_layout import Recorder, draw, finish_followed, run_pending_sync


@pytest.fixture
def reads(ui: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path a thumbnail is read from (the reading itself is Kiln's own, unchanged)."""
    read_paths: list[str] = []
    real_read = ui.thumbnails._read

    def read(path: str) -> Any:
        read_paths.append(path)
        return real_read(path)

    monkeypatch.setattr(ui.thumbnails, "_read", read)
    return read_paths


@pytest.fixture
def blender_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path Blender's own deferred preview loading is asked for."""
    import bpy.utils.previews

    loads: list[str] = []
    real_load = bpy.utils.previews.ImagePreviewCollection.load

    def load(self: Any, name: str, path: str, path_type: str, force_reload: bool = False) -> Any:
        loads.append(path)
        return real_load(self, name, path, path_type, force_reload)

    monkeypatch.setattr(bpy.utils.previews.ImagePreviewCollection, "load", load)
    return loads


def _draw_rows(blender: Any, ui: Any) -> None:
    wm = blender.context.window_manager
    for index, item in enumerate(wm.kiln_jobs):
        row = SimpleNamespace(layout_type="DEFAULT")
        ui.jobs.KILN_UL_jobs.draw_item(
            row, blender.context, Recorder(), wm, item, 0, wm, "kiln_job_index", index
        )


def test_each_job_preview_is_read_once_and_freed_on_unregister(
    service: Any, blender: Any, ui: Any, reads: list[str], blender_loads: list[str]
) -> None:
    ui.thumbnails.free_all()
    for prompt in ("a red chair", "a green lamp"):
        assert blender.ops.kiln.generate_from_text(prompt=prompt) == {"FINISHED"}
    jobs = ui.runtime.engine().jobs()
    assert all(job.preview_path for job in jobs)
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    for _ in range(3):
        draw(ui.jobs.KILN_PT_jobs, blender.context)
        _draw_rows(blender, ui)
        finish_followed(ui.main_thread)
    assert sorted(reads) == sorted(job.preview_path for job in jobs)
    assert blender_loads == [], "Blender's deferred loading redraws the whole window"
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


def test_a_thumbnail_holds_the_files_pixels_bottom_row_first(blender: Any, ui: Any, tmp_path: Any) -> None:
    """Blender's preview rows run bottom up; a picture taller than a preview is fitted, not cut."""
    import numpy as np

    decoding = sys.modules[ui.thumbnails.__name__.replace("panels.thumbnails", "api.checks.decoding")]
    pixels = np.zeros((600, 300, 3), dtype=np.uint8)
    pixels[:300] = (200, 10, 10)  # top half red, bottom half blue
    pixels[300:] = (10, 10, 200)
    path = tmp_path / "tall.png"
    path.write_bytes(decoding.encode_png(pixels))
    ui.thumbnails.free_all()
    assert ui.thumbnails.file_icon(str(path)) is None, "read on the main thread"
    finish_followed(ui.main_thread)
    assert ui.thumbnails.file_icon(str(path)) is not None
    preview = ui.thumbnails._previews[f"file:{path}"]
    assert tuple(preview.image_size) == (128, 256) and tuple(preview.icon_size) == (16, 32)
    assert preview.is_image_custom and preview.is_icon_custom
    rows = np.array(preview.image_pixels, dtype=np.int32).view(np.uint8).reshape(256, 128, 4)
    assert tuple(rows[0, 0]) == (10, 10, 200, 255)  # the first row is the picture's bottom
    assert tuple(rows[-1, 0]) == (200, 10, 10, 255)


def test_a_retried_job_shows_its_new_preview(service: Any, blender: Any, ui: Any, reads: list[str]) -> None:
    ui.thumbnails.free_all()
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    ui.thumbnails.job_icon(job.id, job.preview_path)
    finish_followed(ui.main_thread)
    engine.retry(job.id)
    assert engine.wait([job.id], timeout=60)
    again = engine.get(job.id)
    assert again.preview_path != job.preview_path
    ui.thumbnails.job_icon(again.id, again.preview_path)
    ui.thumbnails.job_icon(again.id, again.preview_path)
    finish_followed(ui.main_thread)
    assert reads == [job.preview_path, again.preview_path]
    assert ui.thumbnails.loaded_keys() == [f"job:{job.id}"]


def test_no_preview_file_means_the_status_icon(blender: Any, ui: Any, tmp_path: Any) -> None:
    ui.thumbnails.free_all()
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    assert ui.thumbnails.job_icon("nojob", "") is None
    assert ui.thumbnails.job_icon("gone", "/nowhere/preview.png") is None
    assert ui.thumbnails.job_icon("broken", str(broken)) is None
    finish_followed(ui.main_thread)
    for job_id, path in (("gone", "/nowhere/preview.png"), ("broken", str(broken))):
        assert ui.thumbnails.job_icon(job_id, path) is None
    assert ui.thumbnails.loaded_keys() == []
    assert not ui.main_thread._followed, "a file that cannot be read was read again"


def test_without_pillow_or_imbuf_blenders_own_loading_shows_the_file(
    blender: Any, ui: Any, blender_loads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python that can read no pixels (no Pillow, no imbuf) still shows the thumbnail."""
    for name in ("PIL", "PIL.Image", "imbuf"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails, as where it is not installed
    ui.thumbnails.free_all()
    path = str(CONCEPTS / "chair.png")
    ui.thumbnails.file_icon(path)
    finish_followed(ui.main_thread)
    assert blender_loads == [path]
    assert ui.thumbnails.loaded_keys() == [f"file:{path}"]


def test_removed_jobs_release_their_thumbnails(service: Any, blender: Any, ui: Any) -> None:
    ui.thumbnails.free_all()
    assert blender.ops.kiln.generate_from_text(prompt="a red chair") == {"FINISHED"}
    engine = ui.runtime.engine()
    job = engine.jobs()[-1]
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    finish_followed(ui.main_thread)
    assert ui.thumbnails.loaded_keys() == [f"job:{job.id}"]
    assert blender.ops.kiln.remove_job(job_id=job.id) == {"FINISHED"}
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    run_pending_sync(blender, ui.jobs)
    assert ui.thumbnails.loaded_keys() == []
