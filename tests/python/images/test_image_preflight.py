"""The image check before anything is sent: each refusal, each thing it says, and the preparation."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PIL import Image

from api.checks.image_preflight import ServiceImage, check_image
from fixtures import concept_images

INTERFACE = ServiceImage(min_side=128)
NO_ALPHA = ServiceImage(min_side=128, alpha=False, formats=frozenset({"png", "jpeg"}))
JPEG_ONLY = ServiceImage(formats=frozenset({"jpeg"}))


def case(tmp_path: Path, name: str) -> Path:
    return concept_images.write_case(tmp_path, name)


@pytest.mark.parametrize(
    ("name", "code"),
    [("single_colour", "single_colour"), ("tiny", "too_small")],
)
def test_refusals(tmp_path: Path, name: str, code: str) -> None:
    found = check_image(case(tmp_path, name), INTERFACE, prepare_into=tmp_path / "out")
    assert found.refusal is not None and found.refusal.code == code
    assert not found.prepared_path and not (tmp_path / "out").exists()


def test_not_a_picture_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    found = check_image(path, INTERFACE)
    assert found.refusal is not None and found.refusal.code == "not_a_picture"


def test_a_transparent_image_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "clear.png"
    Image.new("RGBA", (300, 300), (0, 0, 0, 0)).save(path)
    assert check_image(path, INTERFACE).refusal.code == "single_colour"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("cut_off", "cut_off"),
        ("off_centre", "subject_small"),
        ("two", "several_subjects"),
        ("busy", "busy_background"),
        ("blurred", "blurred"),
    ],
)
def test_said(tmp_path: Path, name: str, code: str) -> None:
    found = check_image(case(tmp_path, name), INTERFACE)
    assert found.refusal is None
    assert code in [f.code for f in found.said]


@pytest.mark.parametrize("name", ["chair", "teapot", "robot"])
def test_a_good_concept_says_nothing(tmp_path: Path, name: str) -> None:
    found = check_image(concept_images.write_concept(tmp_path, name), INTERFACE)
    assert found.findings == ()


def test_a_backdrop_fading_top_to_bottom_is_background(tmp_path: Path) -> None:
    found = check_image(case(tmp_path, "gradient"), INTERFACE)
    assert found.findings == ()
    assert found.subject_box is not None and found.fill < 0.5


def test_a_jpeg_concept_says_nothing(tmp_path: Path) -> None:
    found = check_image(concept_images.write_concept(tmp_path, "robot", "jpg"), INTERFACE)
    assert found.findings == ()


def _subject_of(path: Path) -> tuple[tuple[int, int, int, int], tuple[int, int]]:
    again = check_image(path, ServiceImage())
    assert again.subject_box is not None
    return again.subject_box, (again.width, again.height)


def test_a_small_subject_off_centre_arrives_centred_and_filling_the_frame(tmp_path: Path) -> None:
    found = check_image(case(tmp_path, "off_centre"), INTERFACE, prepare_into=tmp_path / "out")
    sent = Path(found.prepared_path)
    assert sent.parent == tmp_path / "out" and sent.suffix == ".png"
    (left, top, right, bottom), (width, height) = _subject_of(sent)
    assert width == height >= 128
    assert max(right - left, bottom - top) / width > 0.75
    assert abs((left + right) / 2 - width / 2) < width * 0.03
    assert abs((top + bottom) / 2 - height / 2) < height * 0.03
    assert found.said and found.said[0].code == "subject_small"  # still said: the original was small


def test_alpha_is_kept_where_the_service_takes_png(tmp_path: Path) -> None:
    found = check_image(case(tmp_path, "alpha"), INTERFACE, prepare_into=tmp_path / "out")
    with Image.open(found.prepared_path) as sent:
        assert sent.mode == "RGBA"
        assert sent.getpixel((0, 0))[3] == 0  # type: ignore[index]
    flattened = check_image(case(tmp_path, "alpha"), NO_ALPHA, prepare_into=tmp_path / "flat")
    with Image.open(flattened.prepared_path) as sent:
        assert sent.mode == "RGB" and sent.getpixel((0, 0)) == (255, 255, 255)


def test_a_service_without_png_gets_a_jpeg(tmp_path: Path) -> None:
    found = check_image(concept_images.write_concept(tmp_path, "chair"), JPEG_ONLY, prepare_into=tmp_path)
    assert found.prepared_path.endswith(".jpg")


def test_at_most_the_service_side(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    concept_images.draw_concept("chair", 2048).save(big)
    found = check_image(big, ServiceImage(max_side=1024), prepare_into=tmp_path)
    assert found.prepared_side == 1024
    with Image.open(found.prepared_path) as sent:
        assert sent.size == (1024, 1024)


def test_a_4k_image_is_checked_and_prepared_well_under_a_second(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    concept_images.draw_case("off_centre", 4096).save(big)
    check_image(big, INTERFACE)  # warm the imports
    # CPU time: make test runs side by side on two cores, and the wall clock would count the others.
    start = time.process_time()
    found = check_image(big, INTERFACE, prepare_into=tmp_path / "out")
    assert time.process_time() - start < 2.0  # the budget (0.8 s) is the bench's; here: a shared machine
    assert found.prepared_path
