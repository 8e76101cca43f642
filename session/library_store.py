"""Keeping a result in the Kiln asset library, once it is in the scene.

After an import (``session.watcher.import_one``) the result's objects are written to a .blend of
their own in the library folder (``session.library``), marked as an asset (a collection for several
objects) with the service's preview as thumbnail, the prompt or image name as description, a
catalog per day, and the task id, resolution, triangles and date as custom properties. A result
the helper Blender prepared is written by the helper, off the main thread
(``finishing.library_asset`` is the one way to make the asset, there and here); if writing
fails (a share offline, a read-only folder), the import stands and the reason is said once. A team
may share the folder: the .blend is written under a temporary name and renamed, and the index
entry follows it (``api.features.library_index``), so no Blender ever reads half a file.
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
from ..api.features.library_folder import reach_folder, temp_name
from ..api.features.library_index import LibraryIndex, Shelf, catalog_id_of, ensure_catalog, shelf
from ..api.features.provenance import AI_TAG
from ..api.features.quality.options import GameOptions
from ..api.isolation import HelperUnavailable
from ..api.jobs import Job
from ..api.version import kiln_version
from ..api.words import catalogue as words
from ..api.words import message, shorten
from ..finishing import library_asset
from ..language import Said
from ..main_thread import follow
from . import library, provenance, runtime
from .blocking import blocks
from .messenger import announce
from .scene_objects import NAME_CHARS

log = logging.getLogger(__name__)

_said_failure = False


def store(context: bpy.types.Context, job: Job, names: list[str], game: GameOptions) -> Said | None:
    """Keep a just-imported result in the library; returns a sentence when it could not (said once).

    A result the helper Blender prepared is written by the helper again, on a worker thread, while
    the artist works on (a 1.2M-triangle result costs the main thread half a second otherwise); a
    failure is then said in the status bar when it is known. Background mode writes it here and now,
    so a script's library is complete when the job is. ``game``: the job's fix-ups and outputs,
    which the helper applies alike to the library's copy.
    """
    objects = [bpy.data.objects[n] for n in names if n in bpy.data.objects]
    if not objects:
        return None
    library.register_library(context)  # the folder may have moved since Kiln was enabled
    folder = library.library_dir(context)
    catalog = f"{library.LIBRARY_NAME}/{time.strftime('%Y-%m-%d')}"
    place = shelf(folder, job.id, job.request, job.task_id, time.time())
    about = asset_about(job, catalog_id_of(catalog), objects)
    if job.blend_path and job.mesh_path and not blocks():
        _store_in_helper(context, job, names, place, about, catalog, game)
        return None
    return _store_here(context, job, objects, place, about, catalog)


def asset_about(job: Job, catalog_id: str, objects: list[bpy.types.Object]) -> dict[str, Any]:
    """What describes the result as an asset, as plain values (``library_asset.describe``)."""
    request = job.request
    first: Any = objects[0]  # its custom properties (the stubs type ID.items() as returning None)
    # Stores ask for AI disclosure (docs/provenance.md): the tag Fab and Sketchfab read, and the record.
    made = provenance.object_record(first, provenance.credit(), kiln_version()) or provenance.job_record(job)
    return {
        "name": first.name if len(objects) == 1 else shorten(f"Kiln {request.label}", NAME_CHARS),
        "description": made.description(),
        "catalog_id": catalog_id,
        "tags": ["Kiln", str(request.kind), AI_TAG],
        "properties": {
            **made.properties(),
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


def _store_here(
    context: bpy.types.Context,
    job: Job,
    objects: list[bpy.types.Object],
    place: Shelf,
    about: dict[str, Any],
    catalog: str,
) -> Said | None:
    """Write the result's asset on this thread; a sentence when it could not (said once)."""
    roots = [obj for obj in objects if obj.parent is None]
    shift = roots[0].location.copy() if roots else Vector()
    temp = temp_name(place.path)
    try:
        folder = library.reach_library(context)
        ensure_catalog(folder, catalog)
        for obj in roots:
            obj.location -= shift  # the asset sits at the origin, as a dragged asset expects
        try:
            library_asset.write_asset(objects, about, temp)
        finally:
            for obj in roots:
                obj.location += shift
        fs.replace(temp, place.path)
        if place.entry is not None:
            library.index(context).add(place.entry)
    except (OSError, RuntimeError, KilnError, ValueError) as exc:
        return _failed(context, job, exc)
    finally:
        if temp.exists():
            fs.discard(temp)
    return _index_problem(context)


#: What the worker says: None (no helper could run: write it here), "" (kept) or why it was not
#: (for the console and Copy Details: the artist reads Kiln's own sentence).
StoreOutcome = str | None


def _store_in_helper(
    context: bpy.types.Context,
    job: Job,
    names: list[str],
    place: Shelf,
    about: dict[str, Any],
    catalog: str,
    game_options: GameOptions,
) -> None:
    """The helper imports the result's GLB again, finished alike, and writes the asset; the outcome
    is said when it is in. Everything the worker needs is read here, as plain values."""
    folder = library.library_dir(context)
    create_parents = not preferences.get(context).library_dir.strip()
    config = preferences.service_config(context)
    helper = runtime.engine(context).import_helper
    # The same fix-ups and outputs as the imported result; no export and no review picture again.
    game = replace(game_options, export_dir="", review=False).to_text()
    mesh, label = Path(job.mesh_path), job.request.label

    def work() -> StoreOutcome:
        temp = temp_name(place.path)
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
            fs.replace(temp, place.path)
            if place.entry is not None:
                LibraryIndex(folder).add(place.entry)
        except HelperUnavailable:
            return None
        except (OSError, KilnError) as exc:
            return str(getattr(exc, "user_message", "") or exc)
        finally:
            if temp.exists():
                fs.discard(temp)
        return ""

    def done(outcome: StoreOutcome) -> None:
        said: Said | None
        if outcome is None:  # no helper could run after all: here, if the objects are still in this file
            objects = [bpy.data.objects[n] for n in names if n in bpy.data.objects]
            said = _store_here(bpy.context, job, objects, place, about, catalog) if objects else None
        elif outcome:
            said = _failed(None, job, outcome)
        else:
            said = _index_problem(None)
        if said is not None:
            announce("WARNING", said, logged=True)

    follow("library", work, done)


def _failed(context: bpy.types.Context | None, job: Job, exc: Exception | str) -> Said | None:
    global _said_failure
    log.warning("Could not add task %s to the Kiln library: %s", job.task_id, exc)
    if _said_failure:
        return None
    _said_failure = True
    return message(words.LIBRARY_NOT_KEPT, folder=str(library.library_dir(context)), details=str(exc))


def _index_problem(context: bpy.types.Context | None) -> Said | None:
    problems = library.index(context).problems
    return problems.pop(0) if problems else None
