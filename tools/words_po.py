"""Keep the translators' .po files in step with the catalogue, and check them.

    python tools/words_po.py update   # add new entries, mark changed English fuzzy, drop gone ones
    python tools/words_po.py check    # every entry translated, placeholders and plural forms kept
    python tools/words_po.py terms    # Blender's own words per language, from its catalogues

``terms`` reads Blender's .mo catalogues (Debian's, in the window suite's chroot, or a folder given as
``--locale-dir``) and writes api/words/po/blender-terms.json: the check then asks every translation of
a text naming Sidebar, Preferences, Add-ons … to use Blender's word for it.
"""

from __future__ import annotations

import argparse
import gettext
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.words import translations  # noqa: E402
from api.words.checking import TERMS_FILE, problems  # noqa: E402

#: Blender's words Kiln's sentences use, looked up in Blender's own catalogues (default context).
TERMS = (
    "Sidebar",
    "Preferences",
    "Add-ons",
    "3D Cursor",
    "Asset Browser",
    "Collection",
    "Undo",
    "Outliner",
    "Text Editor",
    "Decimate",
    "Get Extensions",
    "Install from Disk",
    "Allow Online Access",
    "Object Properties",
    "Custom Properties",
    "Edit Mode",
)

#: Where each locale's catalogue is in a Linux distribution's locale folder.
MO_NAMES = {
    "ja_JP": "ja",
    "zh_HANS": "zh_HANS",
    "ko_KR": "ko",
    "es": "es",
    "fr_FR": "fr",
    "de_DE": "de",
    "pt_BR": "pt_BR",
}
DEFAULT_LOCALE_DIR = Path("/var/cache/kiln-window/sid/usr/share/locale")


def update() -> None:
    translations.PO_DIR.mkdir(exist_ok=True)
    for locale in translations.LOCALES:
        translations.write(
            translations.PO_DIR / f"{locale}.po", translations.updated(translations.load(locale))
        )


def check(folder: Path, locale: str | None) -> int:
    found = [line for line in problems(folder) if locale is None or line.startswith(f"{locale} ")]
    for line in found:
        print(line)
    print(f"{len(found)} problems")
    return 1 if found else 0


def terms(locale_dir: Path) -> None:
    known: dict[str, dict[str, str]] = {}
    for locale, folder in MO_NAMES.items():
        with (locale_dir / folder / "LC_MESSAGES" / "blender.mo").open("rb") as mo:
            catalogue = gettext.GNUTranslations(mo)
        known[locale] = {term: catalogue.gettext(term) for term in TERMS if catalogue.gettext(term) != term}
    TERMS_FILE.write_text(
        json.dumps(known, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("update", "check", "terms"))
    parser.add_argument("--locale-dir", type=Path, default=DEFAULT_LOCALE_DIR)
    parser.add_argument("--folder", type=Path, default=translations.PO_DIR, help="the .po files to check")
    parser.add_argument("--locale", help="check only this language")
    args = parser.parse_args()
    if args.what == "update":
        update()
    elif args.what == "terms":
        terms(args.locale_dir)
    else:
        return check(args.folder, args.locale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
