"""Put a checked GLB into the scene with Blender's own glTF importer.

A large result arrives already imported into a .blend by a helper Blender (``api.convert``);
appending its objects costs the UI thread a few hundredths of what importing the GLB here would.
Both ways end in the same placement, provenance and selection (the caller pushes the undo step).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import bpy
from mathutils import Vector

from .. import preferences
from ..api.jobs import Job

log = logging.getLogger(__name__)


class ImportFailed(Exception):
    """The importer rejected the file; carries a sentence for the artist."""


def target_collection(context: bpy.types.Context, name: str, group: str = "") -> bpy.types.Collection:
    """The ``Kiln`` collection (or a named sub-collection of it), created and linked when missing."""
    scene = context.scene
    root = bpy.data.collections.get(name)
    if root is None:
        root = bpy.data.collections.new(name)
    if root.name not in scene.collection.children:
        scene.collection.children.link(root)
    if not group:
        return root
    child = root.children.get(group)
    if child is None:
        child = bpy.data.collections.new(group)
        root.children.link(child)
    return child


def import_job(context: bpy.types.Context, job: Job, *, location: Vector | None = None) -> list[str]:
    """Import the job's mesh; returns the names of the objects it created."""
    prefs = preferences.get(context)
    new_objects = _append_prepared(job) or _import_glb(job)
    if not new_objects:
        raise ImportFailed(f"The mesh of task {job.task_id} contained nothing to import.")

    collection = target_collection(context, prefs.collection_name, job.group)
    if location is None:
        location = context.scene.cursor.location.copy() if prefs.placement == "CURSOR" else Vector()
    for obj in new_objects:
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
        if obj.parent is None:
            obj.location += location
        _stamp(obj, job)

    for obj in context.view_layer.objects:
        obj.select_set(obj in new_objects)
    roots = [obj for obj in new_objects if obj.parent is None]
    context.view_layer.objects.active = roots[0] if roots else new_objects[0]
    return [obj.name for obj in new_objects]


def _import_glb(job: Job) -> list[bpy.types.Object]:
    """Blender's glTF importer, here on the UI thread: small meshes, or when no .blend was made."""
    path = Path(job.mesh_path)
    if not path.is_file():
        raise ImportFailed(
            f"The downloaded mesh for task {job.task_id} is missing from the cache. Press Retry."
        )
    before = set(bpy.data.objects)
    try:
        bpy.ops.import_scene.gltf(filepath=str(path))
    except RuntimeError as exc:
        log.warning("glTF import of %s failed: %s", path, exc)
        raise ImportFailed(
            f"Blender could not read the mesh of task {job.task_id} (the file is damaged). Press Retry."
        ) from exc
    return [obj for obj in bpy.data.objects if obj not in before]


def _append_prepared(job: Job) -> list[bpy.types.Object]:
    """Append the objects (with materials and packed images) of the helper's .blend, then delete it.

    Returns [] when there is no usable .blend, so the caller imports the GLB instead.
    """
    if not job.blend_path:
        return []
    path = Path(job.blend_path)
    libraries = set(bpy.data.libraries)
    # The stubs say load() returns None; it returns a context manager of (source, target) data.
    load: Any = bpy.data.libraries.load
    try:
        with load(str(path), link=False) as (source, target):
            target.objects = list(source.objects)
        return [obj for obj in target.objects if obj is not None]
    except OSError as exc:
        log.warning("Could not append %s (%s); importing the GLB in-process instead", path, exc)
        return []
    finally:
        # Appended data is local; the library entry would only point at a deleted file.
        for library in set(bpy.data.libraries) - libraries:
            bpy.data.libraries.remove(library)
        path.unlink(missing_ok=True)


def _stamp(obj: bpy.types.Object, job: Job) -> None:
    """Provenance on every object, so a scene always says where a mesh came from."""
    obj["kiln_task_id"] = job.task_id
    if job.request.kind == "text":
        obj["kiln_prompt"] = job.request.prompt
    else:
        obj["kiln_image"] = job.request.blender_image or job.request.image_path or job.request.image_url
    obj["kiln_resolution"] = job.resolution or job.request.resolution or 0
