"""The Kiln asset library: every imported result is also kept as an asset, and identical requests reuse it.

After an import (``watcher.import_one``) the result's objects are written to a .blend of their own
in the library folder, marked as an asset (a collection for several objects) with the service's
preview as thumbnail, the prompt or image name as description, a catalog per day, and the task
id, resolution, triangles and date as custom properties. The folder is registered in Blender's
asset libraries as "Kiln" while Kiln is enabled (and removed on disable only if Kiln added it).
Writing one result takes a few hundredths of a second on the main thread; if it fails (a share
offline, a read-only folder), the import stands and the reason is said once. A team may share the
folder: the .blend is written under a temporary name and renamed, and the index entry follows it
(``api.features.library_index``), so no Blender ever reads half a file.

Reuse: an identical request (``api.features.library_index.request_key``) appends the library's copy,
placed, named and finished like a fresh import of that request (``operators.placement``), and sends nothing.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import bpy
from mathutils import Vector

from .. import preferences
from ..api import fs
from ..api.errors import KilnError
from ..api.features.library_index import (
    Entry,
    LibraryIndex,
    blend_name,
    ensure_catalog,
    image_key,
    reach_folder,
    temp_name,
    write_whole,
)
from ..api.jobs import Job, JobKind, JobRequest
from ..ui_text import object_name
from .import_options import options_of
from .messenger import refuse
from .placement import Placement, append_blend, name_copy_after_request, place, undo_step

log = logging.getLogger(__name__)

LIBRARY_NAME = "Kiln"
LIBRARY_DIR = "library"
#: The largest thumbnail kept (pixels a side).
PREVIEW_SIZE = 256
#: In Kiln's user folder (this machine's): the library folders Kiln registered itself, removed with the
#: registration on disable. Per machine, because a team's library folder is shared.
ADDED_RECORD = "added_asset_libraries.txt"
#: Earlier Kilns marked the folder itself: still honoured (and removed), never written.
LEGACY_MARKER = ".kiln_added_library"
_index: LibraryIndex | None = None
_said_failure = False


def library_dir(context: bpy.types.Context | None = None) -> Path:
    """The preference's folder, or one inside Kiln's user folder."""
    chosen = preferences.get(context).library_dir.strip()
    return Path(bpy.path.abspath(chosen)) if chosen else preferences.user_dir() / LIBRARY_DIR


def reach_library(context: bpy.types.Context | None = None) -> Path:
    """The library folder, made if needed; a chosen folder on a share that is not there is not made."""
    folder = library_dir(context)
    reach_folder(folder, create_parents=not preferences.get(context).library_dir.strip())
    return folder


def index(context: bpy.types.Context | None = None) -> LibraryIndex:
    """The index of the current library folder (kept in memory; re-read only when its file changes)."""
    global _index
    folder = library_dir(context)
    if _index is None or _index.folder != folder:
        _index = LibraryIndex(folder)
    return _index


def register_library(context: bpy.types.Context | None = None) -> None:
    """Make the folder an asset library called "Kiln" unless one already points there.

    A record in Kiln's user folder remembers that Kiln added it, so a later session (whose saved
    preferences hold the library) still knows to remove it on disable, and never one the artist added.
    """
    libraries = (context or bpy.context).preferences.filepaths.asset_libraries
    folder = library_dir(context)
    if any(Path(lib.path) == folder for lib in libraries):
        return
    try:
        reach_library(context)
        _record_added({*_added(), str(folder)})
    except (OSError, KilnError) as exc:
        log.warning("Could not set up the Kiln library folder %s: %s", folder, exc)
        return
    libraries.new(name=LIBRARY_NAME, directory=str(folder))


def unregister_library() -> None:
    """Remove the asset libraries Kiln added (one the artist added themselves stays)."""
    global _index
    libraries = bpy.context.preferences.filepaths.asset_libraries
    added = _added()
    for lib in list(libraries):
        folder = Path(bpy.path.abspath(lib.path))
        legacy = folder / LEGACY_MARKER
        if str(folder) in added or legacy.is_file():
            libraries.remove(lib)
            legacy.unlink(missing_ok=True)
    if added:
        try:
            _record_added(set())
        except (OSError, KilnError) as exc:
            log.warning("Could not update %s: %s", ADDED_RECORD, exc)
    _index = None


def _added() -> set[str]:
    try:
        text = (preferences.user_dir() / ADDED_RECORD).read_text(encoding="utf-8")
    except OSError:
        return set()
    return {line for line in text.splitlines() if line.strip()}


def _record_added(folders: set[str]) -> None:
    write_whole(preferences.user_dir() / ADDED_RECORD, "".join(f"{f}\n" for f in sorted(folders)).encode())


def store(context: bpy.types.Context, job: Job, names: list[str]) -> str:
    """Keep a just-imported result in the library; returns a sentence when it could not (said once)."""
    global _said_failure
    try:
        _store(context, job, [bpy.data.objects[n] for n in names if n in bpy.data.objects])
    except (OSError, RuntimeError, KilnError, ValueError) as exc:
        log.warning("Could not add task %s to the Kiln library: %s", job.task_id, exc)
        if _said_failure:
            return ""
        _said_failure = True
        return f"Kiln could not keep this result in its asset library ({library_dir(context)}): {exc}"
    problems = index(context).problems
    return problems.pop(0) if problems else ""


def _store(context: bpy.types.Context, job: Job, objects: list[bpy.types.Object]) -> None:
    if not objects:
        return
    register_library(context)  # the folder may have moved since Kiln was enabled
    folder = reach_library(context)
    day = time.strftime("%Y-%m-%d")
    catalog_id = ensure_catalog(folder, f"{LIBRARY_NAME}/{day}")
    roots = [obj for obj in objects if obj.parent is None]
    shift = roots[0].location.copy() if roots else Vector()
    asset: Any = (
        objects[0] if len(objects) == 1 else bpy.data.collections.new(f"Kiln {job.request.label[:40]}")
    )
    if asset is not objects[0]:
        for obj in objects:
            asset.objects.link(obj)
    path = folder / blend_name(job.id, job.request.label)
    temp = temp_name(path)
    try:
        for obj in roots:
            obj.location -= shift  # the asset sits at the origin, as a dragged asset expects
        asset.asset_mark()
        _describe(asset, job, catalog_id)
        bpy.data.libraries.write(str(temp), {asset}, fake_user=True, compress=True)
        fs.replace(temp, path)
    finally:
        if temp.exists():
            fs.discard(temp)
        for obj in roots:
            obj.location += shift
        if isinstance(asset, bpy.types.Collection):
            bpy.data.collections.remove(asset)
        else:
            asset.asset_clear()
    key = image_key(job.request)
    if key:
        index(context).add(Entry(key, path.name, job.request.label, job.task_id, time.time()))


def _describe(asset: Any, job: Job, catalog_id: str) -> None:
    data = asset.asset_data
    request = job.request
    data.description = request.prompt if request.kind is JobKind.TEXT else request.label
    data.catalog_id = catalog_id
    for tag in ("Kiln", str(request.kind)):
        data.tags.new(tag, skip_if_exists=True)
    data["kiln_task_id"] = job.task_id
    data["kiln_resolution"] = job.resolution or request.resolution or 0
    data["kiln_triangles"] = job.triangles or 0
    data["kiln_date"] = time.strftime("%Y-%m-%d %H:%M")
    _set_preview(asset, job.preview_path)


def _set_preview(asset: Any, preview_path: str) -> None:
    """The service's preview as the asset's thumbnail (pixels written directly: works in background mode).

    Scaled down to at most PREVIEW_SIZE (the Asset Browser shows no larger) and copied as one
    array, so a large preview costs no more than a small one.
    """
    import numpy  # here, not at the top: Kiln must load on a Blender without numpy (see dependencies)

    if not preview_path or not Path(preview_path).is_file():
        return
    image: Any = bpy.data.images.load(preview_path, check_existing=False)
    try:
        width, height = image.size
        if max(width, height) > PREVIEW_SIZE:
            factor = PREVIEW_SIZE / max(width, height)
            image.scale(max(1, round(width * factor)), max(1, round(height * factor)))
            width, height = image.size
        pixels = numpy.empty(width * height * 4, dtype=numpy.float32)
        image.pixels.foreach_get(pixels)
        preview = asset.preview_ensure()
        preview.image_size = (width, height)
        preview.image_pixels_float.foreach_set(pixels)
    finally:
        bpy.data.images.remove(image)


def lookup(request: JobRequest, context: bpy.types.Context | None = None) -> Entry | None:
    """The library's copy of an identical request, or None."""
    return index(context).lookup(image_key(request))


