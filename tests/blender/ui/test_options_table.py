"""Each option is declared once: every preference and operator argument of that name is the table's.

Read from Blender's own RNA after registration, so what is compared is what an artist sees (the
property's name, tooltip, type, range, unit, default and choices), not the source.
"""

from __future__ import annotations

from typing import Any

import pytest

ADDON = "bl_ext.kiln_dev.kiln"
#: An argument that carries another option of the table under its own name: an image has no
#: "Service Default", so the image operator's (and the panel's) resolution is ``image_resolution``.
UNDER_ANOTHER_NAME = {
    ("KILN_OT_generate_from_image", "resolution"): "image_resolution",
    ("KILN_OT_generate_from_views", "resolution"): "image_resolution",
    ("KilnGenerateSettings", "text_resolution"): "resolution",
    ("KilnGenerateSettings", "image_variants"): "variants",
    ("KILN_OT_export_job", "engine"): "export_engine",
}


def _same(a: Any, b: Any) -> bool:
    """Equal, floats as Blender stores them (single precision)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and abs(a - b) <= 1e-6 * max(1, abs(b))
        )
    return bool(a == b)


def facts(prop: Any) -> dict[str, Any]:
    """What an artist meets of a property, as Blender's RNA has it."""
    found = {"type": prop.type, "name": prop.name, "description": prop.description}
    if prop.type == "ENUM":
        found["default"] = prop.default
        found["choices"] = [(i.identifier, i.name, i.description) for i in prop.enum_items]
    elif prop.type in ("INT", "FLOAT"):
        found |= {
            "default": prop.default,
            "min": prop.hard_min,
            "max": prop.hard_max,
            "soft_max": prop.soft_max,
            "subtype": prop.subtype,
        }
        if prop.type == "FLOAT":
            found["unit"] = prop.unit
    else:
        found |= {"default": prop.default, "subtype": prop.subtype}
    return found


def declared(option: Any) -> dict[str, Any]:
    """What the table says of an option, in the same terms (ranges only where the table gives one)."""
    kinds = {bool: "BOOLEAN", int: "INT", float: "FLOAT", str: "STRING"}
    said: dict[str, Any] = {"name": option.label.name, "description": option.label.tip}
    if option.choices_now is not None:  # read when shown: RNA lists none without a context
        return said | {"type": "ENUM", "default": option.default, "choices": []}
    if option.choices:
        said |= {
            "type": "ENUM",
            "default": option.default,
            "choices": [tuple(c) for c in option.enum_items()],
        }
        return said
    said |= {"type": kinds[type(option.default)], "default": option.default}
    for key, value in (("min", option.minimum), ("max", option.maximum), ("soft_max", option.soft_maximum)):
        if value is not None:
            said[key] = value
    if not isinstance(option.default, bool):
        said["subtype"] = option.subtype
    if isinstance(option.default, float):
        said["unit"] = option.unit
    return said


@pytest.fixture
def occurrences(blender: Any, kiln_module: Any) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Every preference, operator argument and panel setting that is an option of the table."""
    table = kiln_module("options").TABLE
    owners = [("KilnPreferences", blender.context.preferences.addons[ADDON].preferences.bl_rna)]
    owners += [
        (cls.__name__, getattr(blender.ops.kiln, cls.bl_idname.split(".")[1]).get_rna_type())
        for cls in kiln_module("operators").classes
    ]
    owners.append(("KilnGenerateSettings", blender.context.scene.kiln.bl_rna))
    found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for owner, rna in owners:
        for prop in rna.properties:
            name = UNDER_ANOTHER_NAME.get((owner, prop.identifier), prop.identifier)
            if name in table:
                found.setdefault(name, []).append((f"{owner}.{prop.identifier}", facts(prop)))
    return found


def test_every_preference_and_argument_of_an_option_is_the_tables(
    occurrences: dict[str, list[tuple[str, dict[str, Any]]]], kiln_module: Any
) -> None:
    table = kiln_module("options").TABLE
    differences = []
    for name, places in occurrences.items():
        wanted = declared(table[name])
        for where, seen in places:
            off = {k: (seen.get(k), v) for k, v in wanted.items() if not _same(seen.get(k), v)}
            if off:
                differences.append(f"{where}: {off}")
        first_where, first = places[0]
        for where, seen in places[1:]:
            if seen.keys() != first.keys() or not all(_same(seen[k], first[k]) for k in first):
                differences.append(f"{where} differs from {first_where}")
    assert differences == []


def test_shared_options_are_found_in_both_places(
    occurrences: dict[str, list[tuple[str, dict[str, Any]]]],
) -> None:
    """The check compares something: import options and fix-ups are preferences and arguments too."""
    for name in ("fix_merge", "triangles", "target_height", "smooth_angle"):
        owners = {where.split(".")[0] for where, _ in occurrences[name]}
        assert {"KilnPreferences", "KILN_OT_generate_from_text"} <= owners, owners
    assert {where for where, _ in occurrences["resolution"]} >= {
        "KILN_OT_generate_from_text.resolution",
        "KILN_OT_generate_batch.resolution",
        "KILN_OT_generate_from_selection.resolution",
    }
