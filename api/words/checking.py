"""The translation check: every entry in every language, its placeholders and plural forms kept, and
Blender's own word wherever a sentence names a thing of Blender's.

Plain Python, run by ``tools/words_po.py check`` and by the tests.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import translations
from .phrasing import fields

#: Blender's own words per language (``tools/words_po.py terms`` reads them from Blender's catalogues).
TERMS_FILE = translations.PO_DIR / "blender-terms.json"


def blender_terms(path: Path = TERMS_FILE) -> dict[str, dict[str, str]]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def problems(folder: Path = translations.PO_DIR) -> list[str]:
    """What is wrong with the translations, one line each ([] when nothing)."""
    found: list[str] = []
    terms = blender_terms(folder / TERMS_FILE.name)
    english = list(translations.english_entries())
    for locale in translations.LOCALES:
        po = translations.load(locale, folder)
        forms = po.plurals()
        for entry in english:
            where = f"{locale} {entry.context}"
            have = po.entries.get(entry.context)
            if have is None or not any(have.msgstr):
                found.append(f"{where}: not translated")
                continue
            if (have.msgid, have.msgid_plural) != (entry.msgid, entry.msgid_plural) or have.fuzzy:
                found.append(f"{where}: the English changed; check the translation and remove 'fuzzy'")
                continue
            if entry.msgid_plural and len(have.msgstr) != forms:
                found.append(f"{where}: {len(have.msgstr)} plural forms, the language has {forms}")
            wanted = fields(entry.msgid) | fields(entry.msgid_plural)
            for index, text in enumerate(have.msgstr):
                if not text:
                    found.append(f"{where}: form {index} is empty")
                    continue
                got = fields(text)
                # One form of a language may say "one" in words and leave the count out.
                needed = wanted - {"n"} if entry.msgid_plural and forms > 1 and index == 0 else wanted
                if not needed <= got or not got <= wanted:
                    found.append(f"{where}: placeholders {sorted(got)}, the English has {sorted(wanted)}")
            for term, word in terms.get(locale, {}).items():
                if term in entry.msgid and all(word not in text for text in have.msgstr):
                    found.append(f"{where}: says “{term}”; Blender's word for it is “{word}”")
    return found
