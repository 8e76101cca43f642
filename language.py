"""Kiln's words on screen, in the artist's language: every catalogue entry is said through here.

``text`` for what a panel or the preferences draw, ``report`` for the status bar and an operator's
reports, ``said`` for a stored ``Message`` (a job's error, a note). Each takes an entry of
``api.words.catalogue`` and its values (never an assembled sentence), so a translation sees the
sentence whole and a count picks its plural form. Call on the main thread only.
"""

from __future__ import annotations

from typing import Any

from .api.words import Entry, Message, Plural, english
from .api.words import catalogue as words


def text(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as a panel draws it."""
    return english(entry, **values)


def report(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as the status bar or an operator's report says it."""
    return english(entry, **values)


def said(message: Message) -> str:
    """A stored message, in the current words (an entry no longer in the catalogue: its name)."""
    entry = getattr(words, message.name, None)
    return text(entry, **message.values) if isinstance(entry, (str, Plural)) else message.name
