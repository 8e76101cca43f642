"""The selected mesh, exported for a re-texture with Blender's own glTF exporter (main thread).

The export runs in the artist's scene with only that object selected (a scene of Kiln's own made the
exporter crash), then the selection is put back as it was; the file goes to Kiln's uploads folder,
where the job's worker reads it. The original object is never changed.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import bpy

from .. import preferences
from ..api.errors import InputError
from ..api.jobs import UPLOADS_DIR
from ..api.jobs.disk import ensure_folder
from ..api.services import info
from ..api.words import catalogue as words
from ..ui_text import human_size

log = logging.getLogger(__name__)


def chosen_mesh(context: bpy.types.Context) -> bpy.types.Object:
    """The mesh to re-texture: the active object when it is a selected mesh, else the one selected mesh."""
    active = context.active_object
    if active is not None and active.type == "MESH" and active.select_get():
        return active
    meshes = [obj for obj in context.selected_objects if obj.type == "MESH"]
    if len(meshes) != 1:
        raise InputError(words.RETEXTURE_NEEDS_MESH)
    return meshes[0]


def export_mesh(context: bpy.types.Context, obj: bpy.types.Object) -> Path:
    """``obj`` alone as a GLB in Kiln's uploads folder (the selection is restored afterwards)."""
    folder = preferences.user_dir() / UPLOADS_DIR
    ensure_folder(folder, "export the mesh to re-texture")
    path = folder / f"{uuid.uuid4().hex}.glb"
    selected = list(context.selected_objects)
    active = context.view_layer.objects.active
    try:
        for other in selected:
            other.select_set(False)
        obj.select_set(True)
        bpy.ops.export_scene.gltf(
            filepath=str(path), export_format="GLB", use_selection=True, use_active_scene=True
        )
    except RuntimeError as exc:
        log.warning("Could not export %s for a re-texture: %s", obj.name, exc)
        raise InputError(words.RETEXTURE_EXPORT_FAILED, details=str(exc)) from exc
    finally:
        obj.select_set(False)
        for other in selected:
            other.select_set(True)
        context.view_layer.objects.active = active
    if not path.is_file():
        raise InputError(words.RETEXTURE_EXPORT_FAILED, details="the exporter wrote no file")
    return path


def check_size(path: Path, service: str) -> None:
    """Refuse a mesh larger than the service takes, before anything is sent (the file is removed)."""
    found = info(service)
    limit = found.capabilities.retexture_max_bytes
    size = path.stat().st_size
    if limit and size > limit:
        path.unlink(missing_ok=True)
        raise InputError(
            words.RETEXTURE_TOO_LARGE, size=human_size(size), limit=human_size(limit), service=found.name
        )
