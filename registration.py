"""Class registration shared by the rooms."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import bpy


def classes_factory(classes: Sequence[type]) -> tuple[Callable[[], None], Callable[[], None]]:
    """``bpy.utils.register_classes_factory`` with its real return type (the stubs say None)."""
    return bpy.utils.register_classes_factory(classes)  # type: ignore[func-returns-value, return-value]
