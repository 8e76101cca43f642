"""Thumbnails for the Sidebar: each job's preview PNG and a chosen image file, loaded once.

Blender's ``bpy.utils.previews`` keeps the pixels; this module keeps the one collection,
keyed by job id (or the file path), and closes it on unregister so nothing leaks.
"""

from __future__ import annotations

from pathlib import Path

import bpy
import bpy.utils.previews

_previews: bpy.utils.previews.ImagePreviewCollection | None = None
_paths: dict[str, str] = {}


def _collection() -> bpy.utils.previews.ImagePreviewCollection:
    global _previews
    if _previews is None:
        _previews = bpy.utils.previews.new()
    return _previews


def icon_for(key: str, path: str) -> int | None:
    """The icon id of the PNG/JPEG at ``path`` under ``key``; loaded on first use, None if no file.

    A key whose file changed (a retried job gets a new preview) is loaded again.
    """
    previews = _collection()
    if _paths.get(key) != path:
        if key in previews:
            del previews[key]
        _paths.pop(key, None)
        if not path or not Path(path).is_file():
            return None
        previews.load(key, path, "IMAGE")
        _paths[key] = path
    return int(previews[key].icon_id)


def job_icon(job_id: str, preview_path: str) -> int | None:
    """A job's preview thumbnail, keyed by its id."""
    return icon_for(f"job:{job_id}", preview_path)


def file_icon(path: str) -> int | None:
    """A chosen image file's thumbnail, keyed by its path."""
    return icon_for(f"file:{path}", path)


def forget_jobs_except(job_ids: set[str]) -> None:
    """Release the thumbnails of jobs no longer in the list (removed or cleared)."""
    if _previews is None:
        return
    for key in [k for k in _previews if k.startswith("job:") and k[4:] not in job_ids]:
        del _previews[key]
        _paths.pop(key, None)


def loaded_keys() -> list[str]:
    """What is in memory now (for tests and debugging)."""
    return list(_previews.keys()) if _previews is not None else []


def free_all() -> None:
    """Release every thumbnail; called from unregister."""
    global _previews
    if _previews is not None:
        bpy.utils.previews.remove(_previews)
    _previews = None
    _paths.clear()
