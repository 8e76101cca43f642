"""Whether Kiln can reach the service, and what is missing when it cannot: all of it at once.

An artist who has just installed Kiln may lack the key, the service address and Blender's online
access together; the Sidebar names every missing thing in one box (``panels.generate``), each with
what fixes it, and an operator refused for it says every missing thing at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy

from .. import preferences
from ..api.services import info
from ..api.words import catalogue as words
from ..language import tip


@dataclass(frozen=True, eq=False, repr=False)
class Missing:
    """What Kiln still needs before it can send anything (read field by field, never compared as a
    value: no generated ``__eq__`` or ``__repr__``, which ``dataclass`` compiles while Kiln registers)."""

    key: bool = False
    address: bool = False
    online: bool = False
    #: Online access is off because Blender was started with ``--offline-mode``: no switch turns it on.
    offline_mode: bool = False
    #: The service this is about (what the box names, and where its keys are made).
    service: str = ""
    #: No service is chosen yet (and none was given): the box lists the services to choose from.
    unchosen: bool = False

    def __bool__(self) -> bool:
        return self.unchosen or self.key or self.address or self.online


def missing(context: bpy.types.Context | None = None, service: str = "") -> Missing:
    """What is missing now to reach ``service`` (the chosen one by default); nothing: ``Missing()``,
    which is false. A service Kiln knows needs no address; one that takes no key needs none. While no
    service is chosen (and none is given), the service itself is what is missing."""
    offline = not bpy.app.online_access
    if not (service or preferences.chosen_service(context)):
        return Missing(online=offline, offline_mode=offline and bpy.app.online_access_override, unchosen=True)
    chosen = preferences.credentials(context, service)
    return Missing(
        key=info(chosen.service).needs_key and not chosen.api_key,
        address=not chosen.base_url,
        online=offline,
        offline_mode=offline and bpy.app.online_access_override,
        service=chosen.service,
    )


def setup_problems(context: bpy.types.Context | None = None, service: str = "") -> list[str]:
    """Every missing thing, a catalogue sentence each (an operator refuses with them all); [] when none."""
    lacking = missing(context, service)
    found = [words.SERVICE_NOT_CHOSEN] if lacking.unchosen else []
    found += [words.SETUP_NO_KEY] if lacking.key else []
    found += [words.SETUP_NO_ADDRESS] if lacking.address else []
    return found + ([offline_sentence()] if lacking.online else [])


def offline_sentence() -> str:
    """Why Kiln may not go online, and how to let it."""
    return words.SETUP_OFFLINE_MODE if bpy.app.online_access_override else words.SETUP_OFFLINE


class OnlineOperator(bpy.types.Operator):
    """Base of every operator that reaches the service: greyed out while Blender's online access is off.

    The reason shows on hover, and a script calling the operator gets it in the RuntimeError.
    """

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if bpy.app.online_access:
            return True
        cls.poll_message_set(tip(offline_sentence()))
        return False
