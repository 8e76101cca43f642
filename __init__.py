"""Kiln: a text prompt or one concept image in, a production-ready 3D mesh in the scene.

``register()`` only wires the rooms; each room registers its own classes and handlers and
takes them all away again in ``unregister()``.
"""

from __future__ import annotations

from . import operators, panels, preferences

_rooms = (preferences, operators, panels)


def register() -> None:
    for room in _rooms:
        room.register()


def unregister() -> None:
    for room in reversed(_rooms):
        room.unregister()
