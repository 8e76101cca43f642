"""What Kiln reads off and writes on scene objects: a custom property (the stubs type ``get`` as
returning None), the fidelity's property, and how long a name made from a prompt may be."""

from __future__ import annotations

import bpy

#: Longest object name made from a prompt (Blender allows 63 bytes; the Outliner shows about this).
NAME_CHARS = 40
#: How well an image job's mesh matches its image, 0–1 (``api.checks.fidelity``).
FIDELITY_KEY = "kiln_fidelity"


def custom(obj: bpy.types.Object, key: str) -> object:
    """A custom property of the object, or None (the stubs type ``get`` as returning None)."""
    value: object = obj.get(key)  # type: ignore[func-returns-value]
    return value
