"""Whether a text an artist reads is a rendering of the catalogue, and free of Kiln's internals.

For the drawn-words test (tests/blender/ui/test_ui_words.py: every text a panel draws and every
report, in each state); ``INTERNAL`` is the catalogue's lint's too (tests/python/words). Plain Python:
the catalogue module is handed in (the add-on's own, or ``api.words.catalogue``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType

#: Words that belong to the console and Copy Details, never to what an artist reads.
INTERNAL = re.compile(
    r"\b(HTTP|JSON|endpoint|payload|idempotenc\w*|write-ahead|WAL|SQLite|sqlite3|-wal|-shm|pid|"
    r"process id|accessor\w*|bufferView|glTF field|helper Blender|outcome unknown|traceback|"
    r"exception|stack|task id \{|jobs\.sqlite3|stdin|stdout|subprocess)\b",
    re.IGNORECASE,
)
#: An HTTP status (400–599) standing alone: not part of a larger number, a size or a share.
HTTP_STATUS = re.compile(r"(?<!\d)(?<!\d[.,])\b[45]\d\d\b(?![.,]?\d|%|\s?(?:B|KB|MB|GB)\b)")
#: Entries that wrap any sentence (the status bar's prefix), so a text matching them says nothing.
WRAPPERS = ("REPORT",)
#: Texts that need no entry: nothing, numbers and marks only ("42%", "…"), or a size ("2.1 KB").
WORDLESS = re.compile(r"[\W\d_]*|\d[\d,.]*\s?(?:B|KB|MB|GB)")
#: A value that is a name, not words: one token with a digit or a mark in it ("KILN_API_KEY",
#: "127.0.0.1:8000", "props.txt"). A plain word ("Queued") has to come from the catalogue.
NAME_TOKEN = re.compile(r"\S*[\d_.:/@\\]\S*")
#: What a count (``n``) is shown as: "3", "6,144".
COUNT = re.compile(r"\d[\d,.]*")
#: How deep values may nest (a count inside a sentence inside a report).
DEPTH = 4
_FIELD = r"((?s:.*?))"


def entries(catalogue: ModuleType) -> dict[str, object]:
    return {name: value for name, value in vars(catalogue).items() if name.isupper()}


def templates(catalogue: ModuleType) -> list[tuple[str, str]]:
    """Every text an artist may read, with the entry it comes from: a text, both forms of a
    ``Plural``, a ``Label``'s name and tooltip."""
    found: list[tuple[str, str]] = []
    for name, entry in entries(catalogue).items():
        if isinstance(entry, str):
            found.append((name, entry))
        elif hasattr(entry, "one") and hasattr(entry, "other"):
            found += [(name, entry.one), (name, entry.other)]
        elif hasattr(entry, "name") and hasattr(entry, "tip"):
            found += [(name, entry.name), (name, entry.tip)]
    return [(name, text) for name, text in found if text]


def plain(text: str) -> str:
    """A text as a label shows it: every run of spaces and line breaks one space, none at the ends."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Field:
    """A field of a template, by name (``n`` is always a count)."""

    name: str


Part = str | Field


def template_parts(template: str) -> tuple[Part, ...]:
    """A template's literal words (spaces made single) and its fields, in order."""
    parts: list[Part] = []
    for literal, name, _spec, _conversion in string.Formatter().parse(template):
        if literal:
            parts.append(re.sub(r"\s+", " ", literal))
        if name is not None:
            parts.append(Field(name))
    return tuple(parts)


def template_pattern(template: str) -> re.Pattern[str]:
    """``template`` as a pattern: its words as written, each field anything (a group)."""
    parts = template_parts(template)
    return re.compile("".join(_FIELD if isinstance(part, Field) else re.escape(part) for part in parts))


def splits(parts: tuple[Part, ...], text: str, at: int = 0) -> Iterator[list[tuple[Field, str]]]:
    """Every way ``text[at:]`` fills ``parts``: each field with its value, in order."""
    if not parts:
        if at == len(text):
            yield []
        return
    head, rest = parts[0], parts[1:]
    if isinstance(head, str):
        if text.startswith(head, at):
            yield from splits(rest, text, at + len(head))
        return
    if not rest:
        yield [(head, text[at:])]
        return
    ends = range(at, len(text) + 1) if isinstance(rest[0], Field) else _occurrences(text, rest[0], at)
    for end in ends:
        for tail in splits(rest, text, end):
            yield [(head, text[at:end]), *tail]


def _occurrences(text: str, literal: str, at: int) -> Iterator[int]:
    found = text.find(literal, at)
    while found != -1:
        yield found
        found = text.find(literal, found + 1)


class Catalogue:
    """The catalogue's entries, and which one a text renders, if any: each field's value a number, a
    name, a value the test gave or a rendering of another entry (a count, ``n``, a number); templates
    made of fields alone ("{text}") and the status bar's prefix are no rendering of anything."""

    def __init__(self, catalogue: ModuleType) -> None:
        self.entries = [
            (name, template_pattern(text), template_parts(text))
            for name, text in templates(catalogue)
            if name not in WRAPPERS and not all(isinstance(part, Field) for part in template_parts(text))
        ]
        self.report = template_pattern(getattr(catalogue, WRAPPERS[0]))

    def entry_of(self, text: str, given: Iterable[str] = (), depth: int = 0) -> str | None:
        """The name of an entry ``text`` is a rendering of, or None."""
        text, given = plain(text), set(given)
        for name, pattern, parts in self.entries:
            if pattern.fullmatch(text) and any(
                all(self._value(f, v, given, depth) for f, v in values) for values in splits(parts, text)
            ):
                return name
        return None

    def _value(self, field: Field, value: str, given: set[str], depth: int) -> bool:
        """Whether a field's value is one an artist may read there (a count is a number)."""
        value = value.strip()
        if field.name == "n":
            return bool(COUNT.fullmatch(value))
        return bool(
            WORDLESS.fullmatch(value)
            or value in given
            or NAME_TOKEN.fullmatch(value)
            or (depth < DEPTH and self.entry_of(value, given, depth + 1))
        )

    def unwrapped(self, report: str) -> str | None:
        """What a report says after Kiln's name (the status bar's one prefix), or None without it; a
        sentence that opens with Kiln's name is said without the prefix, so it is never said twice."""
        text = plain(report)
        match = self.report.fullmatch(text)
        if match:
            return None if match.group(1).startswith("Kiln") else match.group(1)  # "Kiln: Kiln …"
        return text if text.startswith("Kiln") else None

    def problems(self, text: str, *, given: Iterable[str] = (), hidden: Iterable[str] = ()) -> list[str]:
        """What is wrong with a text an artist reads, [] when nothing.

        ``given``: values the test itself put in (a prompt, a job's name, an object's name), shown as
        they are. ``hidden``: strings only the details may carry (task and job ids, Kiln's own paths).
        """
        found = [f"internal word “{m.group(0)}”" for m in INTERNAL.finditer(text)]
        found += [f"HTTP status {m.group(0)}" for m in HTTP_STATUS.finditer(text)]
        found += [f"internal “{secret}”" for secret in hidden if secret and secret in text]
        given = set(given)
        if not (WORDLESS.fullmatch(plain(text)) or plain(text) in given or self.entry_of(text, given)):
            found.append("not from the catalogue")
        return found
