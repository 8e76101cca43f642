"""What Kiln reads off scene objects: a custom property, the world box around some objects."""

from __future__ import annotations

import bpy
from mathutils import Vector


def custom(obj: bpy.types.Object, key: str) -> object:
    """A custom property of the object, or None (the stubs type ``get`` as returning None)."""
    value: object = obj.get(key)  # type: ignore[func-returns-value]
    return value


def world_bounds(objects: list[bpy.types.Object]) -> tuple[Vector, Vector]:
    """Axis-aligned world box around the objects' geometry (their origins when they have none)."""
    points = [
        obj.matrix_world @ Vector(corner) for obj in objects if obj.type == "MESH" for corner in obj.bound_box
    ] or [obj.matrix_world.translation for obj in objects]
    low = Vector(tuple(min(p[i] for p in points) for i in range(3)))
    high = Vector(tuple(max(p[i] for p in points) for i in range(3)))
    return low, high
