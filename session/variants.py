"""Blockout variants: a result takes its placeholder's place, fitted, as its newest variant.

Each result of a placeholder carries the placeholder's name (``kiln_placeholder``) and its variant
number (``kiln_variant``); one variant is shown at a time (``operators.blockout`` sends the jobs and
cycles through them). The fitting arithmetic is ``api.features.blockout``'s.
"""

from __future__ import annotations

import bpy
from mathutils import Matrix, Vector

from ..api.features.blockout import Box, Fit, Vec3, empty_box, fit_into, scaled_box
from .scene_objects import custom, world_bounds

PLACEHOLDER_KEY = "kiln_placeholder"
VARIANT_KEY = "kiln_variant"


def vec3(vector: Vector) -> Vec3:
    return (vector.x, vector.y, vector.z)


def placeholder_box(obj: bpy.types.Object) -> Box:
    """The placeholder's box in its own frame (location and rotation, scale included)."""
    scale = vec3(obj.matrix_world.to_scale())
    if obj.type == "EMPTY":
        return empty_box(obj.empty_display_size, scale)
    local = Box.around([vec3(Vector(corner)) for corner in obj.bound_box])
    return scaled_box(local.low, local.high, scale)


def _frame(obj: bpy.types.Object) -> Matrix:
    """The placeholder's location and rotation, without its scale."""
    location, rotation, _scale = obj.matrix_world.decompose()
    return Matrix.Translation(location) @ rotation.to_matrix().to_4x4()


def fit_to_placeholder(
    context: bpy.types.Context, objects: list[bpy.types.Object], placeholder: bpy.types.Object, fit: Fit
) -> None:
    """Move, turn and scale just-imported objects into the placeholder: base on its base, fitted."""
    context.view_layer.update()
    low, high = world_bounds(objects)
    scale, offset = fit_into(placeholder_box(placeholder), Box(vec3(low), vec3(high)), fit)
    into = _frame(placeholder) @ Matrix.Translation(Vector(offset)) @ Matrix.Scale(scale, 4)
    for obj in objects:
        if obj.parent is None:
            obj.matrix_world = into @ obj.matrix_world
    context.view_layer.update()


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


def replace_placeholder(
    context: bpy.types.Context, objects: list[bpy.types.Object], placeholder: bpy.types.Object, fit: Fit
) -> None:
    """The result takes the placeholder's place as its newest variant; the placeholder is hidden."""
    fit_to_placeholder(context, objects, placeholder, fit)
    number = max(variants_of(placeholder.name), default=0) + 1
    for obj in objects:
        obj[PLACEHOLDER_KEY] = placeholder.name
        obj[VARIANT_KEY] = number
        obj.name = f"{placeholder.name} v{number}"
    show_variant(context, placeholder.name, number)
    if placeholder.name in context.view_layer.objects:
        placeholder.hide_set(True)
    placeholder.hide_render = True
