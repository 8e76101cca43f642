"""The one job engine of this Blender session, and which .blend jobs belong to."""

from __future__ import annotations

import uuid

import bpy

from .. import preferences
from ..api.jobs import JobEngine
from ..api.paths import file_identity

_engine: JobEngine | None = None
_unsaved_origin = f"unsaved:{uuid.uuid4().hex}"


def engine(context: bpy.types.Context | None = None) -> JobEngine:
    """The running engine, started on first use with the current preferences."""
    global _engine
    if _engine is None:
        _engine = JobEngine(preferences.user_dir())
        _engine.start(preferences.service_config(context))
    else:
        _engine.configure(preferences.service_config(context))
    return _engine


def engine_if_started() -> JobEngine | None:
    return _engine


def shutdown() -> None:
    """Join every worker; jobs stay on disk and resume next time."""
    global _engine
    if _engine is not None:
        _engine.shutdown()
        _engine = None


def current_origin() -> str:
    """Identity of the open .blend: its path, or a per-session token while it is unsaved."""
    return file_identity(bpy.data.filepath) if bpy.data.filepath else _unsaved_origin


def file_saved() -> None:
    """Jobs started in the unsaved file now belong to the path it was saved as."""
    if _engine is not None and bpy.data.filepath:
        _engine.set_origin(_unsaved_origin, file_identity(bpy.data.filepath))


def file_loaded() -> None:
    """A new unsaved file is a different file: jobs from the old one must not import here."""
    global _unsaved_origin
    if not bpy.data.filepath:
        _unsaved_origin = f"unsaved:{uuid.uuid4().hex}"
