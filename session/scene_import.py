"""Put a checked GLB into the scene: appended from the helper Blender's .blend, or imported here.

By default every mesh arrives already imported by a helper Blender (``api.isolation``) into a
.blend, and the UI thread only appends it: a hostile or broken file never reaches this Blender's
importer, and appending costs a few hundredths of importing. A mesh imports in place when the
artist chose "Import in this Blender", or when no helper can run (said once). Both ways end in
the same placement as a reused library copy (``session.placement``), then provenance (the caller
pushes the one undo step).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath

import bpy

from .. import preferences
from ..api.features.quality.options import GameOptions
from ..api.isolation import in_place_notice
from ..api.jobs import Job, JobKind
from ..api.words import catalogue as words
from ..api.words import english, message, shorten
from ..language import report
from . import messenger, state
from .arguments import preferred_options
from .placement import Placement, append_blend, place
from .scene_objects import FIDELITY_KEY, NAME_CHARS

log = logging.getLogger(__name__)


class ImportFailed(Exception):
    """The mesh could not be brought into the scene; ``message`` is the sentence for the job."""

    def __init__(self, entry: str, /, *, details: str = "") -> None:
        super().__init__(english(entry))
        self.message = message(entry, details=details)


def import_job(context: bpy.types.Context, job: Job, game: GameOptions) -> list[str]:
    """Put the job's mesh in the scene, in its place, as one undo step; the names of its objects.

    ``game``: the job's fix-ups and outputs (``JobRequest.game``, read once by the caller).
    """
    from . import provenance  # loaded by the first job that lands, not at registration

    how = state.current.placements.pop(job.id, None) or Placement(preferred_options(context))
    grid = state.current.grid_slots.take(job.id)
    how = replace(
        how, group=job.group, placeholder=job.request.placeholder, grid=grid, beside=job.request.retexture_of
    )
    new_objects = _append_prepared(job, fall_back=preferences.get(context).import_in_place)
    if new_objects is None:
        # Loaded on the first import in place: the helper does this work everywhere else.
        from ..finishing import game_ready

        record = provenance.export_record(job, game, context)
        new_objects = game_ready.finish_in_place(_import_glb(job), game, job.request.label, record)
        _say_in_place_once()
    else:  # the helper exported it (if asked) before the job's provenance was known here
        provenance.stamp_exports_later(job, game, new_objects)
    if not new_objects:
        raise ImportFailed(words.IMPORT_NOTHING, details=f"task {job.task_id}: no object in {job.mesh_path}")
    # A blockout result is named after its placeholder instead, and game outputs (LODs, a hull,
    # an engine's names) by the engine's convention, which the helper already gave them.
    if not job.request.placeholder and not game.builds_outputs:
        new_objects = name_after_request(new_objects, object_name(job))
    for obj in new_objects:
        _stamp(obj, job)
    place(
        context, new_objects, how, undo=report(words.UNDO_IMPORT, name=shorten(job.request.label, NAME_CHARS))
    )
    return [obj.name for obj in new_objects]


def object_name(job: Job) -> str:
    """A result's name in the Outliner: the prompt (shortened at a word), or the image's name."""
    request = job.request
    if request.name:
        return request.name
    if request.kind is JobKind.TEXT:
        return shorten(request.prompt, NAME_CHARS) or "Kiln result"
    if request.kind is JobKind.TASK:
        return shorten(english(words.TASK_OBJECT_NAME, id=job.task_id), NAME_CHARS)
    source = request.blender_image or request.image_path or request.image_url.split("?", 1)[0]
    # An image path may come from another system: either separator ends the folder part.
    stem = PurePosixPath(PureWindowsPath(source).name).stem if source else ""
    return shorten(stem, NAME_CHARS) or "Kiln result"


def name_after_request(objects: list[bpy.types.Object], name: str) -> list[bpy.types.Object]:
    """The Outliner shows what was asked for: one object takes the name; several get a parent of
    that name (an empty at the origin, so nothing moves), keeping the GLB's own names below it."""
    if len(objects) == 1:
        objects[0].name = name
        return objects
    parent = bpy.data.objects.new(name, None)
    parent.empty_display_type = "PLAIN_AXES"
    for obj in objects:
        if obj.parent is None:
            obj.parent = parent
    return [parent, *objects]


