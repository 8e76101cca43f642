"""Thumbnails for the Sidebar: each job's preview and a chosen image file, read off the main thread.

Blender's ``bpy.utils.previews`` keeps the pixels; this module keeps the one collection, keyed by
job id (or the file path), and closes it on unregister so nothing leaks.

A file is decoded on a thread of its own (``api.checks.decoding``: Pillow, else Blender's imbuf) and
its pixels are handed to the collection as a custom preview on the main thread. Not through
``previews.load``: Blender then reads the file in a job of its own whose progress redraws every
region of the window, the 3D View's viewport included. That was two whole frames for each job that
landed: a quarter of a second each on a laptop without a GPU, more in a dense scene. Where this
Python can read no pixels at all, ``previews.load`` is still what shows the file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import bpy
import bpy.utils.previews

from ..drawing import tag_redraw
from ..main_thread import follow

if TYPE_CHECKING:
    import numpy as np

    Pixels = tuple[tuple[int, int], np.ndarray]
    Read = tuple[Pixels, Pixels] | Literal["unread", "no decoder"]

log = logging.getLogger(__name__)

#: Blender's sizes of a preview and of an icon (pixels a side).
PREVIEW_SIDE = 256
ICON_SIDE = 32

_previews: bpy.utils.previews.ImagePreviewCollection | None = None
#: The file asked for under each key (asked once: a file that cannot be read is not read again).
_paths: dict[str, str] = {}


def _collection() -> bpy.utils.previews.ImagePreviewCollection:
    global _previews
    if _previews is None:
        _previews = bpy.utils.previews.new()
    return _previews


def icon_for(key: str, path: str) -> int | None:
    """The icon id of the picture at ``path`` under ``key``; None until its pixels are read (the
    Sidebar is drawn again then), and for a file that is not there or not a picture.

    A key whose file changed (a retried job gets a new preview) is read again.
    """
    previews = _collection()
    if _paths.get(key) != path:
        _forget(key)
        if not path:
            return None
        _paths[key] = path
        follow("thumbnail", lambda: _read(path), lambda read: _show(key, path, read))
    preview = previews.get(key)
    return int(preview.icon_id) if preview is not None else None


def _read(path: str) -> Read:
    """On a thread of its own: the preview's and the icon's pixels, never a traceback."""
    from ..api.checks import decoding

    try:
        if not decoding.available():  # Blender's own loading then, of a file that is there
            return "no decoder" if Path(path).is_file() else "unread"
        return decoding.packed_rgba(path, PREVIEW_SIDE), decoding.packed_rgba(path, ICON_SIDE)
    except (decoding.Unreadable, OSError):
        return "unread"
    except Exception:  # a thumbnail is a nicety: whatever else goes wrong, the row shows its state icon
        log.warning("Kiln could not read the thumbnail %s", path, exc_info=True)
        return "unread"


def _show(key: str, path: str, read: Read) -> None:
    """Back on the main thread: the pixels into the collection, unless the key moved on meanwhile."""
    if _previews is None or _paths.get(key) != path or key in _previews or read == "unread":
        return
    if read == "no decoder":
        _previews.load(key, path, "IMAGE")
    else:
        ((size, pixels), (icon_size, icon_pixels)) = read
        preview = _previews.new(key)
        preview.image_size = size
        preview.image_pixels.foreach_set(pixels)  # type: ignore[attr-defined]  # stubs: an int
        preview.icon_size = icon_size
        preview.icon_pixels.foreach_set(icon_pixels)  # type: ignore[attr-defined]
    tag_redraw()


def job_icon(job_id: str, preview_path: str) -> int | None:
    """A job's preview thumbnail, keyed by its id."""
    return icon_for(f"job:{job_id}", preview_path)


def file_icon(path: str) -> int | None:
    """A chosen image file's thumbnail, keyed by its path."""
    return icon_for(f"file:{path}", path)


def _forget(key: str) -> None:
    if _previews is not None and key in _previews:
        del _previews[key]
    _paths.pop(key, None)


def forget_jobs_except(job_ids: set[str]) -> None:
    """Release the thumbnails of jobs no longer in the list (removed or cleared), read or not yet."""
    for key in [k for k in _paths if k.startswith("job:") and k[4:] not in job_ids]:
        _forget(key)


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
