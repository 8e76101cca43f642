"""Kiln's sentences in other languages: one .po file per language that a translator edits, read here.

Each catalogue entry is a .po entry whose ``msgctxt`` is its name in the catalogue (a ``Label`` gives
two: ``NAME.name`` and ``NAME.tip``; a ``Plural`` has ``msgid_plural`` and one ``msgstr[i]`` per form of
its language, chosen by the file's ``Plural-Forms`` header through the standard library's
``gettext.c2py``). The name keys the entry, the English ``msgid`` says what was translated: when the
English changes, ``update`` marks the old translation fuzzy, and a fuzzy translation is not used.

Plain Python: the Blender side (``language.py``) hands ``table`` to ``bpy.app.translations`` and
says plural forms with ``plural_index``. ``tools/words_po.py`` updates and checks the files.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import catalogue
from .contexts import BLENDER_CONTEXTS, KILN_CONTEXT, plural_context
from .kinds import Label, Plural

#: Where the .po files are (shipped with the add-on).
PO_DIR = Path(__file__).with_name("po")

#: The languages Kiln is translated into, by Blender's locale code, and each one's plural rule.
LOCALES: dict[str, str] = {
    "ja_JP": "nplurals=1; plural=0;",
    "zh_HANS": "nplurals=1; plural=0;",
    "ko_KR": "nplurals=1; plural=0;",
    "es": "nplurals=2; plural=(n != 1);",
    "fr_FR": "nplurals=2; plural=(n > 1);",
    "de_DE": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
}


@dataclass
class PoEntry:
    """One entry of a .po file: its key (the catalogue name), the English, the translation(s)."""

    context: str
    msgid: str
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=lambda: [""])
    fuzzy: bool = False
    comments: list[str] = field(default_factory=list)

    @property
    def translated(self) -> bool:
        return not self.fuzzy and all(self.msgstr)


@dataclass
class PoFile:
    """A language's file: its plural rule and its entries by context."""

    locale: str
    plural_forms: str
    entries: dict[str, PoEntry]

    def plurals(self) -> int:
        match = re.search(r"nplurals\s*=\s*(\d+)", self.plural_forms)
        return int(match.group(1)) if match else 2


def english_entries() -> Iterator[PoEntry]:
    """Every text of the catalogue as an untranslated .po entry, in the catalogue's order."""
    for name, value in vars(catalogue).items():
        if not name.isupper():
            continue
        if isinstance(value, str):
            yield PoEntry(name, value)
        elif isinstance(value, Plural):
            yield PoEntry(name, value.one, value.other)
        elif isinstance(value, Label):
            yield PoEntry(f"{name}.name", value.name)
            if value.tip:
                yield PoEntry(f"{name}.tip", value.tip)


