"""The verdict on a report, *ready*, *check* or *problems*, and its reasons in words: the one place
that decides what counts as a problem.

*problems*: an engine or a print would show it (holes, faces pointing in, no triangles).
*check*: it may be fine, an artist should look (fragments, odd edges, slivers, UVs, or something the
report could not measure).
"""

from __future__ import annotations

from typing import Protocol

from ...words import Message, as_message, english_message, message
from ...words import catalogue as words

READY, CHECK, PROBLEMS = "ready", "check", "problems"
VERDICTS = (READY, CHECK, PROBLEMS)

#: A part with less than this share of the triangles is a fragment (when there is more than one part).
SMALL_PART_SHARE = 0.01
#: UV overlap up to this share is packing noise, not a layout that mirrors or stacks charts.
UV_OVERLAP_SHARE = 0.02


class Findings(Protocol):
    """What a verdict reads of a report (``findings.QualityReport`` has it; this module stays below it)."""

    triangles: int
    inverted_faces: int
    inside_out_faces: int
    boundary_edges: int
    non_manifold_edges: int
    small_parts: int
    zero_area_faces: int
    has_uvs: bool
    uv_overlap: float
    not_measured: dict[str, str]
    estimated: dict[str, str]


def judge(report: Findings) -> tuple[str, list[str]]:
    """(verdict, reasons): the worst finding decides; the reasons say each finding, worst first (in
    English: what the report keeps; :func:`reasons` has them to say in the artist's language)."""
    problems, checks = _findings(report)
    verdict = PROBLEMS if problems else CHECK if checks else READY
    return verdict, [english_message(said) for said in problems + checks]


def reasons(report: Findings) -> list[Message]:
    """Each finding of ``report`` as a sentence, worst first (the reasons ``judge`` gives, to say)."""
    problems, checks = _findings(report)
    return problems + checks


#: The verdict as an artist reads it ("failed": a job that made no result).
VERDICT_WORDS = {
    READY: words.VERDICT_READY,
    CHECK: words.VERDICT_CHECK,
    PROBLEMS: words.VERDICT_PROBLEMS,
    "failed": words.VERDICT_FAILED,
}


def _findings(report: Findings) -> tuple[list[Message], list[Message]]:
    """What an engine or a print would show (problems), and what an artist should look at (checks)."""
    problems: list[Message] = []
    checks: list[Message] = []
    if report.triangles == 0:
        problems.append(message(words.QUALITY_NO_TRIANGLES))
    if report.inverted_faces:
        problems.append(message(words.QUALITY_INVERTED, n=report.inverted_faces))
    if report.inside_out_faces:
        problems.append(message(words.QUALITY_INSIDE_OUT, n=report.inside_out_faces))
    if report.boundary_edges:
        problems.append(message(words.QUALITY_OPEN, n=report.boundary_edges))
    odd = report.non_manifold_edges - report.boundary_edges
    if odd:
        checks.append(message(words.QUALITY_ODD_EDGES, n=odd))
    if report.small_parts:
        checks.append(message(words.QUALITY_FRAGMENTS, n=report.small_parts, share=SMALL_PART_SHARE))
    if report.zero_area_faces:
        checks.append(message(words.QUALITY_ZERO_AREA, n=report.zero_area_faces))
    if not report.has_uvs:
        checks.append(message(words.QUALITY_NO_UVS))
    elif report.uv_overlap > UV_OVERLAP_SHARE:
        if "uv_overlap" in report.estimated:
            checks.append(message(words.QUALITY_UV_OVERLAP_ABOUT, share=report.uv_overlap))
            checks.append(as_message(report.estimated["uv_overlap"]))
        else:
            checks.append(message(words.QUALITY_UV_OVERLAP, share=report.uv_overlap))
    # What was not measured may hide a problem: an artist should look. One sentence per cause (kept in
    # the report in English: said as it is).
    checks.extend(as_message(why) for why in dict.fromkeys(report.not_measured.values()))
    return problems, checks
