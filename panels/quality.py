"""The quality report's short line in the job details: "problems · 12,034 tris · 1 part" and the
first reason, read from the ``kiln_quality`` property the helper left on the job's objects."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..api.features.quality.verdict import CHECK, PROBLEMS
from ..api.jobs import Job
from ..drawing import wrapped_label
from ..helper_blender.game_ready import job_report

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

VERDICT_ICONS: dict[str, IconItems] = {PROBLEMS: "ERROR", CHECK: "INFO"}


def draw_quality(layout: bpy.types.UILayout, context: bpy.types.Context, job: Job) -> None:
    report = job_report(job)
    if report is None:
        return
    layout.label(text=report.summary(), icon=VERDICT_ICONS.get(report.verdict, "CHECKMARK"))
    if report.reasons:
        wrapped_label(layout, context, report.reasons[0])
    if report.fixes:
        wrapped_label(layout, context, "; ".join(report.fixes).capitalize() + ".")