def _unquote(text: str) -> str:
    body = text.strip()[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def read(path: Path) -> PoFile:
    """A .po file as written by ``write`` (or a translator's tool): header, entries, fuzzy marks."""
    entries: list[PoEntry] = []
    fields: dict[str, str] = {}
    flags: list[str] = []
    comments: list[str] = []
    last = ""

    def finish() -> None:
        if "msgid" in fields:
            forms = sorted(k for k in fields if k.startswith("msgstr["))
            msgstr = [fields[k] for k in forms] if forms else [fields.get("msgstr", "")]
            entries.append(
                PoEntry(
                    fields.get("msgctxt", ""),
                    fields["msgid"],
                    fields.get("msgid_plural", ""),
                    msgstr,
                    "fuzzy" in flags,
                    comments[:],
                )
            )
        fields.clear()
        flags.clear()
        comments.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            finish()
        elif line.startswith("#,"):
            if "msgid" in fields:
                finish()
            flags.extend(flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#"):
            if "msgid" in fields:
                finish()
            if line.startswith("#."):
                comments.append(line[2:].strip())
        elif line.startswith('"'):
            fields[last] += _unquote(line)
        else:
            keyword, _, rest = line.partition(" ")
            if keyword == "msgctxt" and "msgid" in fields:
                finish()
            last = keyword
            fields[keyword] = _unquote(rest)
    finish()
    header = next((entry for entry in entries if not entry.context and not entry.msgid), None)
    match = re.search(r"Plural-Forms:\s*([^\n]*)", header.msgstr[0] if header else "")
    locale = path.stem
    rule = match.group(1).strip() if match else LOCALES.get(locale, "nplurals=2; plural=(n != 1);")
    return PoFile(locale, rule, {entry.context: entry for entry in entries if entry.context})


def write(path: Path, po: PoFile) -> None:
    """``po`` as a .po file in the catalogue's order."""
    header = (
        f"Project-Id-Version: Kiln\\n\nLanguage: {po.locale}\\n\nMIME-Version: 1.0\\n\n"
        f"Content-Type: text/plain; charset=UTF-8\\n\nContent-Transfer-Encoding: 8bit\\n\n"
        f"Plural-Forms: {po.plural_forms}\\n"
    )
    lines = ['msgid ""', 'msgstr ""'] + [f'"{part}"' for part in header.split("\n")]
    for entry in po.entries.values():
        lines.append("")
        lines += [f"#. {comment}" for comment in entry.comments]
        if entry.fuzzy:
            lines.append("#, fuzzy")
        lines += [f"msgctxt {_quote(entry.context)}", f"msgid {_quote(entry.msgid)}"]
        if entry.msgid_plural:
            lines.append(f"msgid_plural {_quote(entry.msgid_plural)}")
            lines += [f"msgstr[{i}] {_quote(text)}" for i, text in enumerate(entry.msgstr)]
        else:
            lines.append(f"msgstr {_quote(entry.msgstr[0])}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def updated(po: PoFile) -> PoFile:
    """``po`` with the catalogue's current entries: a translation kept where its English is the
    same, kept but fuzzy where the English changed, an empty one for a new entry; gone entries go."""
    entries: dict[str, PoEntry] = {}
    forms = po.plurals()
    for english in english_entries():
        old = po.entries.get(english.context)
        english.msgstr = [""] * (forms if english.msgid_plural else 1)
        if old is not None and any(old.msgstr):
            changed = (old.msgid, old.msgid_plural) != (english.msgid, english.msgid_plural)
            english.msgstr = (old.msgstr + english.msgstr)[: len(english.msgstr)]
            english.fuzzy = old.fuzzy or changed
            english.comments = old.comments
        entries[english.context] = english
    return PoFile(po.locale, po.plural_forms, entries)


def load(locale: str, folder: Path = PO_DIR) -> PoFile:
    """A language's file, or an empty one when there is none yet."""
    path = folder / f"{locale}.po"
    if path.is_file():
        return read(path)
    return PoFile(locale, LOCALES.get(locale, "nplurals=2; plural=(n != 1);"), {})


def plural_rule(po: PoFile) -> Callable[[int], int]:
    """Which form a count takes in ``po``'s language (its ``Plural-Forms`` header)."""
    match = re.search(r"plural\s*=\s*([^;]+)", po.plural_forms)
    return gettext.c2py(match.group(1) if match else "n != 1")


def table(
    folder: Path = PO_DIR,
) -> tuple[dict[str, dict[tuple[str, str], str]], dict[str, Callable[[int], int]]]:
    """What ``bpy.app.translations.register`` takes, and each language's plural rule.

    Every text under Kiln's context (``KILN_CONTEXT``: what ``language`` and Kiln's classes look up);
    tooltips under Blender's contexts too (Blender looks tooltips up there); plural
    forms under ``plural_context(i)`` with the English plural as the msgid. Untranslated and fuzzy
    entries are left out (Blender then shows the English).
    """
    registered: dict[str, dict[tuple[str, str], str]] = {}
    rules: dict[str, Callable[[int], int]] = {}
    for locale in LOCALES:
        po = load(locale, folder)
        texts: dict[tuple[str, str], str] = {}
        for entry in po.entries.values():
            if not entry.translated:
                continue
            if entry.msgid_plural:
                for index, form in enumerate(entry.msgstr):
                    texts[(plural_context(index), entry.msgid_plural)] = form
            else:
                texts[(KILN_CONTEXT, entry.msgid)] = entry.msgstr[0]
                if entry.context.endswith(".tip"):
                    texts.update({(context, entry.msgid): entry.msgstr[0] for context in BLENDER_CONTEXTS})
        registered[locale] = texts
        rules[locale] = plural_rule(po)
    return registered, rules
