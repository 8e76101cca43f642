"""How a sentence of the catalogue is said: plural forms chosen by count, values filled in, shortened.

Plain Python, no translation: ``english`` renders a catalogue entry in English (for the console,
for what is stored, for plain-Python callers). What the artist reads is rendered on Blender's main
thread, translated first (the Blender side's ``words`` module), from the same entries. Texts that
are not ours (a prompt, a file name) never pass through the catalogue: they are values.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import catalogue
from .kinds import Entry, Plural

#: The mark a shortened text ends or breaks with.
ELLIPSIS = "…"


@dataclass(frozen=True)
class Message:
    """A sentence to say later, maybe in another language: its catalogue entry's name and values.

    Made where the sentence is decided (a worker, the job engine), said where it is shown (the
    main thread, translated then). ``name`` is the entry's name in the catalogue (stable across
    wording changes, so a stored message is said in the current words); values are plain JSON
    values (text that is not ours, numbers). ``details`` is for the console and Copy Details only:
    internals an artist does not need (statuses, ids, the service's own words).
    """

    name: str
    values: Mapping[str, Any] = field(default_factory=dict)
    details: str = ""

    def __str__(self) -> str:
        return english_message(self)

    def to_json(self) -> dict[str, Any]:
        values = {k: v.to_json() if isinstance(v, Message) else v for k, v in self.values.items()}
        return {"name": self.name, "values": values, "details": self.details}

    @classmethod
    def from_json(cls, data: object) -> Message | None:
        """A stored message, or None when ``data`` is not one (an older job list, a damaged row)."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            return None
        values = data.get("values")
        details = data.get("details")
        return cls(
            data["name"],
            {k: Message.from_json(v) or v for k, v in values.items()} if isinstance(values, dict) else {},
            details if isinstance(details, str) else "",
        )


def message(entry: Entry, /, *, details: str = "", **values: Any) -> Message:
    """A catalogue entry and its values as a ``Message`` to say later (``details`` for the console and
    Copy Details only). Raises ValueError for a text that is not an entry of the catalogue: every
    sentence an artist reads is written there once."""
    name = _names().get(entry)
    if name is None:
        raise ValueError(f"not an entry of the catalogue: {entry!r}")
    return Message(name, values, details)


def _names() -> dict[Entry, str]:
    """Each entry's name in the catalogue (entries are distinct: the catalogue's check says so)."""
    global _NAMES
    if _NAMES is None:
        _NAMES = {
            value: name
            for name, value in vars(catalogue).items()
            if name.isupper() and isinstance(value, (str, Plural))
        }
    return _NAMES


_NAMES: dict[Entry, str] | None = None


def as_message(said: Entry | Message, /, *, details: str = "", **values: Any) -> Message:
    """What a sentence is given as, made a ``Message``: a message as it is (``details`` added to its
    own), an entry of the catalogue with its values, or a text from outside the catalogue (an agent
    tool's English words, a caller not yet converted) kept as it is, said untranslated
    (``catalogue.VERBATIM``)."""
    if isinstance(said, Message):
        if not details:
            return said
        return Message(said.name, said.values, "\n".join(filter(None, (said.details, details))))
    if said in _names():
        return message(said, details=details, **values)
    return message(catalogue.VERBATIM, details=details, text=english(said, **values))


def fill(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with its fields filled; a field without a value is shown as its name, never a
    traceback (a translation may name fields the code does not give)."""
    try:
        return template.format_map(_Lenient(values))
    except (ValueError, IndexError, AttributeError, TypeError):
        return template


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fields(template: str) -> set[str]:
    """The names of the fields a template fills (``{n:,}`` counts as ``n``)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def english(entry: Entry, /, **values: Any) -> str:
    """The entry in English with its values filled (``n`` picks a plural form)."""
    template = entry.form(int(values.get("n", 0))) if isinstance(entry, Plural) else entry
    return fill(template, values)


def english_message(message: Message) -> str:
    """A message in English, read through the catalogue (an unknown name is said as it is)."""
    entry = getattr(catalogue, message.name, None)
    if not isinstance(entry, (str, Plural)):
        return message.name
    return english(entry, **message.values)


def shorten(text: str, limit: int) -> str:
    """``text`` cut after a whole word to at most ``limit`` characters, marked with "…" when cut.

    The one way to shorten a text that is not measured on screen (an object name, a log line);
    the Sidebar shortens by width instead (``drawing.fit``).
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 1)]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + ELLIPSIS
