"""The one way a job starts on the Blender side: every front door hands its request here.

The Generate operators, the selection's blockout, a batch, an agent (``agents.actions``) and the farm
script (``farm/kiln_farm.py``) each build a ``JobRequest`` and call :func:`start_job`; none records a
job itself. The engine records it (refused before anything is recorded when its service cannot take
it) and sends it once it is on disk; the job belongs to the open .blend, and the import options it
was asked with are kept for the moment it lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..api.jobs import Job, JobRequest
from ..drawing import tag_redraw
from . import job_rows, runtime
from .state import choose_options

if TYPE_CHECKING:
    from ..api.features.blockout import Fit
    from .placement import ImportOptions


def start_job(
    context: bpy.types.Context | None,
    request: JobRequest,
    *,
    group: str = "",
    import_options: ImportOptions | None = None,
    fit: Fit = "CONTAIN",
) -> Job:
    """Record ``request`` with this session's engine, as started from the open .blend; ``group`` names
    a batch's collection, ``import_options`` (and a blockout's ``fit``) how it lands. Raises InputError
    (its service refuses it) or KilnError (the job list cannot be written, or no engine runs)."""
    engine = runtime.engine(context)
    before = job_rows.roster()
    job = engine.record(request, origin=runtime.current_origin(), group=group)
    if import_options is not None:
        choose_options(job.id, import_options, fit)
    if job_rows.add_started((context or bpy.context).window_manager, job, before):
        tag_redraw()  # one frame shows the new row, not a second after the draw resyncs
    return job
