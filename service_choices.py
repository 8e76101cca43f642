"""The service menu's choices, read from the open registry (``api.services``) each time it is shown.

One list for the preferences' Service, the Sidebar's menu and every operator's ``service=``: a service
registered at run time is offered at once. Blender reads an enum's strings after its items function
returns, so every list handed out is kept (one per registry and language: a handful in a session).
"""

from __future__ import annotations

from typing import Any

from .api.services import info, service_ids
from .language import text, tip

#: Each list of choices handed to Blender, kept referenced while Kiln is loaded (Blender's rule).
_kept: dict[tuple[Any, ...], list[tuple[str, str, str, int]]] = {}


def service_words(service: str) -> tuple[str, str]:
    """A service's name and tooltip in the artist's language (a brand's name is its own)."""
    name, tooltip, values = info(service).choice_words()
    return text(name), tip(tooltip, **values)


def service_items(_self: Any = None, _context: Any = None) -> list[tuple[str, str, str, int]]:
    """(id, name, tooltip, number) of each registered service. The number is its place in the
    registry, which is what a stored choice keeps (a fresh Kiln's choice is the first)."""
    made = [(sid, *service_words(sid), number) for number, sid in enumerate(service_ids())]
    key = tuple(made)
    return _kept.setdefault(key, made)
