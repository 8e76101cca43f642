"""Batch results side by side: each import takes the next slot of a grid sized by its bounding box.

A mesh's size is only known once it is imported, and batch jobs finish in any order, so the
grid is packed row by row as results arrive: each object is moved so its bounding box starts
a gap after the previous one, and a new row starts below the deepest box of the last. Slots
are reserved by job id when the batch is sent; ``place`` is called once a job is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import bpy
from mathutils import Matrix, Vector

from ..api.features.blockout import Box, Fit, Vec3, empty_box, fit_into, scaled_box

GAP_FRACTION = 0.25
MIN_GAP = 0.25


def _gap(size: float) -> float:
    return max(MIN_GAP, GAP_FRACTION * size)


@dataclass
class Grid:
    """Row-by-row packing in the XY plane: columns go +X from ``origin``, rows go -Y."""

    origin: Vector
    columns: int
    count: int = 0
    x: float = 0.0
    y: float = 0.0
    row_depth: float = 0.0

    def slot(self, width: float, depth: float) -> Vector:
        """Where the next box's min-X / max-Y corner goes (world space, Z unchanged)."""
        if self.count and self.count % self.columns == 0:
            self.y -= self.row_depth + _gap(self.row_depth)
            self.x, self.row_depth = 0.0, 0.0
        corner = Vector((self.origin.x + self.x, self.origin.y + self.y, 0.0))
        self.x += width + _gap(width)
        self.row_depth = max(self.row_depth, depth)
        self.count += 1
        return corner


_slots: dict[str, Grid] = {}


def reserve(job_ids: list[str], origin: Vector) -> None:
    """One grid for these jobs, about square, starting at ``origin``."""
    grid = Grid(origin=origin.copy(), columns=max(1, math.ceil(math.sqrt(len(job_ids)))))
    for job_id in job_ids:
        _slots[job_id] = grid


def forget(job_ids: list[str]) -> None:
    """Drop the slots of jobs that will not be placed (failed, or the batch is over)."""
    for job_id in job_ids:
        _slots.pop(job_id, None)


def place(context: bpy.types.Context, job_id: str, names: list[str]) -> None:
    """Move a just-imported job into its batch's next slot; a job outside a batch stays put."""
    grid = _slots.pop(job_id, None)
    objects = [bpy.data.objects[name] for name in names if name in bpy.data.objects]
    if grid is None or not objects:
        return
    context.view_layer.update()
    low, high = world_bounds(objects)
    corner = grid.slot(high.x - low.x, high.y - low.y)
    offset = Vector((corner.x - low.x, corner.y - high.y, 0.0))
    for obj in objects:
        if obj.parent is None:
            obj.location += offset
    context.view_layer.update()


def world_bounds(objects: list[bpy.types.Object]) -> tuple[Vector, Vector]:
    """Axis-aligned world box around the objects' geometry (their origins when they have none)."""
    points = [
        obj.matrix_world @ Vector(corner) for obj in objects if obj.type == "MESH" for corner in obj.bound_box
    ] or [obj.matrix_world.translation for obj in objects]
    low = Vector(tuple(min(p[i] for p in points) for i in range(3)))
    high = Vector(tuple(max(p[i] for p in points) for i in range(3)))
    return low, high


# Blockout: a result takes its placeholder's place (``operators.blockout`` sends the jobs).

PLACEHOLDER_KEY = "kiln_placeholder"
VARIANT_KEY = "kiln_variant"


def custom(obj: bpy.types.Object, key: str) -> object:
    """A custom property of the object, or None (the stubs type ``get`` as returning None)."""
    value: object = obj.get(key)  # type: ignore[func-returns-value]
    return value


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
