"""The one job engine of this Blender session, and which .blend jobs belong to."""

from __future__ import annotations

import contextlib
import logging
import uuid
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.jobs import StoreError
from ..api.paths import UNSAVED_PREFIX, file_identity
from . import messenger

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ..api.jobs import JobEngine

_engine: JobEngine | None = None
#: Where the unsaved file's token is kept: a plain attribute of ``bpy.types.WindowManager`` (not an
#: RNA property, never saved) lives as long as the Blender process, while this module is loaded anew
#: when Kiln is updated or enabled again; jobs started in the unsaved file before an update must still
#: import into it. Not ``bpy.app.driver_namespace``: any entry there makes Blender 4.2's bpy module
#: crash when its process exits.
_ORIGIN_KEY = "kiln_unsaved_origin"


def _label() -> str:
    """How other Blenders' panels name this one (its pid is added there)."""
    return "a background Blender" if bpy.app.background else "another Blender window"


def engine(context: bpy.types.Context | None = None) -> JobEngine:
    """The running engine, started on first use with the current preferences.

    Raises StoreError (a KilnError whose ``user_message`` names the folder and the cause) when
    Kiln's folder cannot hold the job list; nothing is started then, and the next call tries again.
    """
    global _engine
    if _engine is None:
        from ..api.jobs import JobEngine  # loaded on first use (see api.jobs)

        fresh = JobEngine(preferences.user_dir(), label=_label())
        fresh.start(preferences.service_config(context))
        _engine = fresh
        _announce(fresh.store_problems())
    else:
        _engine.configure(preferences.service_config(context))
    return _engine


def try_engine(context: bpy.types.Context | None = None) -> tuple[JobEngine | None, str]:
    """The engine, or None and the sentence saying why it cannot start (for register and timers)."""
    try:
        return engine(context), ""
    except StoreError as exc:
        log.error("%s", exc.user_message)
        return None, exc.user_message


def engine_if_started() -> JobEngine | None:
    return _engine


def shutdown() -> None:
    """Join every worker; jobs stay on disk and resume next time (here or in another Blender)."""
    global _engine
    if _engine is not None:
        _engine.shutdown()
        _engine = None


def _announce(problems: list[str]) -> None:
    """Damage found in the job store is said in the status bar too (the Jobs panel shows it as well)."""
    if not problems:
        return
    for sentence in problems:
        messenger.announce("WARNING", sentence)


def current_origin() -> str:
    """Identity of the open .blend: its path, or a per-session token while it is unsaved."""
    return file_identity(bpy.data.filepath) if bpy.data.filepath else _unsaved_origin()


def _unsaved_origin() -> str:
    """This process's token for the unsaved file, made on first use and anew for each new file."""
    token = getattr(bpy.types.WindowManager, _ORIGIN_KEY, None)
    if not isinstance(token, str) or not token.startswith(UNSAVED_PREFIX):
        token = f"{UNSAVED_PREFIX}{uuid.uuid4().hex}"
        setattr(bpy.types.WindowManager, _ORIGIN_KEY, token)
    return token


def file_saved() -> None:
    """Jobs started in the unsaved file now belong to the path it was saved as."""
    if _engine is not None and bpy.data.filepath:
        _engine.set_origin(_unsaved_origin(), file_identity(bpy.data.filepath))


def file_loaded() -> None:
    """A new unsaved file is a different file: jobs from the old one must not import here."""
    if not bpy.data.filepath:
        with contextlib.suppress(AttributeError):
            delattr(bpy.types.WindowManager, _ORIGIN_KEY)
