"""Kiln's jobs as the agent tools report them (``api.agents.JobView``), made on the main thread.

A view is plain values copied from the engine's snapshot and from the scene: the objects the job
brought in, their quality report (the ``kiln_quality`` property the helper left on them), and
whether a ready job waits for ``import_job`` (it was started from another .blend than the open one,
or automatic import is off) or lands by itself on the watcher's next beat.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import bpy

from .. import preferences
from ..api.agents import JobView
from ..api.checks.image_preflight import finding_entry
from ..api.features.credits import request_cost
from ..api.jobs import Job, JobKind, JobState
from ..api.words import english
from ..session import runtime
from ..session.provenance import job_provenance
from ..session.quality_report import job_report

if TYPE_CHECKING:
    from ..api.jobs import JobEngine


def view(context: bpy.types.Context, engine: JobEngine, job: Job) -> JobView:
    """``job`` as the tools report it (main thread: it reads the scene)."""
    imported = job.state is JobState.IMPORTED
    report = job_report(job) if imported else None
    lands_here = preferences.get(context).auto_import and job.origin == runtime.current_origin()
    return JobView(
        id=job.id,
        state=job.state,
        kind=JobKind(job.request.kind),
        label=job.request.label,
        agent=job.request.agent,
        progress=100.0 if imported else job.progress,
        error=job.error,
        created=job.created_at,
        cost=request_cost(job.request, preferences.text_cost(context)),
        objects=tuple(job.objects) if imported else (),
        triangles=job.triangles,
        verdict=report.verdict if report is not None else "",
        reasons=tuple(report.reasons) if report is not None else (),
        has_preview=bool(job.preview_path),
        waits_for_import=job.state is JobState.READY and not (lands_here and engine.is_own(job)),
        provenance=job_provenance(job, context),
        image_check=image_check(job),
        fidelity=job.fidelity,
    )


def image_check(job: Job) -> dict[str, Any] | None:
    """What the image check found and prepared, with each finding's sentence (in English, for agents)."""
    if not job.request.preflight:
        return None
    try:
        found = json.loads(job.request.preflight)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    codes = [code for code in found.get("findings", []) if isinstance(code, str)]
    said = []
    for code in codes:
        entry = finding_entry(code)
        if entry is not None:
            said.append(english(entry, name=job.request.label))
    found["said"] = said
    return found


def of_id(job_id: str) -> JobView | None:
    context = bpy.context
    engine = runtime.engine(context)
    job = engine.get(job_id)
    return view(context, engine, job) if job is not None else None


def agents_jobs() -> list[JobView]:
    """Every job an agent asked for (the artist's own are not the tools' business)."""
    context = bpy.context
    engine = runtime.engine(context)
    return [view(context, engine, job) for job in engine.jobs() if job.request.agent]
