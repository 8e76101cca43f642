"""Every mesh from the network is opened outside the artist's Blender.

A warm helper Blender (``helper``; ``child`` is one process of it) imports each checked GLB with
Blender's own glTF importer and saves a .blend, which the artist's Blender only appends
(``session/scene_import.py``):
a hostile or buggy file can crash or exhaust the helper, never the artist's session.
``route`` decides which meshes go there; ``limits`` says how far a helper may go; ``memory`` reads a
process's memory for the watchdog; ``priority`` starts Kiln's child processes below the artist's Blender;
``errors`` says what went wrong with a helper. Plain Python: the code the helper runs imports bpy,
so it lives in its own room, ``helper_blender/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .errors import (
    HelperCrashed,
    HelperOutOfMemory,
    HelperTimedOut,
    HelperUnavailable,
    IsolationError,
    MeshRejected,
)
from .limits import HelperLimits
from .route import helper_command, in_place_notice, is_large, module_helper_command, wants_helper

if TYPE_CHECKING:
    from .helper import ImportHelper, Prepared, review_picture

#: Loaded on first use: the helper's machinery (threads, processes, the watchdog) is not needed to
#: register the add-on or to build a job's settings.
_LAZY = {"ImportHelper": ".helper", "Prepared": ".helper", "review_picture": ".helper"}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "HelperCrashed",
    "HelperLimits",
    "HelperOutOfMemory",
    "HelperTimedOut",
    "HelperUnavailable",
    "ImportHelper",
    "IsolationError",
    "MeshRejected",
    "Prepared",
    "helper_command",
    "in_place_notice",
    "is_large",
    "module_helper_command",
    "review_picture",
    "wants_helper",
]
