"""Which jobs' results are in the open .blend, so the Sidebar says "In the scene" only when it is true.

An import stamps ``kiln_task_id`` on every object it makes (provenance), so a job's result is in
this file when an object with its task id is in ``bpy.data``. Reading every object's property on
each redraw would cost a large scene milliseconds a draw, so the set of task ids here is kept and
made again only when the number of objects changes, another file is loaded, or undo or redo runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.app.handlers import persistent

from .scene_objects import custom

if TYPE_CHECKING:
    from ..api.jobs import Job

_generation = 0
_cached: tuple[tuple[int, int, str], frozenset[str]] | None = None


def task_ids() -> frozenset[str]:
    """The task ids of Kiln results among this file's objects."""
    global _cached
    key = (_generation, len(bpy.data.objects), bpy.data.filepath)
    if _cached is None or _cached[0] != key:
        found: set[object] = {custom(obj, "kiln_task_id") for obj in bpy.data.objects}
        _cached = (key, frozenset(value for value in found if isinstance(value, str) and value))
    return _cached[1]


def is_here(job: Job) -> bool:
    """Whether an object of the job's result is in the open .blend."""
    return bool(job.task_id) and job.task_id in task_ids()


@persistent
def forget(*_args: object) -> None:
    """Handlers (load, undo, redo): the objects may be others now, even if as many."""
    global _generation
    _generation += 1


_HANDLERS = (bpy.app.handlers.load_post, bpy.app.handlers.undo_post, bpy.app.handlers.redo_post)


def register() -> None:
    for handlers in _HANDLERS:
        handlers.append(forget)


def unregister() -> None:
    for handlers in _HANDLERS:
        if forget in handlers:
            handlers.remove(forget)
