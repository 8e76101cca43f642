"""An artist's page says what to press and what it costs, in plain words: no machine-room word
(a variable, a module's path, the engine's parts) on any page ``artist_pages.ARTIST_PAGES`` names,
every page under docs/ named an artist's or a developer's, and every link between the pages leads
somewhere (a moved section leaves no link behind)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from artist_pages import ROOT, artist_pages, artist_text, developer_pages, machine_words

#: A Markdown link or picture to a page or file of the repository: [text](target) or ![text](target).
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
CODE_BLOCK = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, marks dropped, spaces to hyphens."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    kept = "".join(c for c in plain if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for line in CODE_BLOCK.sub("", page.read_text(encoding="utf-8")).splitlines():
        if heading := HEADING.match(line):
            base = anchor(heading.group(1))
            name, n = base, 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def all_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def broken_links(page: Path) -> list[str]:
    """Every link of ``page`` to a file that is not there, or to a heading its page lacks."""
    broken = []
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # a web address or mailto: not the repository's
            continue
        path, _, section = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif section and linked.suffix == ".md" and section not in anchors(linked):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("page", artist_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_an_artists_page_has_no_machine_room_word(page: Path) -> None:
    assert machine_words(artist_text(page)) == []


def test_every_page_is_an_artists_or_a_developers_once() -> None:
    artists, developers = artist_pages(), developer_pages()
    assert len(artists) >= 13 and not set(artists) & set(developers)
    assert set(artists) | set(developers) == set(all_pages())


@pytest.mark.parametrize("page", all_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_between_the_pages_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_a_machine_room_word_fails() -> None:
    said = machine_words(
        "Set KILN_TRIPO_API_KEY or REQUESTS_CA_BUNDLE.\n"
        "The heartbeat thread writes JSON; a traceback goes to stdout.\n"
        "dependencies.py runs in a helper Blender."
    )
    assert [entry.split(":", 1)[0] for entry in said] == ["line 1"] * 2 + ["line 2"] * 5 + ["line 3"] * 2
    assert machine_words("Paste the key, then press Test Connection: it costs nothing.") == []
    # An address may hold any word; README's developers' part is not an artist's.
    assert "index.json" not in artist_text(ROOT / "README.md")
    assert "## For developers" not in artist_text(ROOT / "README.md")


def test_a_broken_link_fails(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A page\n\n## Where it is\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#where-it-is) [gone](a.md#where-it-was) [none](c.md)", encoding="utf-8")
    assert broken_links(page) == ["a.md#where-it-was: no such heading", "c.md: no such file"]
    assert anchor("The Sidebar's text, measured") == "the-sidebars-text-measured"
