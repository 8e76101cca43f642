"""Blockout variants: each result of a placeholder is one of its variants, one shown at a time.

Each result of a placeholder carries the placeholder's name (``kiln_placeholder``) and its variant
number (``kiln_variant``), given where it takes the placeholder's place (``session.placement``);
``operators.blockout`` sends the jobs and cycles through the variants.
"""

from __future__ import annotations

import bpy

from .scene_objects import custom

PLACEHOLDER_KEY = "kiln_placeholder"
VARIANT_KEY = "kiln_variant"


def variants_of(placeholder_name: str) -> dict[int, list[bpy.types.Object]]:
    """Every result of a placeholder, by variant number."""
    found: dict[int, list[bpy.types.Object]] = {}
    for obj in bpy.data.objects:
        if custom(obj, PLACEHOLDER_KEY) == placeholder_name:
            number = custom(obj, VARIANT_KEY)
            found.setdefault(number if isinstance(number, int) else 0, []).append(obj)
    return found


def shown_variant(placeholder_name: str, context: bpy.types.Context) -> int | None:
    """The variant visible in the view layer (the newest visible one), or None."""
    visible = [
        number
        for number, objects in variants_of(placeholder_name).items()
        if any(obj.name in context.view_layer.objects and not obj.hide_get() for obj in objects)
    ]
    return max(visible) if visible else None


def show_variant(context: bpy.types.Context, placeholder_name: str, number: int) -> None:
    """Show one variant of a placeholder, hide the others in place."""
    for variant, objects in variants_of(placeholder_name).items():
        for obj in objects:
            if obj.name in context.view_layer.objects:
                obj.hide_set(variant != number)
            obj.hide_render = variant != number
