"""The Kiln asset library: every imported result is also kept as an asset, and identical requests reuse it.

After an import (``watcher.import_one``) the result's objects are written to a .blend of their own
in the library folder, marked as an asset (a collection for several objects) with the service's
preview as thumbnail, the prompt or image name as description, a catalog per day, and the task
id, resolution, triangles and date as custom properties. The folder is registered in Blender's
asset libraries as "Kiln" while Kiln is enabled (and removed on disable only if Kiln added it).
A result the helper Blender prepared is written by the helper, off the main thread
(``helper_blender.library_asset`` is the one way to make the asset, there and here); if writing fails (a share
offline, a read-only folder), the import stands and the reason is said once. A team may share the
folder: the .blend is written under a temporary name and renamed, and the index entry follows it
(``api.features.library_index``), so no Blender ever reads half a file.

Reuse: an identical request (``api.features.library_index.request_key``) appends the library's
copy, placed, named and finished like a fresh import of that request (``operators.placement``),
and sends nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
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
    catalog_id_of,
    ensure_catalog,
    image_key,
    reach_folder,
    temp_name,
    write_whole,
)
from ..api.features.quality.options import GameOptions
from ..api.isolation import HelperUnavailable
from ..api.jobs import Job, JobKind, JobRequest
from ..helper_blender import library_asset
from ..main_thread import follow
from ..ui_text import object_name
from . import runtime
from .arguments import options_of
from .blocking import blocks
from .messenger import announce, refuse
from .placement import Placement, append_blend, name_copy_after_request, place, undo_step

log = logging.getLogger(__name__)

LIBRARY_NAME = "Kiln"
LIBRARY_DIR = "library"
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
    """Keep a just-imported result in the library; returns a sentence when it could not (said once).

    A result the helper Blender prepared is written by the helper again, on a worker thread, while
    the artist works on (a 1.2M-triangle result costs the main thread half a second otherwise); a
    failure is then said in the status bar when it is known. Background mode writes it here and now,
    so a script's library is complete when the job is.
    """
    objects = [bpy.data.objects[n] for n in names if n in bpy.data.objects]
    if not objects:
        return ""
    if job.blend_path and job.mesh_path and not blocks():
        _store_in_helper(context, job, objects)
        return ""
    return _store_here(context, job, objects)


def _store_here(context: bpy.types.Context, job: Job, objects: list[bpy.types.Object]) -> str:
    """Write it on this thread; a sentence when it could not (said once)."""
    try:
        _store(context, job, objects)
    except (OSError, RuntimeError, KilnError, ValueError) as exc:
        return _failed(context, job, exc)
    return _index_problem(context)


def _failed(context: bpy.types.Context | None, job: Job, exc: Exception | str) -> str:
    global _said_failure
    log.warning("Could not add task %s to the Kiln library: %s", job.task_id, exc)
    if _said_failure:
        return ""
    _said_failure = True
    return f"Kiln could not keep this result in its asset library ({library_dir(context)}): {exc}"


def _index_problem(context: bpy.types.Context | None) -> str:
    problems = index(context).problems
    return problems.pop(0) if problems else ""


def asset_about(job: Job, catalog_id: str, objects: list[bpy.types.Object]) -> dict[str, Any]:
    """What describes the result as an asset, as plain values (``library_asset.describe``)."""
    request = job.request
    first: Any = objects[0]  # its custom properties (the stubs type ID.items() as returning None)
    return {
        "name": first.name if len(objects) == 1 else f"Kiln {request.label[:40]}",
        "description": request.prompt if request.kind is JobKind.TEXT else request.label,
        "catalog_id": catalog_id,
        "tags": ["Kiln", str(request.kind)],
        "properties": {
            "kiln_task_id": job.task_id,
            "kiln_resolution": job.resolution or request.resolution or 0,
            "kiln_triangles": job.triangles or 0,
            "kiln_date": time.strftime("%Y-%m-%d %H:%M"),
        },
        # Kiln's provenance on the imported objects, for the helper's copies of them.
        "object_properties": {
            key: value
            for key, value in first.items()
            if key.startswith("kiln_") and isinstance(value, (str, int, float))
        },
        "preview": job.preview_path,
    }


def _catalog_path() -> str:
    return f"{LIBRARY_NAME}/{time.strftime('%Y-%m-%d')}"


def _store(context: bpy.types.Context, job: Job, objects: list[bpy.types.Object]) -> None:
    """Write the result's asset here, on the main thread."""
    register_library(context)  # the folder may have moved since Kiln was enabled
    folder = reach_library(context)
    catalog_id = ensure_catalog(folder, _catalog_path())
    roots = [obj for obj in objects if obj.parent is None]
    shift = roots[0].location.copy() if roots else Vector()
    about = asset_about(job, catalog_id, objects)
    asset: Any = library_asset.asset_of(objects, about["name"])
    path = folder / blend_name(job.id, job.request.label)
    temp = temp_name(path)
    try:
        for obj in roots:
            obj.location -= shift  # the asset sits at the origin, as a dragged asset expects
        library_asset.describe(asset, about)
        library_asset.write(asset, temp)
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


#: What the worker says: None (no helper could run: write it here), "" (kept) or why it was not.
StoreOutcome = str | None


def _store_in_helper(context: bpy.types.Context, job: Job, objects: list[bpy.types.Object]) -> None:
    """The helper imports the result's GLB again, finished alike, and writes the asset; a timer says
    the outcome. Everything the worker needs is read here, as plain values."""
    register_library(context)
    folder = library_dir(context)
    create_parents = not preferences.get(context).library_dir.strip()
    config = preferences.service_config(context)
    helper = runtime.engine(context).import_helper
    catalog = _catalog_path()
    about = asset_about(job, catalog_id_of(catalog), objects)
    # The same fix-ups and outputs as the imported result; no export and no review picture again.
    game = replace(GameOptions.from_text(job.request.game), export_dir="", review=False).to_text()
    path = folder / blend_name(job.id, job.request.label)
    key = image_key(job.request)
    entry = Entry(key, path.name, job.request.label, job.task_id, time.time()) if key else None
    mesh, label, names = Path(job.mesh_path), job.request.label, [obj.name for obj in objects]

    def work() -> StoreOutcome:
        temp = temp_name(path)
        try:
            reach_folder(folder, create_parents=create_parents)
            ensure_catalog(folder, catalog)
            helper.prepare(
                config.helper_command,
                config.helper_limits,
                mesh,
                temp,
                cancelled=lambda: False,
                game=game,
                label=label,
                asset=about,
            )
            fs.replace(temp, path)
            if entry is not None:
                LibraryIndex(folder).add(entry)
        except HelperUnavailable:
            return None
        except (OSError, KilnError) as exc:
            return str(getattr(exc, "user_message", "") or exc)
        finally:
            if temp.exists():
                fs.discard(temp)
        return ""

    def done(said: StoreOutcome) -> None:
        if said is None:  # no helper could run after all: here, if the objects are still in this file
            objects = [bpy.data.objects[n] for n in names if n in bpy.data.objects]
            said = _store_here(bpy.context, job, objects) if objects else ""
        elif said:
            said = _failed(None, job, said)
        else:
            said = _index_problem(None)
        if said:
            announce("WARNING", said, logged=True)

    follow("library", work, done)


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


def reusable(request: JobRequest, reuse: str, context: bpy.types.Context | None = None) -> Entry | None:
    """The library entry to use instead of sending ``request``, or None (``reuse``: ASK, ALWAYS, NEVER)."""
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
