"""The farm script's plain rules (no Blender): asset names and a task's share of the prompts."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from checkout import ROOT

spec = importlib.util.spec_from_file_location("kiln_farm", ROOT / "farm" / "kiln_farm.py")
assert spec is not None and spec.loader is not None
kiln_farm = importlib.util.module_from_spec(spec)
sys.modules["kiln_farm"] = kiln_farm
spec.loader.exec_module(kiln_farm)


@pytest.mark.parametrize(
    ("line", "label", "name"),
    [
        (7, "A red chair", "0007-a-red-chair"),
        (12, "Café ▸ Stühle/../etc", "0012-cafe-stuhle-etc"),
        (3, "???", "0003-asset"),
        (40, "x" * 80, "0040-" + "x" * 40),
        (12345, "CON", "12345-con"),
    ],
)
def test_asset_names_are_stable_safe_and_lead_with_the_line(line: int, label: str, name: str) -> None:
    assert kiln_farm.asset_name(line, label) == name


def test_a_task_takes_its_prompt_numbers_and_nothing_past_the_end() -> None:
    assert kiln_farm.item_range("3-4", 5) == range(2, 4)
    assert kiln_farm.item_range("5", 5) == range(4, 5)
    assert kiln_farm.item_range("5-8", 6) == range(4, 6)
    assert kiln_farm.item_range("9-10", 6) == range(8, 6)  # past the end: nothing
    assert kiln_farm.item_range("", 3) == range(3)
    with pytest.raises(kiln_farm.FarmError, match="not a range"):
        kiln_farm.item_range("1,3", 5)
