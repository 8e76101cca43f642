"""Kiln: a text prompt or one concept image in, a production-ready 3D mesh in the scene.

``register()`` only wires the rooms, bottom first; each room registers its own classes and
handlers and takes them all away again in ``unregister()``. On a Blender whose Python lacks a
module Kiln needs, only the preferences are registered, and they say what is missing
(``dependencies``). Importing this package registers nothing and loads no room: the helper Blender
imports it only to reach ``helper_blender`` (see ``helper_blender/main.py``).
"""

from __future__ import annotations

from types import ModuleType

_working_rooms: tuple[ModuleType, ...] = ()


def register() -> None:
    global _working_rooms
    from . import dependencies, language, preferences

    language.register()
    preferences.register()
    if not dependencies.check():
        return
    # Imported here, after the check: they reach modules that need numpy and requests.
    from . import agents, operators, panels, session

    _working_rooms = (operators, session, agents, panels)
    for room in _working_rooms:
        room.register()


def unregister() -> None:
    global _working_rooms
    from . import dependencies, language, main_thread, preferences

    for room in reversed(_working_rooms):
        room.unregister()
    _working_rooms = ()
    dependencies.forget()
    main_thread.forget()
    preferences.unregister()
    language.unregister()
