"""The bpy-free parts of game-ready output: welding, zero-area faces, UV overlap, verdicts, options, names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from api.errors import InputError
from api.features.quality import naming, topology, uv, verdict
from api.features.quality.findings import QualityReport
from api.features.quality.options import GameOptions, parse_lods
from api.features.quality.report import Inventory, MeshArrays, build_report


def square(x: float, y: float, size: float) -> np.ndarray:
    """Two UV triangles covering a square."""
    a, b, c, d = (x, y), (x + size, y), (x + size, y + size), (x, y + size)
    return np.array([[a, b, c], [a, c, d]], dtype=np.float64)


def test_weld_joins_bit_identical_positions_and_treats_minus_zero_as_zero() -> None:
    ids, count = topology.weld(np.array([[0.0, 1.0, 2.0], [-0.0, 1.0, 2.0], [0.0, 1.0, 2.001]]))
    assert count == 2 and ids[0] == ids[1] != ids[2]


def test_uv_overlap_is_the_share_of_covered_area_covered_twice() -> None:
    def share(uvs: np.ndarray) -> float | None:
        made = uv.overlap(uvs)
        assert made.note == "", "an ordinary layout is measured in full"
        return made.share

    assert share(square(0.1, 0.1, 0.4)) == 0.0
    assert share(np.concatenate([square(0.1, 0.1, 0.4), square(0.1, 0.1, 0.4)])) == 1.0
    half = share(np.concatenate([square(0.1, 0.1, 0.4), square(0.3, 0.1, 0.4)]))
    assert half == pytest.approx(1 / 3, abs=0.01)
    tiled = share(np.concatenate([square(0.1, 0.1, 0.4), square(1.1, 2.1, 0.4)]))
    assert tiled == 1.0, "a tile away is the same texels"
    palette = np.full((10, 3, 2), 0.5)
    assert share(palette) == 0.0, "zero-area UVs (a palette texture) overlap nothing"


def test_zero_area_faces_are_counted_and_left_out_of_the_edges() -> None:
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0]], dtype=np.float64)
    triangles = np.array([[0, 1, 2], [0, 1, 3], [1, 1, 2]])  # a sound one, a collinear one, a repeated corner
    report, _ = build_report([MeshArrays(positions, triangles, None)], Inventory(objects=1))
    assert report.zero_area_faces == 2 and report.triangles == 3
    assert report.verdict == verdict.PROBLEMS
    assert "It has no UV map." in report.reasons and "2 triangles have no area." in report.reasons


def test_a_report_survives_json_and_says_itself_in_one_line() -> None:
    report = QualityReport(triangles=12_034, parts=1, verdict="check", reasons=["x"])
    again = QualityReport.from_json(report.to_json())
    assert again == report and again.summary() == "check · 12,034 triangles · 1 part"
    with pytest.raises(ValueError):
        QualityReport.from_json("[1, 2]")


def test_a_report_is_read_back_without_loading_numpy() -> None:
    """The artist's Blender reads a report on its UI thread (the Sidebar's line): loading numpy there
    stalls the window for a fifth of a second, and some Blenders' Pythons lack it."""
    code = (
        "import sys\n"
        "from api.features.quality.findings import QualityReport\n"
        "QualityReport.from_json(QualityReport(triangles=3).to_json()).summary()\n"
        "assert 'numpy' not in sys.modules, 'numpy was loaded'\n"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_lod_ratios_are_falling_shares_and_bad_ones_get_a_sentence() -> None:
    assert parse_lods("0.5, 0.25") == (0.5, 0.25)
    assert parse_lods("50%;25%") == (0.5, 0.25)
    assert parse_lods("") == ()
    for bad, words in (("half", "not a number"), ("1.5", "between 0 and 1"), ("0.25,0.5", "must fall")):
        with pytest.raises(InputError, match=words):
            parse_lods(bad)


def test_options_travel_as_json_and_nothing_asked_is_empty_text() -> None:
    assert GameOptions().to_text() == ""
    options = GameOptions(fix_merge=True, triangles=5000, lods=(0.5,), engine="UNREAL", collision="HULL")
    assert GameOptions.from_text(options.to_text()) == options
    assert GameOptions.from_text("{not json") == GameOptions()
    with pytest.raises(InputError):
        GameOptions(engine="CRYENGINE")


@pytest.mark.parametrize(
    ("engine", "lods", "collision", "file"),
    [
        (
            "UNREAL",
            ("SM_RedChair", "SM_RedChair_LOD1", "SM_RedChair_LOD2"),
            "UCX_SM_RedChair_00",
            "SM_RedChair.fbx",
        ),
        ("UNITY", ("RedChair_LOD0", "RedChair_LOD1", "RedChair_LOD2"), "RedChair_Collider", "RedChair.fbx"),
        ("GODOT", ("RedChair", "RedChair_LOD1", "RedChair_LOD2"), "RedChair-convcolonly", "RedChair.glb"),
        ("NONE", ("RedChair", "RedChair_LOD1", "RedChair_LOD2"), "RedChair_Collision", "RedChair.glb"),
    ],
)
def test_each_engine_names_lods_and_collision_its_own_way(
    engine: str, lods: tuple[str, ...], collision: str, file: str
) -> None:
    names = naming.engine_names(engine, naming.asset_name("a red chair"), 2)
    assert (names.lods, names.collision, names.file) == (lods, collision, file)


def test_asset_names_are_safe_for_every_engine() -> None:
    assert naming.asset_name("the 3 old/../chairs!") == "Asset3OldChairs"
    assert naming.asset_name("…") == "Asset"


def test_csv_game_columns_override_the_batch_per_line_and_bad_cells_skip_the_line(tmp_path: Any) -> None:
    from api.features.batch import parse_csv

    text = "prompt,triangles,lods,export\na rock,5000,0.5,unreal\na box,,,\na cup,lots,,\na mug,,,maya\n"
    parsed = parse_csv(text, folder=tmp_path)
    rock, box = parsed.items
    base = GameOptions(fix_merge=True, triangles=200, collision="HULL")
    assert rock.row.apply(base, "/out") == GameOptions(
        fix_merge=True, triangles=5000, lods=(0.5,), collision="HULL", engine="UNREAL", export_dir="/out"
    )
    assert box.row.apply(base, "/out") == base, "blank cells keep the batch's"
    assert [str(p) for p in parsed.problems] == [
        "line 4: The triangle budget “lots” is not a whole number.",
        "line 5: The export “maya” is not one of UNREAL, UNITY, GODOT, GLB.",
    ]


def test_a_small_hull_grows_just_enough_to_hold_every_point() -> None:
    from api.features.quality import hull

    octahedron = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float)
    faces = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]])
    points = np.random.default_rng(3).normal(size=(500, 3))
    factor, centre = hull.enclosing_scale(octahedron, faces, points)
    # Inside the octahedron scaled by s exactly when |x| + |y| + |z| <= s.
    assert factor == pytest.approx(np.abs(points).sum(axis=1).max()) and np.allclose(centre, 0)
    assert hull.enclosing_scale(octahedron, faces, points * 0.0)[0] == 1.0, "never shrinks"
    spread = hull.farthest_points(points, 20)
    assert len(set(spread.tolist())) == 20
    off_centre = np.linalg.norm(points - points.mean(axis=0), axis=1)
    assert off_centre[spread[0]] == off_centre.max(), "it starts at the point farthest out"