def _import_glb(job: Job) -> list[bpy.types.Object]:
    """Blender's glTF importer, here on the UI thread: the artist's choice, or no helper could run."""
    path = Path(job.mesh_path)
    if not path.is_file():
        raise ImportFailed(words.IMPORT_MESH_MISSING, details=f"task {job.task_id}: {path} is gone")
    before = set(bpy.data.objects)
    try:
        bpy.ops.import_scene.gltf(filepath=str(path))
    except RuntimeError as exc:
        log.warning("glTF import of %s failed: %s", path, exc)
        raise ImportFailed(words.IMPORT_DAMAGED, details=f"task {job.task_id}: {exc}") from exc
    return [obj for obj in bpy.data.objects if obj not in before]


def _append_prepared(job: Job, *, fall_back: bool) -> list[bpy.types.Object] | None:
    """Append what the helper imported (objects with their meshes, materials, packed images,
    armatures, shape keys, lights, cameras and actions), then delete its .blend.

    None when the job has no .blend: the caller imports the GLB in place. An unreadable .blend
    is a sentence for the job, unless the artist allows in-place imports (``fall_back``).
    """
    if not job.blend_path:
        return None
    path = Path(job.blend_path)
    try:
        # Actions no object uses (stashed animations keep a fake user) come along too.
        return append_blend(path, actions=True)
    except OSError as exc:
        if fall_back:
            log.warning("Could not append %s (%s); importing the GLB in-process instead", path, exc)
            return None
        log.warning("Could not append %s: %s", path, exc)
        raise ImportFailed(
            words.IMPORT_PREPARED_UNREADABLE, details=f"task {job.task_id}: {path}: {exc}"
        ) from exc
    finally:
        # One try, no wait (this is the UI thread): a file locked on Windows by an antivirus or a
        # backup tool stays for the cache's clean-up, and the import is not failed for it.
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _say_in_place_once() -> None:
    """No helper could run, so the mesh was imported here: tell the artist, once per session."""
    notice = in_place_notice.take()
    if notice:  # logged when a worker found no helper
        messenger.announce("WARNING", notice, logged=True)


def _stamp(obj: bpy.types.Object, job: Job) -> None:
    """Provenance on every object, so a scene always says where a mesh came from."""
    obj["kiln_task_id"] = job.task_id
    if job.request.kind == "retexture":
        obj["kiln_retexture_of"] = job.request.retexture_of
        if job.request.prompt:
            obj["kiln_prompt"] = job.request.prompt
        if job.request.image_path:
            obj["kiln_image"] = job.request.image_path
    elif job.request.kind == "text":
        obj["kiln_prompt"] = job.request.prompt
    else:
        obj["kiln_image"] = job.request.blender_image or job.request.image_path or job.request.image_url
    obj["kiln_resolution"] = job.resolution or job.request.resolution or 0
    obj["kiln_service"] = job.request.service_id
    if job.request.tier:
        obj["kiln_tier"] = job.request.tier
    from ..api.features.provenance import iso_date

    obj["kiln_date"] = iso_date(job.created_at)
    if job.fidelity is not None:  # how well the mesh matches its image; absent when not measured
        obj[FIDELITY_KEY] = job.fidelity
    stamp_agent(obj, job.request.agent)


def stamp_agent(obj: bpy.types.Object, agent: str) -> None:
    """An agent's result says which agent asked for it (a fresh import, or the library's copy)."""
    if agent:
        obj["kiln_agent"] = agent
