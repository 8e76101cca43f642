"""The kinds of entry the catalogue holds: a text, a count-aware ``Plural``, a ``Label`` with its tooltip."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plural:
    """A count-aware sentence: the English forms for one and for any other count (``n`` is the count).

    A translation gives as many forms as its language has (Japanese one, French two with 0 and 1
    alike, …); the count picks among them. Never build a plural by appending "s".
    """

    one: str
    other: str

    def form(self, count: int) -> str:
        """The English form for ``count``."""
        return self.one if count == 1 else self.other


@dataclass(frozen=True)
class Label:
    """What a setting, an argument, a button or a choice is called, and its tooltip."""

    name: str
    tip: str = ""


#: A catalogue entry: a fixed text or template (``{value}`` fields), or a count-aware one.
Entry = str | Plural
