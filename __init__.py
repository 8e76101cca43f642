"""Kiln: a text prompt or one concept image in, a production-ready 3D mesh in the scene.

``register()`` only wires the rooms; each room registers its own classes and handlers and
takes them all away again in ``unregister()``. On a Blender whose Python lacks a module Kiln
needs, only the preferences are registered, and they say what is missing (``dependencies``).
"""

from __future__ import annotations

from types import ModuleType

from . import dependencies, preferences

_working_rooms: tuple[ModuleType, ...] = ()


def register() -> None:
    global _working_rooms
    preferences.register()
    if not dependencies.check():
        return
    # Imported here, after the check: they reach modules that need numpy and requests.
    from . import operators, panels

    _working_rooms = (operators, panels)
    for room in _working_rooms:
        room.register()


def unregister() -> None:
    global _working_rooms
    for room in reversed(_working_rooms):
        room.unregister()
    _working_rooms = ()
    dependencies.forget()
    preferences.unregister()
