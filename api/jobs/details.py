"""What Copy Details puts on the clipboard for one job: the internals an artist hands to support.

The sentences an artist reads leave these out (ids, states, the service's own words, Kiln's file
names); here they are, in English, one fact a line, so support can read them and the artist can
paste them anywhere. Never the API key: every text here was redacted before it was stored.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..checks.fidelity import words_for as fidelity_words
from ..words import english
from .model import Job


def job_details(job: Job) -> str:
    """Every fact about ``job`` support may need, one a line (blank facts left out)."""
    request = job.request
    lines = [
        ("Kiln job", job.id),
        ("Service", request.service_id),
        ("Service task", job.task_id),
        ("Service task Kiln refused to follow (escaped)", job.refused_task_id),
        ("State", job.state.value),
        ("Kind", str(request.kind)),
        ("Resolution", str(job.resolution or request.resolution or "service default")),
        ("Tier", request.tier),
        ("Options", request.options),
        ("Stage", str(job.stage + 1) if job.stage else ""),
        ("Prompt" if request.prompt else "Image", request.prompt or request.image_path or request.image_url),
        ("Image sent (prepared by Kiln)", request.image_sent),
        ("Image check", request.preflight),
        ("Fidelity", _fidelity(job)),
        ("Retries", str(job.attempt) if job.attempt else ""),
        ("Created", _when(job.created_at)),
        ("Sent", _when(job.submitted_at)),
        ("Finished", _when(job.finished_at)),
        ("Error", job.error),
        ("Error details", job.error_message.details if job.error_message else ""),
        ("Note", job.note),
        ("Note details", job.note_message.details if job.note_message else ""),
        ("Files", ", ".join(Path(p).name for p in (job.mesh_path, job.preview_path, job.blend_path) if p)),
    ]
    return "\n".join(f"{name}: {value}" for name, value in lines if value)


def _fidelity(job: Job) -> str:
    """How well the mesh matches its image, in words and number (image jobs with a mesh only)."""
    if str(job.request.kind) != "image" or not (job.mesh_path or job.fidelity is not None):
        return ""
    said = english(fidelity_words(job.fidelity), percent=round((job.fidelity or 0) * 100))
    return f"{said} [{job.fidelity:.3f}, {job.fidelity_view}]" if job.fidelity is not None else said


def _when(moment: float | None) -> str:
    """A time as a reader anywhere reads it: ISO 8601 in UTC."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment)) if moment else ""
