"""The translators' files: every entry in every language with its placeholders and plural forms, read
and written without loss, and handed to Blender in contexts that never replace Blender's own words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from api.words import Label, Plural, catalogue, checking, translations


def test_every_entry_is_translated_into_every_language_with_its_placeholders() -> None:
    assert checking.problems() == []


def test_a_file_reads_back_as_written(tmp_path: Path) -> None:
    for locale in translations.LOCALES:
        po = translations.load(locale)
        translations.write(tmp_path / f"{locale}.po", po)
        again = translations.read(tmp_path / f"{locale}.po")
        assert again.plural_forms == po.plural_forms
        assert again.entries == po.entries
        assert (tmp_path / f"{locale}.po").read_text(encoding="utf-8") == (
            translations.PO_DIR / f"{locale}.po"
        ).read_text(encoding="utf-8"), (
            "the committed file is in the writer's form (run tools/words_po.py update)"
        )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(translations.PO_DIR, tmp_path / "po")
    return tmp_path / "po"


def test_the_check_fails_on_each_kind_of_mistake(copy: Path) -> None:
    path = copy / "de_DE.po"
    po = translations.read(path)
    po.entries["SETUP_ADD_KEY"].msgstr = [""]  # untranslated
    po.entries["BATCH_NOTHING_USABLE"].msgstr = ["Nichts Brauchbares in der Datei."]  # {file} lost
    jobs = next(name for name, value in vars(catalogue).items() if isinstance(value, Plural))
    po.entries[jobs].msgstr = po.entries[jobs].msgstr[:1]  # a plural form missing
    term, word = "Preferences", checking.blender_terms()["de_DE"]["Preferences"]
    named = next(e for e in po.entries.values() if term in e.msgid and not e.msgid_plural)
    named.msgstr = [named.msgstr[0].replace(word, term)]  # not Blender's word
    po.entries["SETUP_ADD_ADDRESS"].fuzzy = True
    translations.write(path, po)
    found = "\n".join(checking.problems(copy))
    assert "de_DE SETUP_ADD_KEY: not translated" in found
    assert "de_DE BATCH_NOTHING_USABLE: placeholders" in found
    assert f"de_DE {jobs}: 1 plural forms, the language has 2" in found
    assert f"de_DE {named.context}: says “{term}”; Blender's word for it is “{word}”" in found
    assert "de_DE SETUP_ADD_ADDRESS: the English changed" in found


def test_changed_english_keeps_the_translation_but_marks_it_fuzzy(copy: Path) -> None:
    po = translations.read(copy / "fr_FR.po")
    po.entries["SETUP_ADD_KEY"].msgid = "Add the key"  # as if the catalogue's English were older
    del po.entries["SETUP_ADD_ADDRESS"]
    now = translations.updated(po)
    assert now.entries["SETUP_ADD_KEY"].fuzzy and now.entries["SETUP_ADD_KEY"].msgstr[0]
    assert not now.entries["SETUP_ADD_KEY"].translated
    assert now.entries["SETUP_ADD_ADDRESS"].msgstr == [""]
    assert list(now.entries) == [entry.context for entry in translations.english_entries()]


def test_plural_forms_follow_each_language() -> None:
    rules = {locale: translations.plural_rule(translations.load(locale)) for locale in translations.LOCALES}
    assert [rules["fr_FR"](n) for n in (0, 1, 2)] == [0, 0, 1]
    assert [rules["pt_BR"](n) for n in (0, 1, 2)] == [0, 0, 1]
    assert [rules["de_DE"](n) for n in (0, 1, 2)] == [1, 0, 1]
    assert [rules["ja_JP"](n) for n in (0, 1, 5)] == [0, 0, 0]


def test_names_are_registered_only_in_kilns_context_and_tooltips_where_blender_looks() -> None:
    texts, rules = translations.table()
    assert set(texts) == set(translations.LOCALES) == set(rules)
    german = texts["de_DE"]
    label = catalogue.FILTER_ALL
    assert isinstance(label, Label)
    assert (translations.KILN_CONTEXT, label.name) in german
    assert ("*", label.name) not in german and ("Operator", label.name) not in german  # Blender's "All"
    assert all((context, label.tip) in german for context in ("*", "Operator", translations.KILN_CONTEXT))
    plural = catalogue.TRIANGLE_COUNT
    assert (
        german[(translations.plural_context(0), plural.other)]
        != german[(translations.plural_context(1), plural.other)]
    )
    assert (translations.plural_context(0), plural.other) in texts["ja_JP"]
    assert (translations.plural_context(1), plural.other) not in texts["ja_JP"]


def test_a_service_named_in_words_has_a_chooser_button_of_its_own_in_every_language() -> None:
    """ "Use {service}" around a translated common noun reads wrong where the noun declines or takes an
    article ("Eigener Dienst verwenden"): such a service's button is a sentence translated whole. A
    brand ("fal.ai", "Tripo") is never translated and keeps "Use {service}"."""
    from api.services import info, service_ids

    files = [translations.load(locale) for locale in translations.LOCALES]
    names = {name: value for name, value in vars(catalogue).items() if isinstance(value, Label)}
    translated = []
    for sid in service_ids():
        found = info(sid)
        entry = next((n for n, label in names.items() if label is found.label), None)
        if entry is None or all(po.entries[f"{entry}.name"].msgstr == [found.label.name] for po in files):
            assert found.chooser_words() == (catalogue.USE_SERVICE, found.choice_words()[0]), sid
            continue
        translated.append(sid)
        sentence, name = found.chooser_words()
        assert name == "" and "{" not in sentence, sid
    assert translated == ["INTERFACE", "HUNYUAN3D"]
    said = {po: translations.load(po).entries["USE_CUSTOM_SERVICE"].msgstr[0] for po in ("de_DE", "fr_FR")}
    assert said == {"de_DE": "Eigenen Dienst verwenden", "fr_FR": "Utiliser un service personnalisé"}
