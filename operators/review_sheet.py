"""A batch's review files beside its summary: ``name.png`` (every result's picture with its name,
triangles and verdict) and ``name.html`` (the sheet, the table, each failed line's sentence).

The pictures are the service's previews, read with Blender's image loader (Blender's Python has no
other); a result without one gets an empty frame in its verdict's colour.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from ..api import fs
from ..api.jobs import Job, JobState
from ..api.quality import sheet
from ..api.quality.report import QualityReport
from ..api.quality.review import review_html

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


def write_review(
    summary_path: Path, jobs: Sequence[Job], reports: dict[str, QualityReport], summary: dict[str, Any]
) -> None:
    """Write ``<summary>.png`` and ``<summary>.html`` beside the summary (each whole or not at all)."""
    tiles = []
    for job in jobs:
        report = reports.get(job.id)
        shown = report.verdict if report else ("failed" if job.state is not JobState.IMPORTED else "")
        triangles = report.triangles if report else job.triangles
        tiles.append(sheet.Tile(preview_pixels(job.preview_path), job.request.label, triangles, shown))
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
