"""A batch's summary and review sheet say how well each image job's mesh matches its image."""

from __future__ import annotations

import json

from api.features.batch import summarize
from api.features.quality.review import review_html
from api.jobs import Job, JobRequest, JobState


def _job(fidelity: float | None, state: JobState = JobState.IMPORTED) -> Job:
    preflight = json.dumps({"findings": ["blurred"], "prepared": True})
    request = JobRequest(kind="image", image_path="/art/chair.png", preflight=preflight)
    return Job(id=f"j{fidelity}", request=request, state=state, fidelity=fidelity)


def test_the_summary_and_the_sheet_say_the_fidelity() -> None:
    summary = summarize([_job(0.91), _job(0.3), _job(None)])
    rows = summary["jobs"]
    assert [row["fidelity"] for row in rows] == [0.91, 0.3, None]
    assert rows[0]["image_check"] == ["blurred"]
    assert "matches your image well" in rows[0]["fidelity_said"]
    assert "looks unlike your image" in rows[1]["fidelity_said"]
    assert "could not be measured" in rows[2]["fidelity_said"]
    page = review_html("Batch", summary, "sheet.png")
    assert "matches your image well (91% alike" in page and "could not be measured" in page


def test_a_text_job_has_no_fidelity() -> None:
    (row,) = summarize(
        [Job(id="t", request=JobRequest(kind="text", prompt="a mug"), state=JobState.IMPORTED)]
    )["jobs"]
    assert "fidelity" not in row
