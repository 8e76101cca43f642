"""Prompt files as Windows, macOS and Linux tools write them: encodings, CSV separators, path separators.

Artists make prompt files in Excel, Numbers, LibreOffice, Notepad or PowerShell. Excel's plain
"CSV" is the Windows ANSI code page (cp1252 in Western Europe and the Americas) and uses ``;`` where
the decimal mark is a comma, sometimes announced by a ``sep=;`` first line; PowerShell 5.1's
``Out-File`` and ``>`` write UTF-16 with a byte-order mark. All of them are read here, with a note
when Kiln had to guess, so one accented prompt never refuses the whole file.
"""

from __future__ import annotations

import codecs
import csv
import io
import locale
import sys
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

from ..words import Message, message
from ..words import catalogue as words

#: Byte-order marks, longest first (a UTF-32 LE mark starts like a UTF-16 LE one).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
#: What Excel on a Western Windows writes for "CSV (Comma delimited)"; used where the system has no code page.
WESTERN_CODE_PAGE = "cp1252"
SEPARATORS = (",", ";", "\t")


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str
    #: Set when Kiln guessed the encoding: worth telling the artist, who can save as UTF-8 to be sure.
    note: Message | None = None


def decode_text(data: bytes, name: str) -> DecodedText:
    """UTF-8 (with or without BOM), UTF-16/32 with BOM, else the Windows code page with a note."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return DecodedText(data.decode(encoding), encoding)
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    code_page = windows_code_page()
    try:
        text = data.decode(code_page)
    except UnicodeDecodeError:
        # cp1252 leaves five byte values undefined; Latin-1 reads every byte, so nothing is refused.
        code_page, text = "latin-1", data.decode("latin-1")
    note = message(words.PROMPT_FILE_GUESSED_ENCODING, name=name, encoding=code_page)
    return DecodedText(text, code_page, note)


def windows_code_page() -> str:
    """The ANSI code page of this Windows (cp1252, cp1250, cp932, …); elsewhere the Western one."""
    if sys.platform == "win32":
        encoding = locale.getencoding()
        if encoding.lower().startswith("cp"):
            return encoding
    return WESTERN_CODE_PAGE


def csv_dialect(text: str, wanted: tuple[str, ...]) -> tuple[str, str]:
    """The separator of a CSV and the text without Excel's ``sep=`` line.

    Excel's ``sep=X`` first line wins; otherwise the separator is the one that splits the header
    (the first line that is neither blank nor a ``#`` comment) into a known column name, and
    failing that the most frequent of ``,`` ``;`` and tab in it.
    """
    first, _, rest = text.partition("\n")
    marker = first.strip().strip('"').lower()
    if marker.startswith("sep=") and len(marker) == 5:
        return first.strip().strip('"')[4], rest
    header = next(
        (line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), ""
    )
    for separator in SEPARATORS:
        cells = next(csv.reader(io.StringIO(header), delimiter=separator), [])
        if any(cell.strip().lower() in wanted for cell in cells) and len(cells) > 1:
            return separator, text
    return max(SEPARATORS, key=header.count), text


def relative_path(folder: Path, written: str) -> Path:
    """A path from a prompt file, relative to its folder, written with ``\\`` or ``/`` on any system."""
    if "\\" in written and sys.platform != "win32":
        return folder.joinpath(*PureWindowsPath(written).parts)
    return folder / Path(written).expanduser()
