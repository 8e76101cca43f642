"""A batch's review files beside its summary: ``name.png`` (every result's picture with its name,
triangles and verdict) and ``name.html`` (the sheet, the table, each failed line's sentence).

The pictures are rendered by the helper Blender, the same view for every result (asked through
``GameOptions.review``); where it could not render, the service's preview stands in; read with
Blender's image loader (Blender's Python has no other). A result with neither gets an empty frame.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from ..api import fs
from ..api.features.quality import sheet
from ..api.features.quality.findings import QualityReport
from ..api.features.quality.review import review_html
from ..api.isolation import review_picture
from ..api.jobs import Job, JobState
from ..api.jobs.model import cache_name

log = logging.getLogger(__name__)


def preview_pixels(path: str) -> np.ndarray | None:
    """The preview as rows x columns x RGB bytes, top row first; None when it cannot be read."""
    if not path or not Path(path).is_file():
        return None
    try:
        image = bpy.data.images.load(path, check_existing=False)
    except RuntimeError as exc:
        log.warning("Could not read the preview %s: %s", path, exc)
        return None
    try:
        width, height = image.size
        pixels = np.empty(width * height * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)  # type: ignore[attr-defined]
        rgba = pixels.reshape(height, width, 4)[::-1]
        return (np.clip(rgba[..., :3], 0.0, 1.0) * 255).astype(np.uint8)
    finally:
        bpy.data.images.remove(image)


def picture_of(job: Job, cache_dir: Path) -> str:
    """The helper's rendering of the job's result, else the service's preview ("" when neither)."""
    rendered = review_picture(cache_dir / f"{cache_name(job)}.blend")
    return str(rendered) if rendered.is_file() else job.preview_path


def write_review(
    summary_path: Path,
    jobs: Sequence[Job],
    reports: dict[str, QualityReport],
    summary: dict[str, Any],
    cache_dir: Path,
) -> None:
    """Write ``<summary>.png`` and ``<summary>.html`` beside the summary (each whole or not at all)."""
    tiles = []
    for job in jobs:
        report = reports.get(job.id)
        shown = report.verdict if report else ("failed" if job.state is not JobState.IMPORTED else "")
        triangles = report.triangles if report else job.triangles
        picture = preview_pixels(picture_of(job, cache_dir))
        tiles.append(sheet.Tile(picture, job.request.label, triangles, shown))
    png, page = summary_path.with_suffix(".png"), summary_path.with_suffix(".html")
    _write_whole(png, sheet.encode_png(sheet.contact_sheet(tiles)))
    _write_whole(page, review_html(summary_path.stem, summary, png.name).encode("utf-8"))


def _write_whole(path: Path, data: bytes) -> None:
    part = path.with_name(f".{path.name}.part")
    try:
        part.write_bytes(data)
        fs.replace(part, path)
    finally:
        fs.discard(part)
