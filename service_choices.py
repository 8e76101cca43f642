"""The service menu's choices, read from the open registry (``api.services``) each time it is shown.

One list for the preferences' Service, the Sidebar's menu and every operator's ``service=``: a service
registered at run time is offered at once. Blender reads an enum's strings after its items function
returns, so every list handed out is kept (one per registry revision and language: a handful in a
session).
"""

from __future__ import annotations

from typing import Any

from .api.services import NOT_CHOSEN, info, registry_revision, service_ids
from .api.words import catalogue as words
from .language import text, tip, words_now

#: The stored number of "no service chosen yet", a fresh Kiln's value: far from the registry's places
#: (0, 1, …), so a choice stored by an earlier Kiln (its place) still loads as the service it named.
NOT_CHOSEN_NUMBER = 999

#: Each list of choices handed to Blender, by registry revision and language, kept referenced while
#: Kiln is loaded (Blender's rule).
_kept: dict[tuple[Any, ...], list[tuple[str, str, str, int]]] = {}


def service_words(service: str) -> tuple[str, str]:
    """A service's name and tooltip in the artist's language (a brand's name is its own)."""
    name, tooltip, values = info(service).choice_words()
    return text(name), tip(tooltip, **values)


def service_items(_self: Any = None, _context: Any = None) -> list[tuple[str, str, str, int]]:
    """(id, name, tooltip, number) of "Choose a Service" (no service chosen yet: a fresh Kiln's value),
    then each registered service. A service's number is its place in the registry, which is what a
    stored choice keeps. Blender asks at every read of a service setting (several a draw): the list
    is made once per registry and language."""
    key = (registry_revision(), words_now())
    kept = _kept.get(key)
    if kept is not None:
        return kept
    unchosen = words.OPTION_SERVICE_NOT_CHOSEN
    made = [(NOT_CHOSEN, text(unchosen.name), tip(unchosen.tip), NOT_CHOSEN_NUMBER)]
    made += [(sid, *service_words(sid), number) for number, sid in enumerate(service_ids())]
    return _kept.setdefault(key, made)
