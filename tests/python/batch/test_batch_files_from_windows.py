"""Prompt files as Excel, Notepad and PowerShell write them on Windows, read on any system."""

from __future__ import annotations

from pathlib import Path

import pytest
from concepts import CONCEPTS

from api.checks.text_files import decode_text
from api.features.batch import read_batch

PROMPTS = ["une chaise rouge à café", "ein grüner Baum", "a plain stone"]


def test_excel_csv_in_the_windows_code_page_is_read_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "props.csv"
    path.write_bytes(("prompt\r\n" + "\r\n".join(PROMPTS) + "\r\n").encode("cp1252"))
    batch = read_batch(path)
    assert [item.request.prompt for item in batch.items] == PROMPTS
    assert batch.problems == []
    (note,) = batch.notes
    said = str(note)
    assert "props.csv is not saved as UTF-8" in said and "cp1252" in said and "CSV UTF-8" in said


def test_excel_semicolon_csv_with_and_without_its_sep_line(tmp_path: Path) -> None:
    rows = "name;prompt;resolution\r\nChaise;une chaise rouge à café;1024\r\nArbre;ein grüner Baum;1536\r\n"
    for text in (rows, "sep=;\r\n" + rows):
        path = tmp_path / "props.csv"
        path.write_bytes(text.encode("cp1252"))
        batch = read_batch(path)
        assert batch.problems == []
        assert [(i.request.name, i.request.prompt, i.request.resolution) for i in batch.items] == [
            ("Chaise", "une chaise rouge à café", 1024),
            ("Arbre", "ein grüner Baum", 1536),
        ]
    # Line numbers are the file's own, the sep= line counted: a bad row names the line an editor shows.
    path.write_bytes(("sep=;\r\n" + rows + "Bad;a lamp;2048\r\n").encode("cp1252"))
    (problem,) = read_batch(path).problems
    assert problem.line == 5 and "2048" in str(problem.message)


def test_tab_separated_and_utf8_bom_csv(tmp_path: Path) -> None:
    path = tmp_path / "props.csv"
    path.write_bytes("\ufeffprompt\tname\na café table\tTable\n".encode())
    batch = read_batch(path)
    assert [(i.request.prompt, i.request.name) for i in batch.items] == [("a café table", "Table")]
    assert batch.notes == []


def test_powershell_utf16_txt(tmp_path: Path) -> None:
    path = tmp_path / "props.txt"
    # PowerShell 5.1's `Out-File` and `>`: UTF-16 LE with a byte-order mark, CRLF line ends.
    path.write_bytes("\r\n".join(PROMPTS).encode("utf-16"))
    batch = read_batch(path)
    assert [item.request.prompt for item in batch.items] == PROMPTS
    assert batch.notes == []
    path.write_bytes(utf16_be_with_bom("\n".join(PROMPTS)))
    assert [item.request.prompt for item in read_batch(path).items] == PROMPTS


def utf16_be_with_bom(text: str) -> bytes:
    return b"\xfe\xff" + text.encode("utf-16-be")


@pytest.mark.parametrize("written", ["concepts\\chair.png", "concepts/chair.png", ".\\concepts\\chair.png"])
def test_image_paths_with_either_separator(tmp_path: Path, written: str) -> None:
    (tmp_path / "concepts").mkdir()
    (tmp_path / "concepts" / "chair.png").write_bytes((CONCEPTS / "chair.png").read_bytes())
    path = tmp_path / "props.csv"
    path.write_text(f"image;resolution\n{written};1024\n", encoding="utf-8")
    batch = read_batch(path)
    assert batch.problems == []
    (item,) = batch.items
    assert Path(item.request.image_path) == (tmp_path / "concepts" / "chair.png").resolve()


def test_bytes_undefined_in_cp1252_never_refuse_the_file() -> None:
    decoded = decode_text(b"a chair \x81\x8d", "odd.txt")
    assert decoded.text.startswith("a chair") and decoded.note
