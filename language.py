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

#: What can be said: a catalogue entry (with its values) or a stored message.
Said = Entry | Message


def text(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as a panel draws it."""
    return english(entry, **values)


def report(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as the status bar or an operator's report says it."""
    return english(entry, **values)


def said(what: Said, /, *, as_report: bool = False, **values: Any) -> str:
    """An entry with its values, or a stored message in the current words (a name no longer in the
    catalogue is said as it is)."""
    say = report if as_report else text
    if isinstance(what, Message):
        entry = getattr(words, what.name, None)
        if not isinstance(entry, (str, Plural)):
            return what.name
        values = {**what.values, **values}
        what = entry
    # A count inside a sentence is a message of its own ("3 jobs"): said first, in the same words.
    filled = {k: said(v, as_report=as_report) if isinstance(v, Message) else v for k, v in values.items()}
    return say(what, **filled)
