"""The verdict on a report, *ready*, *check* or *problems*, and its reasons in words: the one place
that decides what counts as a problem.

*problems*: an engine or a print would show it (holes, faces pointing in, no triangles).
*check*: it may be fine, an artist should look (fragments, odd edges, slivers, UVs, or something the
report could not measure).
"""

from __future__ import annotations

from typing import Protocol

READY, CHECK, PROBLEMS = "ready", "check", "problems"
VERDICTS = (READY, CHECK, PROBLEMS)

#: A part with less than this share of the triangles is a fragment (when there is more than one part).
SMALL_PART_SHARE = 0.01
#: UV overlap up to this share is packing noise, not a layout that mirrors or stacks charts.
UV_OVERLAP_SHARE = 0.02


class Findings(Protocol):
    """What a verdict reads of a report (``report.QualityReport`` has it; this module stays below it)."""

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
    """(verdict, reasons): the worst finding decides; the reasons say each finding, worst first."""
    problems: list[str] = []
    checks: list[str] = []
    if report.triangles == 0:
        problems.append("It has no triangles.")
    if report.inverted_faces:
        problems.append(f"{report.inverted_faces:,} triangles face inwards (their winding disagrees).")
    if report.inside_out_faces:
        problems.append(f"{report.inside_out_faces:,} triangles of closed parts face inwards (inside out).")
    if report.boundary_edges:
        problems.append(f"The surface is open: {report.boundary_edges:,} edges border a hole.")
    odd = report.non_manifold_edges - report.boundary_edges
    if odd:
        checks.append(f"{odd:,} edges are shared by more than two triangles.")
    if report.small_parts:
        checks.append(
            f"{report.small_parts:,} loose fragments (each under {SMALL_PART_SHARE:.0%} of the triangles)."
        )
    if report.zero_area_faces:
        checks.append(f"{report.zero_area_faces:,} triangles have no area.")
    if not report.has_uvs:
        checks.append("It has no UV map.")
    elif report.uv_overlap > UV_OVERLAP_SHARE:
        if "uv_overlap" in report.estimated:
            checks.append(f"About {report.uv_overlap:.0%} of the UV area is used twice.")
            checks.append(report.estimated["uv_overlap"])
        else:
            checks.append(f"{report.uv_overlap:.0%} of the UV area is used twice.")
    # What was not measured may hide a problem: an artist should look. One sentence per cause.
    checks.extend(dict.fromkeys(report.not_measured.values()))
    if problems:
        return PROBLEMS, problems + checks
    return (CHECK, checks) if checks else (READY, [])
