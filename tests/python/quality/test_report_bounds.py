"""The quality report on hostile meshes: its work is bounded by the triangles whatever the numbers, it
says in words what it could not measure, and no measure can take the rest of the report down.

The time bounds are generous guards against work that grows with the UV numbers (the report used
to mark every texel of each triangle's UV box: hours at 100,000 triangles spanning the square);
speed itself is ``make bench``'s business.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from api.features.quality import budget, topology, uv, verdict
from api.features.quality.findings import QualityReport
from api.features.quality.report import FAILED, OUT_OF_TIME, Inventory, MeshArrays, build_report

TRIANGLES = 100_000
#: Seconds a 100k-triangle report may take in these tests: a guard, not a target (about 0.3 s here).
GUARD_SECONDS = 10.0


def grid(triangles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions, triangles, corner UVs) of a wavy square of at least ``triangles`` triangles, its UVs
    one packed square: one open part, no overlap."""
    n = int(np.ceil(np.sqrt(triangles / 2)))
    ticks = np.linspace(0.0, 1.0, n + 1)
    u, v = np.meshgrid(ticks, ticks)
    positions = np.column_stack([u.ravel(), 0.05 * np.sin(12 * u.ravel()), v.ravel()])
    index = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    a, b, c, d = (
        index[:-1, :-1].ravel(),
        index[:-1, 1:].ravel(),
        index[1:, :-1].ravel(),
        index[1:, 1:].ravel(),
    )
    faces = np.concatenate([np.column_stack([a, c, b]), np.column_stack([b, c, d])])
    return positions, faces, np.column_stack([u.ravel(), v.ravel()])[faces]


def hostile(layout: str, corner_uvs: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(34)
    count = len(corner_uvs)
    if layout == "scaled x1000":
        return corner_uvs * 1000.0
    if layout == "random in ±1e6":
        return rng.uniform(-1e6, 1e6, corner_uvs.shape)
    if layout == "not numbers":
        return np.full(corner_uvs.shape, np.nan)
    if layout == "whole square":
        return np.tile(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), (count, 1, 1))
    assert layout == "long thin slivers"
    # Each a hair's width along the square's diagonal: next to no area, but crossing every row.
    width = rng.uniform(5e-6, 1.5e-5, count)
    lower, upper = np.zeros(count), np.ones(count)
    return np.stack(
        [
            np.column_stack([lower, lower]),
            np.column_stack([upper - width, upper]),
            np.column_stack([upper, upper - width]),
        ],
        axis=1,
    ) * 0.99 + rng.uniform(0.0, 0.005, (count, 1, 2))


def timed_report(meshes: list[MeshArrays]) -> tuple[QualityReport, float]:
    start = time.perf_counter()
    report, _ = build_report(meshes, Inventory(objects=len(meshes)))
    return report, time.perf_counter() - start


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("layout", "sentence"),
    [
        pytest.param(layout, sentence, id=layout)
        for layout, sentence in (
            ("scaled x1000", uv.REPEATS),
            ("random in ±1e6", uv.REPEATS),
            ("whole square", uv.REPEATS),
            ("not numbers", uv.NOT_NUMBERS),
        )
    ],
)
def test_a_hostile_uv_layout_is_reported_quickly_and_said_not_measured(layout: str, sentence: str) -> None:
    positions, faces, corner_uvs = grid(TRIANGLES)
    report, seconds = timed_report([MeshArrays(positions, faces, hostile(layout, corner_uvs))])
    assert seconds < GUARD_SECONDS, f"{layout}: {seconds:.1f} s"
    assert report.not_measured == {"uv_overlap": sentence}
    assert report.uv_overlap == 0.0 and report.estimated == {}
    assert report.verdict == verdict.PROBLEMS, "the grid is open: its rim is a hole"
    assert report.reasons[-1] == sentence, "the last reason says what was not measured"
    # The rest of the report stands: one open square, nothing flipped.
    assert (report.triangles, report.parts, report.inverted_faces) == (len(faces), 1, 0)
    assert report.boundary_edges == 4 * int(np.sqrt(len(faces) / 2))
    assert QualityReport.from_json(report.to_json()) == report