def append(context: bpy.types.Context, entry: Entry, how: Placement, request: JobRequest) -> list[str]:
    """Bring the library's copy into the scene for ``request``, placed and named as a fresh import of
    it would be (``operators.placement``: its import options, group, placeholder); returns the names."""
    objects = append_blend(index(context).folder / entry.blend)
    for obj in objects:
        if obj.asset_data is not None:
            obj.asset_clear()
        obj.use_fake_user = False
    if not how.placeholder:  # a blockout result is named after its placeholder instead
        name_copy_after_request(objects, object_name(Job(id="", request=request, task_id=entry.task_id)))
    if objects:
        place(context, objects, how)
    for obj in objects:
        obj["kiln_reused"] = entry.date
    return [obj.name for obj in objects]


REUSE_ITEMS = (
    ("ASK", "Ask", "Offer the library's copy of an identical earlier request (background mode: use it)"),
    ("ALWAYS", "Always", "Use the library's copy of an identical earlier request: free, nothing is sent"),
    ("NEVER", "Never", "Send the request even if an identical one is in the library"),
)

REUSE_DESCRIPTION = "What to do when an identical request is already in the Kiln asset library"


def reusable(request: JobRequest, reuse: str, context: bpy.types.Context | None = None) -> Entry | None:
    """The library entry to use instead of sending ``request``, or None (``reuse`` is REUSE_ITEMS)."""
    if reuse == "NEVER":
        return None
    return lookup(request, context)


def asked_sentence(entry: Entry) -> str:
    """What the UI says when a request with reuse='ASK' matches the library."""
    return (
        f"“{entry.label[:40]}” was already generated on {entry.date}: press Use It (free) or "
        "Generate Anyway in the Kiln panel"
    )


def use_copy(
    op: bpy.types.Operator, context: bpy.types.Context, entry: Entry, request: JobRequest
) -> set[Any]:
    """Put the library's copy in the scene instead of sending ``request``, with the import options
    the operator was called with; the operator's result."""
    try:
        names = append(context, entry, Placement(options_of(op, context)), request)
    except OSError as exc:
        log.warning("Could not append %s from the Kiln library: %s", entry.blend, exc)
        return refuse(op, f"the library's copy of “{entry.label[:40]}” could not be opened: {exc}")
    undo_step(f"Kiln: reuse {entry.label[:40]}")
    log.info("Reused the library's copy of “%s” (task %s): nothing was sent", entry.label, entry.task_id)
    op.report({"INFO"}, f"Kiln: used the library's copy of “{entry.label[:40]}” from {entry.date} (free)")
    return {"FINISHED"} if names else {"CANCELLED"}
