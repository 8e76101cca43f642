"""What Kiln reads off scene objects: a custom property (the stubs type ``get`` as returning None)."""

from __future__ import annotations

import bpy


def custom(obj: bpy.types.Object, key: str) -> object:
    """A custom property of the object, or None (the stubs type ``get`` as returning None)."""
    value: object = obj.get(key)  # type: ignore[func-returns-value]
    return value