@pytest.mark.timeout(60)
def test_long_thin_uv_triangles_are_estimated_within_budget_and_said_so() -> None:
    positions, faces, corner_uvs = grid(TRIANGLES)
    slivers = hostile("long thin slivers", corner_uvs)
    report, seconds = timed_report([MeshArrays(positions, faces, slivers)])
    assert seconds < GUARD_SECONDS, f"{seconds:.1f} s"
    assert report.estimated == {"uv_overlap": uv.SAMPLED} and report.not_measured == {}
    assert report.uv_overlap > 0.9, "a hundred thousand slivers stacked on one diagonal"
    assert report.reasons[-2:] == [f"About {report.uv_overlap:.0%} of the UV area is used twice.", uv.SAMPLED]


def test_a_sampled_overlap_is_close_to_the_whole_one() -> None:
    """Over its budget the raster marks every k-th row only: the share stays within a point or two."""
    _, _, corner_uvs = grid(20_000)
    # The square's layout, and its bottom quarter again at half size inside it: 0.5 x 0.125 lies twice.
    bottom = corner_uvs[corner_uvs[:, :, 1].mean(axis=1) < 0.25]
    stacked = np.concatenate([corner_uvs, bottom * 0.5 + 0.1])
    whole = uv.overlap(stacked)
    sampled = uv.overlap(stacked, spans=len(stacked) // 8)
    assert whole.note == "" and not whole.estimated
    assert sampled.estimated and sampled.note == uv.SAMPLED
    assert whole.share == pytest.approx(0.5 * 0.125, abs=0.01)
    assert sampled.share == pytest.approx(whole.share, abs=0.02)


def test_triangles_whose_uvs_are_not_numbers_are_left_out_and_counted_in_words() -> None:
    _, _, corner_uvs = grid(2_000)
    broken = corner_uvs.copy()
    broken[:3, 1, 0] = np.nan
    broken[3, 2, 1] = np.inf
    made = uv.overlap(broken)
    assert made.share == 0.0 and made.estimated
    assert made.note == "UV overlap measured without 4 triangles whose UV coordinates are not numbers."
    assert (
        uv.without_numbers(1)
        == "UV overlap measured without 1 triangle whose UV coordinates are not numbers."
    )


def test_the_uv_raster_stops_at_the_deadline() -> None:
    _, _, corner_uvs = grid(2_000)
    with pytest.raises(budget.OutOfTime):
        uv.overlap(corner_uvs, deadline=budget.Deadline(at=time.monotonic() - 1.0))


def test_a_measure_that_fails_leaves_the_rest_of_the_report() -> None:
    """Real broken input, no stand-ins: UVs that are not three corners per triangle break the UV
    overlap only; triangles naming vertices that do not exist break that mesh's shape only."""
    positions, faces, corner_uvs = grid(2_000)
    odd_uvs = corner_uvs.reshape(-1)[:-1]  # one number short of whole corners
    report, _ = build_report([MeshArrays(positions, faces, odd_uvs)], Inventory(objects=1))
    assert report.not_measured == {"uv_overlap": FAILED.format(what="UV overlap")}
    assert (report.triangles, report.parts, report.inverted_faces) == (len(faces), 1, 0)
    assert report.reasons[-1] == "UV overlap not measured: something in this mesh stopped the count."

    dangling = faces.copy()
    dangling[0, 0] = len(positions) + 5
    sound = MeshArrays(positions, faces, corner_uvs)
    report, analyses = build_report(
        [MeshArrays(positions, dangling, corner_uvs), sound], Inventory(objects=2)
    )
    shape = FAILED.format(what="Parts, holes and inward faces")
    assert report.not_measured == {
        name: shape
        for name in (
            "vertices",
            "parts",
            "small_parts",
            "non_manifold_edges",
            "boundary_edges",
            "zero_area_faces",
            "inverted_faces",
            "inside_out_faces",
        )
    }
    assert analyses[0] is None and analyses[1] is not None
    assert report.triangles == 2 * len(faces), "every triangle is counted"
    assert report.parts == 1, "the sound mesh's part is still counted"
    assert report.uv_overlap == 0.0 and "uv_overlap" not in report.not_measured, "both meshes' UVs measured"
    assert report.verdict == verdict.PROBLEMS
    assert report.reasons.count(shape) == 1, "one sentence per cause"


def test_a_report_out_of_time_still_says_what_it_holds() -> None:
    positions, faces, corner_uvs = grid(2_000)
    report, analyses = build_report(
        [MeshArrays(positions, faces, corner_uvs)], Inventory(objects=1), seconds=-1.0
    )
    assert analyses == [None]
    assert report.triangles == len(faces) and report.split_vertices == len(positions)
    assert set(report.not_measured) == {
        "dimensions",
        "vertices",
        "parts",
        "small_parts",
        "non_manifold_edges",
        "boundary_edges",
        "zero_area_faces",
        "inverted_faces",
        "inside_out_faces",
        "uv_overlap",
    }
    assert report.not_measured["uv_overlap"] == OUT_OF_TIME.format(what="UV overlap")
    assert report.verdict == verdict.CHECK
    assert "UV overlap not measured: the report ran out of time on this mesh." in report.reasons


def test_positions_that_are_not_numbers_neither_stall_nor_spoil_the_size() -> None:
    positions, faces, corner_uvs = grid(TRIANGLES)
    positions = positions.copy()
    positions[::7] = np.nan
    report, seconds = timed_report([MeshArrays(positions, faces, corner_uvs)])
    assert seconds < GUARD_SECONDS
    assert all(np.isfinite(report.dimensions)) and report.dimensions[0] == pytest.approx(1.0)
    touched = np.isnan(positions[faces]).any(axis=(1, 2))
    assert report.zero_area_faces == int(touched.sum()), (
        "a triangle with a corner that is no number has no area"
    )
    assert "NaN" not in report.to_json()


def test_every_other_triangle_flipped_is_counted_on_the_smaller_side() -> None:
    """Winding with as many patches as triangles (the two-colouring is one union-find, no Python walk)."""
    positions, faces, corner_uvs = grid(TRIANGLES)
    flipped = np.random.default_rng(5).random(len(faces)) < 0.3
    faces = faces.copy()
    faces[flipped] = faces[flipped][:, ::-1]
    report, seconds = timed_report([MeshArrays(positions, faces, corner_uvs)])
    assert seconds < GUARD_SECONDS
    assert report.inverted_faces == int(flipped.sum())


def test_two_colouring_joins_regions_and_gives_a_mobius_strip_one_colour() -> None:
    # Patches 0-1-2 disagree in a chain, 3 with none, and 4, 5 and 6 in a ring of three that no two
    # colours satisfy (as around a Möbius strip).
    patch = np.array([0, 1, 2, 2, 3, 4, 5, 6])
    disagree = np.array([[0, 1], [1, 2], [4, 5], [5, 6], [4, 6]])
    assert topology.two_colour(patch, disagree).tolist() == [0, 1, 0, 0, 0, 0, 0, 0]


def test_an_old_report_without_the_new_keys_still_loads() -> None:
    old = {
        "triangles": 12,
        "vertices": 8,
        "split_vertices": 24,
        "objects": 1,
        "materials": 1,
        "textures": ["64x64"],
        "dimensions": [1.0, 1.0, 1.0],
        "parts": 1,
        "small_parts": 0,
        "non_manifold_edges": 0,
        "boundary_edges": 0,
        "zero_area_faces": 0,
        "inverted_faces": 0,
        "inside_out_faces": 0,
        "uv_overlap": 0.0,
        "has_uvs": True,
        "verdict": "ready",
        "reasons": [],
        "fixes": [],
    }
    report = QualityReport.from_json(json.dumps(old))
    assert report.not_measured == {} and report.estimated == {} and report.triangles == 12
    with pytest.raises(ValueError):
        QualityReport.from_json(json.dumps({**old, "not_measured": ["uv_overlap"]}))
