"""The Kiln asset library: its folder and index, and identical requests answered from it.

Every imported result is also kept as an asset (``session.library_store``). The folder is
registered in Blender's asset libraries as "Kiln" while Kiln is enabled (and removed on disable
only if Kiln added it). Reuse: an identical request (``api.features.library_index.request_key``)
appends the library's copy, placed, named and finished like a fresh import of that request
(``session.placement``), and sends nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy

from .. import preferences
from ..api.errors import KilnError
from ..api.features.library_folder import reach_folder, write_whole
from ..api.words import catalogue as words
from ..api.words import message, shorten
from ..language import report
from . import runtime
from .messenger import refuse, tell
from .scene_objects import NAME_CHARS

if TYPE_CHECKING:
    from ..api.features.library_index import Entry, LibraryIndex
    from ..api.jobs import JobRequest
    from .placement import Placement

log = logging.getLogger(__name__)

LIBRARY_NAME = "Kiln"
LIBRARY_DIR = "library"
#: In Kiln's user folder (this machine's): the library folders Kiln registered itself, removed with the
#: registration on disable. Per machine, because a team's library folder is shared.
ADDED_RECORD = "added_asset_libraries.txt"
#: Earlier Kilns marked the folder itself: still honoured (and removed), never written.
LEGACY_MARKER = ".kiln_added_library"
_index: LibraryIndex | None = None


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
    from ..api.features.library_index import LibraryIndex

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


def lookup(request: JobRequest, context: bpy.types.Context | None = None) -> Entry | None:
    """The library's copy of an identical request, or None."""
    from ..api.features.library_index import image_key

    return lookup_key(image_key(request), context)


def lookup_key(key: str | None, context: bpy.types.Context | None = None) -> Entry | None:
    """The library's copy of the request with this key (``library_index.request_key``; an image's
    key made from its bytes, where no file of it exists yet), or None."""
    return index(context).lookup(key)


def append(context: bpy.types.Context, entry: Entry, how: Placement, request: JobRequest) -> list[str]:
    """Bring the library's copy into the scene for ``request``, placed and named as a fresh import of
    it would be (``operators.placement``: its import options, group, placeholder); returns the names."""
    # Loaded by the first copy, not when Kiln registers.
    from ..api.jobs import Job
    from .placement import append_blend, name_copy_after_request, place
    from .scene_import import object_name

    objects = append_blend(index(context).folder / entry.blend)
    for obj in objects:
        if obj.asset_data is not None:
            obj.asset_clear()
        obj.use_fake_user = False
    if not how.placeholder:  # a blockout result is named after its placeholder instead
        name_copy_after_request(objects, object_name(Job(id="", request=request, task_id=entry.task_id)))
    if objects:
        place(context, objects, how, undo=report(words.UNDO_REUSE, name=shorten(entry.label, NAME_CHARS)))
    for obj in objects:
        obj["kiln_reused"] = entry.date
    return [obj.name for obj in objects]


def reusable(request: JobRequest, reuse: str, context: bpy.types.Context | None = None) -> Entry | None:
    """The library entry to use instead of sending ``request``, or None (``reuse``: ASK, ALWAYS, NEVER)."""
    if reuse == "NEVER":
        return None
    return lookup(request, context)


def made_this_session(entry: Entry) -> bool:
    """Whether the library's copy is the result of a job this Blender sent in this session."""
    from . import spending

    engine = runtime.engine_if_started()
    return engine is not None and any(
        job.task_id == entry.task_id and job.created_at >= spending.session_start for job in engine.own_jobs()
    )


def use_copy(
    op: bpy.types.Operator, context: bpy.types.Context, entry: Entry, request: JobRequest
) -> set[Any]:
    """Put the library's copy in the scene instead of sending ``request``, with the import options
    the operator was called with; the operator's result."""
    from .arguments import options_of
    from .placement import Placement

    try:
        names = append(context, entry, Placement(options_of(op, context)), request)
    except OSError as exc:
        log.warning("Could not append %s from the Kiln library: %s", entry.blend, exc)
        return refuse(op, message(words.LIBRARY_COPY_UNREADABLE, name=entry.label, details=str(exc)))
    log.info("Reused the library's copy of “%s” (task %s): nothing was sent", entry.label, entry.task_id)
    tell(op, "INFO", words.LIBRARY_USED, name=entry.label, date=entry.date)
    return {"FINISHED"} if names else {"CANCELLED"}
