"""What an agent's call does in the open scene, on Blender's main thread (run there by the bridge).

Each function is what a click in the Sidebar would do, through the same rooms: a job is recorded by
the job engine (sent once it is on disk) and lands as a clicked job does (the watcher imports it:
one undo step, the Kiln collection, provenance with ``kiln_agent``); an import goes through
``session.watcher.import_one``; the library's copy is placed by ``session.library.append``. Each
returns plain values for the worker, or raises KilnError with a sentence (nothing was done).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import bpy

from ..api.agents import JobView
from ..api.agents import words as agent_words
from ..api.errors import KilnError
from ..api.jobs import JobRequest, JobState
from ..api.words import shorten
from ..drawing import tag_redraw
from ..session import library, messenger, results_here, runtime, starting, watcher
from ..session.arguments import preferred_game, preferred_options
from ..session.placement import Placement
from ..session.scene_import import stamp_agent
from ..session.setup import setup_problems
from . import views

log = logging.getLogger(__name__)


def start_job(request: JobRequest) -> JobView:
    """Record an agent's job as Generate does (the preferences' fix-ups, this file as its origin)."""
    context = bpy.context
    problems = setup_problems(context)
    if problems:
        raise KilnError(problems[0])
    request = replace(request, game=preferred_game(context).to_text())
    job = starting.start_job(context, request)
    engine = runtime.engine(context)
    log.info("%s asked for “%s” (job %s)", request.agent, request.label[:40], job.id)
    tag_redraw()
    return views.view(context, engine, job)


def reuse(key: str, request: JobRequest) -> list[str]:
    """Place the library's copy as a fresh import of ``request`` would be; the objects' names."""
    context = bpy.context
    entry = library.lookup_key(key, context)
    if entry is None:
        raise KilnError(agent_words.LIBRARY_COPY_GONE)
    try:
        names = library.append(context, entry, Placement(preferred_options(context)), request)
    except OSError as exc:
        log.warning("Could not append %s from the Kiln library: %s", entry.blend, exc)
        reason = exc.strerror or "the file cannot be read"
        raise KilnError(
            agent_words.LIBRARY_COPY_UNREADABLE.format(label=shorten(entry.label, 40), reason=reason)
        ) from None
    for name in names:
        stamp_agent(bpy.data.objects[name], request.agent)
    log.info("%s reused the library's copy of “%s”: nothing was sent", request.agent, entry.label[:40])
    return names


def cancel(job_id: str) -> JobView:
    context = bpy.context
    engine = runtime.engine(context)
    engine.cancel(job_id)
    return _view(job_id)


def import_now(job_id: str) -> JobView:
    """Bring a ready job into the open scene now, as the Import button does (nothing when it is here)."""
    context = bpy.context
    engine = runtime.engine(context)
    job = engine.get(job_id)
    if job is None:
        raise KilnError(agent_words.NO_SUCH_JOB.format(job_id=job_id))
    if job.state is JobState.IMPORTED and results_here.is_here(job):
        return _view(job_id)
    if job.state not in (JobState.READY, JobState.IMPORTED):
        raise KilnError(agent_words.NOT_READY_TO_IMPORT.format(job_id=job_id))
    if not (job.blend_path and Path(job.blend_path).is_file()) and not Path(job.mesh_path).is_file():
        raise KilnError(agent_words.MESH_GONE.format(job_id=job_id))
    level, said = watcher.import_one(context, job)
    messenger.announce(level, said)
    tag_redraw()
    return _view(job_id)


def preview_of(job_id: str) -> Path | None:
    job = runtime.engine(bpy.context).get(job_id)
    return Path(job.preview_path) if job is not None and job.preview_path else None


def _view(job_id: str) -> JobView:
    found = views.of_id(job_id)
    if found is None:
        raise KilnError(agent_words.NO_SUCH_JOB.format(job_id=job_id))
    return found
