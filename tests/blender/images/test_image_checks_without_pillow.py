"""Blender's own Python has numpy but not Pillow: the image checks read pixels through imbuf there
(Blender 5 and newer), or say they could not look (Blender 4.2, whose imbuf writes no BMP)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from PIL import Image

from fixtures.concept_images import write_case

CASES = Path(tempfile.mkdtemp(prefix="kiln-imbuf-cases-"))


@pytest.fixture
def without_pillow(kiln_module: Any, monkeypatch: Any) -> Any:
    decoding = kiln_module("api.checks.decoding")
    monkeypatch.setattr(decoding, "_pillow", lambda: False)
    return kiln_module("api.checks.image_preflight")


def test_imbuf_reads_what_pillow_reads(without_pillow: Any, kiln_module: Any, tmp_path: Path) -> None:
    preflight = without_pillow
    service = preflight.ServiceImage(min_side=128)
    if not kiln_module("api.checks.decoding").available():
        assert not preflight.check_image(write_case(CASES, "off_centre"), service).measured
        return
    expected = {"off_centre": ["subject_small"], "cut_off": ["cut_off"], "two": ["several_subjects"]}
    for case, codes in expected.items():
        assert [f.code for f in preflight.check_image(write_case(CASES, case), service).findings] == codes
    assert preflight.check_image(write_case(CASES, "tiny"), service).refusal.code == "too_small"
    found = preflight.check_image(write_case(CASES, "alpha"), service, prepare_into=tmp_path)
    with Image.open(found.prepared_path) as sent:
        assert sent.mode == "RGBA" and sent.size[0] == sent.size[1] and sent.getpixel((0, 0))[3] == 0
    found = preflight.check_image(write_case(CASES, "off_centre"), service, prepare_into=tmp_path)
    again = preflight.check_image(found.prepared_path, service)
    left, top, right, bottom = again.subject_box
    assert max(right - left, bottom - top) / again.width > 0.75 and again.findings == ()
    fidelity = kiln_module("api.checks.fidelity")
    assert fidelity.concept_mask(CONCEPTS / "chair.png") is not None
