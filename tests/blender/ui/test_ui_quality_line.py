"""The job details show the result's quality report in one line, its first reason, and Export…."""

from __future__ import annotations

from typing import Any

from recording_layout import draw, run_pending_sync, sync_asked


def test_job_details_show_the_verdict_line_first_reason_and_export(
    service: Any, blender: Any, ui: Any
) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="a box defect:hole", reuse="NEVER") == {"FINISHED"}
    job = ui.runtime.engine(blender.context).jobs()[-1]
    draw(ui.jobs.KILN_PT_jobs, blender.context)
    if sync_asked(ui.jobs):
        run_pending_sync(blender, ui.jobs)
    layout = draw(ui.jobs.KILN_PT_jobs, blender.context)
    (line,) = [c for c in layout.of("label") if c.text.startswith("problems ·")]
    assert line.text == "problems · 760 triangles · 1 part" and line.kwargs["icon"] == "ERROR"
    assert "The surface is open: 8 edges border a hole." in layout.text()
    (export,) = layout.operators("kiln.export_job")
    assert export.props.job_id == job.id and export.text == "Export…"  # the operator's own name
    assert blender.types.KILN_OT_export_job.bl_label == "Export…"
