"""The quality report's short line in the job details: "problems · 12,034 tris · 1 part" and the
first reason, read from the ``kiln_quality`` property the helper left on the job's objects."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..api.features.quality import verdict
from ..api.features.quality.verdict import CHECK, PROBLEMS
from ..api.jobs import Job
from ..drawing import wrapped_label
from ..language import said
from ..session.quality_report import job_report

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

VERDICT_ICONS: dict[str, IconItems] = {PROBLEMS: "ERROR", CHECK: "INFO"}


def draw_quality(layout: bpy.types.UILayout, context: bpy.types.Context, job: Job) -> None:
    report = job_report(job)
    if report is None:
        return
    layout.label(text=said(report.summary_message()), icon=VERDICT_ICONS.get(report.verdict, "CHECKMARK"))
    reasons = verdict.reasons(report)
    if reasons:
        wrapped_label(layout, context, said(reasons[0]))
    for fix in report.fix_messages():
        wrapped_label(layout, context, said(fix))
