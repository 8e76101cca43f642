"""The Jobs list's rows: ``WindowManager.kiln_jobs`` mirrors the engine's job ids, newest first.

A UIList needs a bpy collection; the engine stays the one source of truth (rows hold nothing else).
Drawing may not write data, so rows are written outside it: where a job starts (the frame after
Generate already shows it, rather than a second frame after a resync), and by a one-shot timer the
Jobs panel asks for when its draw finds them behind the engine (jobs removed, another Blender's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import bpy

from . import runtime

if TYPE_CHECKING:
    from ..api.jobs import Job

#: A Python mirror of the rows' job ids (reading 5,000 RNA rows costs milliseconds a draw), and the
#: engine roster it mirrors.
_mirror: list[str] = []
_mirror_roster: tuple[int, int] = (0, -1)


def roster() -> tuple[int, int]:
    """Which engine (a restart makes a new one), and its roster."""
    engine = runtime.engine_if_started()
    return (id(engine), engine.roster) if engine is not None else (0, -1)


def jobs() -> list[Job]:
    """The engine's snapshot, oldest first; empty before the engine has started (drawing never starts it)."""
    engine = runtime.engine_if_started()
    return engine.jobs() if engine is not None else []


def mirrored() -> tuple[list[str], tuple[int, int]]:
    """The rows' job ids as last written, and the roster they were written at."""
    return _mirror, _mirror_roster


def behind(wm: bpy.types.WindowManager, at: tuple[int, int]) -> bool:
    """Whether the rows miss jobs that came or went since they were written (O(1): no row is read)."""
    return at != _mirror_roster or len(wm.kiln_jobs) != len(_mirror)  # type: ignore[attr-defined]


def sync_rows(wm: bpy.types.WindowManager, jobs: list[Job], at: tuple[int, int] | None = None) -> bool:
    """Make the rows mirror ``jobs`` newest first; the active row follows its job, a new job becomes active.

    ``at``: the engine's roster ``jobs`` were taken at. Returns whether anything changed.
    """
    global _mirror, _mirror_roster
    wanted = [job.id for job in reversed(jobs)]
    rows = wm.kiln_jobs  # type: ignore[attr-defined]
    current = [row.job_id for row in rows]
    _mirror, _mirror_roster = wanted, (_mirror_roster if at is None else at)
    if current == wanted:
        return False
    index = wm.kiln_job_index  # type: ignore[attr-defined]
    active = current[index] if 0 <= index < len(current) else None
    known = set(current)
    new = [job_id for job_id in wanted if job_id not in known]
    rows.clear()
    for job in reversed(jobs):
        _add_row(rows, job)
    focus = new[0] if new else active
    position = wanted.index(focus) if focus in wanted else max(0, min(index, len(wanted) - 1))
    wm.kiln_job_index = position  # type: ignore[attr-defined]
    return True


def add_started(wm: bpy.types.WindowManager | None, job: Job, before: tuple[int, int]) -> bool:
    """Put the row of ``job``, just recorded, on top and make it active, when the rows mirrored the
    engine's roster ``before`` it and nothing else came since (O(1) among 5,000 jobs: the submit's
    cost). Otherwise the Jobs panel's resync writes every row. Returns whether the row was added."""
    global _mirror, _mirror_roster
    after = roster()
    if wm is None or behind(wm, before) or after != (before[0], before[1] + 1):
        return False
    rows = wm.kiln_jobs  # type: ignore[attr-defined]
    _add_row(rows, job)
    rows.move(len(rows) - 1, 0)
    wm.kiln_job_index = 0  # type: ignore[attr-defined]
    _mirror, _mirror_roster = [job.id, *_mirror], after
    return True


def _add_row(rows: Any, job: Job) -> None:
    row = rows.add()
    row.job_id = job.id
    row.name = job.request.label[:64]


def sync_now(wm: bpy.types.WindowManager | None) -> bool:
    """Rows mirroring the engine as it is now; returns whether anything changed."""
    at = roster()
    return wm is not None and sync_rows(wm, jobs(), at)
