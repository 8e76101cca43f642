"""The catalogue's api half, read as an artist reads it: plain words, count-aware, no prefix.

Every entry between the "what api/ says" header and the Blender side's is checked in each of its
forms: no word of the machine room, no literal "Kiln: " prefix, no plural made with "(s)", no
field a caller could leave unfilled by mistake (each field is a plain name), and no entry twice.
"""

from __future__ import annotations

import ast
from pathlib import Path

from api.words import Plural, fields
from api.words import catalogue as words

CATALOGUE = Path(words.__file__)
INTERNAL_WORDS = (
    "HTTP",
    "JSON",
    "task ",
    "helper Blender",
    "outcome unknown",
    "write-ahead",
    "SQLite",
    "-wal",
    "idempotency",
    "endpoint",
    "payload",
    "accessor",
    "bufferView",
    "pid",
)


def api_entries() -> dict[str, str | Plural]:
    """The entries of the api half, by name, in the order written."""
    source = CATALOGUE.read_text(encoding="utf-8")
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# ====") and "what api/ says" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("# ====") and "Blender side says" in line)
    names = [
        node.targets[0].id
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and start < node.lineno - 1 < end
    ]
    return {name: getattr(words, name) for name in names}


def forms(entry: str | Plural) -> list[str]:
    return [entry.one, entry.other] if isinstance(entry, Plural) else [entry]


def test_the_api_half_holds_the_sentences() -> None:
    assert len(api_entries()) > 200


def test_no_api_entry_carries_internals_a_prefix_or_an_s_in_brackets() -> None:
    bad = {
        name: [word for word in (*INTERNAL_WORDS, "Kiln: ", "(s)") if word in text]
        for name, entry in api_entries().items()
        for text in forms(entry)
    }
    assert {name: found for name, found in bad.items() if found} == {}


def test_each_plural_counts_with_n_in_both_forms() -> None:
    for name, entry in api_entries().items():
        if isinstance(entry, Plural):
            assert "n" in fields(entry.one) and "n" in fields(entry.other), name
            assert entry.one != entry.other, name


def test_no_api_entry_is_written_twice() -> None:
    texts = [text for entry in api_entries().values() for text in forms(entry)]
    assert len(texts) == len(set(texts))
