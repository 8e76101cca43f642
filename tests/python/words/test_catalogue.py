"""The catalogue of sentences is written once and in an artist's words: the lint.

Every entry of ``api.words.catalogue``: no word from Kiln's machine room, no sentence written twice,
no prefix of Kiln's name but the one the status bar adds, plurals only as ``Plural`` (never "(s)"),
every form of an entry filling the same fields, and no field left unfilled by the code's own values.
"""

from __future__ import annotations

import re
import string

import pytest
from catalogue_match import INTERNAL

from api.words import Label, Plural, catalogue, fields

#: Entries whose words speak to a script's author (an argument's name is what they type) or to the one
#: who sets up an address or an agent's client, where "http" is what they type.
FOR_SCRIPTS = {
    "OVER_LIMIT",
    "OVER_LIMIT_UNKNOWN_PRICE",
    "OPTION_WAIT",
    "ADDRESS_NOT_HTTPS",
    "AGENT_CLIENT_HTTP",
    "AGENT_CLIENT_VSCODE",
}


def entries() -> dict[str, object]:
    return {name: value for name, value in vars(catalogue).items() if name.isupper()}


def texts() -> list[tuple[str, str]]:
    """Every text an artist may read, with the entry it comes from."""
    found: list[tuple[str, str]] = []
    for name, entry in entries().items():
        if isinstance(entry, str):
            found.append((name, entry))
        elif isinstance(entry, Plural):
            found += [(name, entry.one), (name, entry.other)]
        elif isinstance(entry, Label):
            found += [(name, entry.name), (name, entry.tip)]
    return [(name, text) for name, text in found if text]


def test_every_entry_is_a_text_a_plural_or_a_label() -> None:
    assert entries()
    odd = {
        name: type(value).__name__
        for name, value in entries().items()
        if not isinstance(value, (str, Plural, Label))
    }
    assert odd == {}


def test_no_word_from_the_machine_room() -> None:
    offenders = [
        f"{name}: {text}" for name, text in texts() if INTERNAL.search(text) and name not in FOR_SCRIPTS
    ]
    assert offenders == []


def test_no_sentence_is_written_twice() -> None:
    """A name of a few words (Import, None, Resolution) may stand for several things; a sentence not."""
    seen: dict[str, str] = {}
    repeated = []
    for name, text in texts():
        if len(text.split()) > 3 and text in seen and seen[text] != name:
            repeated.append(f"{seen[text]} and {name}: {text}")
        seen.setdefault(text, name)
    assert repeated == []


def test_kilns_name_is_put_before_a_sentence_in_one_place() -> None:
    prefixed = [name for name, text in texts() if text.startswith("Kiln: ")]
    assert prefixed == ["REPORT"]


def test_plurals_are_count_aware_entries_never_an_appended_s() -> None:
    glued = [f"{name}: {text}" for name, text in texts() if re.search(r"\w\(s\)|\{n\}\w+s\b", text)]
    assert glued == []
    for name, entry in entries().items():
        if isinstance(entry, Plural):
            assert entry.one != entry.other, f"{name}: both forms alike, so it is no plural"


def test_every_form_of_an_entry_fills_the_same_fields() -> None:
    for name, entry in entries().items():
        if isinstance(entry, Plural):
            one, other = fields(entry.one) - {"n"}, fields(entry.other) - {"n"}
            assert one == other, f"{name}: {one} against {other}"


@pytest.mark.parametrize("name", sorted(entries()))
def test_every_template_is_well_formed(name: str) -> None:
    entry = entries()[name]
    for text in (
        (entry.one, entry.other) if isinstance(entry, Plural) else (entry,) if isinstance(entry, str) else ()
    ):
        list(string.Formatter().parse(text))  # raises on a stray brace


def test_the_checks_see_what_they_look_for() -> None:
    assert INTERNAL.search("The service said HTTP 500")
    assert INTERNAL.search("the helper Blender crashed")
    assert not INTERNAL.search("The service could not make a mesh from this prompt.")
