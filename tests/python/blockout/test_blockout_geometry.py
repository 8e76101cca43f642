"""The blockout's pure part: prompts from names, fits, and variant order (no Blender)."""

from __future__ import annotations

import pytest

from api.features.blockout import (
    DEFAULT_NAMES,
    Box,
    JobSource,
    empty_box,
    fit_into,
    fit_scale,
    has_default_name,
    job_source,
    scaled_box,
    variant_after,
)


def test_only_a_marked_object_asks_for_a_job_never_its_name() -> None:
    assert job_source() is None  # "Barrel.003" or "a red chair" as a name alone asks for nothing
    assert job_source(prompt=" a red chair ") == JobSource("text", "a red chair")
    assert job_source(prompt="a chair", image="chair.png") == JobSource("image", "chair.png")
    assert job_source(prompt="   ", image="") is None
    assert job_source(prompt=7) is None


def test_blenders_default_names_with_their_suffixes_are_recognised() -> None:
    for name in ("Cube", "Cube.001", "Plane.012", "Sphere", "Camera", "Light", "Suzanne.3"):
        assert has_default_name(name), name
    for name in ("Barrel", "Cube of cheese", "Old crate.001", "cube"):
        assert not has_default_name(name), name
    assert has_default_name("Würfel.002", DEFAULT_NAMES | {"Würfel"})  # Blender naming new data in German


def test_contain_is_the_largest_uniform_scale_inside() -> None:
    placeholder = Box((-2.0, -1.0, 0.0), (2.0, 1.0, 1.0))
    result = Box((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert fit_scale(placeholder, result, "CONTAIN") == 1.0
    assert fit_scale(Box((0, 0, 0), (4.0, 4.0, 2.0)), result, "CONTAIN") == 2.0
    assert fit_scale(placeholder, result, "HEIGHT") == 1.0
    assert fit_scale(placeholder, Box((0, 0, 0), (1.0, 1.0, 4.0)), "HEIGHT") == 0.25
    assert fit_scale(placeholder, result, "NONE") == 1.0


def test_a_flat_result_is_bounded_by_its_other_sides() -> None:
    flat = Box((0.0, 0.0, 0.0), (2.0, 1.0, 0.0))
    assert fit_scale(Box((0, 0, 0), (1.0, 1.0, 1.0)), flat, "CONTAIN") == 0.5
    assert fit_scale(Box((0, 0, 0), (1.0, 1.0, 1.0)), flat, "HEIGHT") == 1.0


@pytest.mark.parametrize("fit", ["CONTAIN", "HEIGHT", "NONE"])
def test_the_fitted_base_centre_lands_on_the_placeholders(fit: str) -> None:
    placeholder = Box((-1.0, -0.5, -0.25), (1.0, 0.5, 0.25))
    result = Box((3.0, 4.0, 5.0), (4.0, 6.0, 5.5))
    scale, offset = fit_into(placeholder, result, fit)  # type: ignore[arg-type]
    moved = [scale * c + o for c, o in zip(result.base_centre, offset, strict=True)]
    assert moved == pytest.approx(list(placeholder.base_centre))
    if fit == "CONTAIN":
        low = [scale * c + o for c, o in zip(result.low, offset, strict=True)]
        high = [scale * c + o for c, o in zip(result.high, offset, strict=True)]
        assert all(p - 1e-9 <= v for p, v in zip(placeholder.low, low, strict=True))
        assert all(v <= p + 1e-9 for p, v in zip(placeholder.high, high, strict=True))
        assert any(
            abs(h - p) < 1e-9 or abs(lo - q) < 1e-9
            for h, p, lo, q in zip(high, placeholder.high, low, placeholder.low, strict=True)
        )


def test_placeholder_boxes_from_a_mesh_and_an_empty() -> None:
    assert scaled_box((-1, -1, -1), (1, 1, 1), (2.0, 1.0, -0.5)) == Box((-2.0, -1.0, -0.5), (2.0, 1.0, 0.5))
    assert empty_box(0.7, (1.0, 1.0, 1.0)) == Box((-0.7, -0.7, -0.7), (0.7, 0.7, 0.7))


def test_variants_cycle_both_ways_and_wrap() -> None:
    assert variant_after([1, 2, 3], 3, 1) == 1
    assert variant_after([1, 2, 3], 1, -1) == 3
    assert variant_after([3, 1, 2], 2, 1) == 3
    assert variant_after([1, 2], None, 1) == 2
    assert variant_after([], None, 1) is None
