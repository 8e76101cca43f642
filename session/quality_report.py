"""A result's quality report, read back in the artist's Blender from the objects it was stamped on.

Whichever Blender finished the result (``finishing.game_ready``) wrote the report as JSON on each
object; the Sidebar, a batch's summary and the agents read it here, from this file's objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..api.features.quality import QUALITY_KEY
from ..api.jobs import Job

if TYPE_CHECKING:
    from ..api.features.quality.findings import QualityReport


def job_report(job: Job) -> QualityReport | None:
    """The report on the first of a job's objects still in this file (None: none carries one)."""
    from ..api.features.quality import findings  # loaded by the first report read, not at register

    for name in job.objects:
        obj = bpy.data.objects.get(name)
        text = obj.get(QUALITY_KEY) if obj is not None else None
        if isinstance(text, str):
            try:
                return findings.QualityReport.from_json(text)
            except (ValueError, TypeError):
                return None
    return None
