"""The blockout's pure part: prompts from names, fits, and variant order (no Blender)."""

from __future__ import annotations

import pytest

from api.features.blockout import (
    Box,
    JobSource,
    empty_box,
    fit_into,
    fit_scale,
    job_source,
    scaled_box,
    variant_after,
)


def test_the_prompt_is_the_name_without_its_numeric_suffix() -> None:
    assert job_source("Barrel.003") == JobSource("text", "Barrel")
    assert job_source("Old crate") == JobSource("text", "Old crate")
    assert job_source("v1.5 lamp.012") == JobSource("text", "v1.5 lamp")


def test_custom_properties_win_over_the_name_and_an_image_over_a_prompt() -> None:
    assert job_source("Cube.001", prompt=" a red chair ") == JobSource("text", "a red chair")
    assert job_source("Cube", prompt="a chair", image="chair.png") == JobSource("image", "chair.png")
    assert job_source("Cube", prompt="   ", image="") == JobSource("text", "Cube")


def test_objects_with_nothing_to_ask_for_are_skipped() -> None:
    assert job_source(".001") is None
    assert job_source("123.004") is None
    assert job_source("42", prompt=7) is None


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
