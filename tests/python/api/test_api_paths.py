"""One .blend, many spellings: auto-import must know them all (Windows and macOS stood in for on Linux)."""

from __future__ import annotations

import sys
from pathlib import Path

from api.paths import file_identity


def test_windows_ignores_case_and_slash_direction() -> None:
    spellings = [
        r"c:\Art\Shot 01.blend",
        r"C:\art\shot 01.BLEND",
        "C:/ART/Shot 01.blend",
        r"C:\Art\.\x\..\Shot 01.blend",
    ]
    assert len({file_identity(p, "win32") for p in spellings}) == 1
    assert file_identity(r"C:\Art\shot.blend", "win32") != file_identity(r"C:\Art\shot2.blend", "win32")


def test_macos_ignores_case() -> None:
    assert file_identity("/Users/ana/Shot.blend", "darwin") == file_identity(
        "/users/ANA/shot.blend", "darwin"
    )


def test_linux_keeps_case_and_resolves_links(tmp_path: Path) -> None:
    real = tmp_path / "project" / "shot.blend"
    real.parent.mkdir()
    real.write_bytes(b"BLENDER")
    (tmp_path / "link").symlink_to(real.parent, target_is_directory=True)
    if sys.platform.startswith("linux"):
        assert file_identity(str(tmp_path / "link" / "shot.blend")) == file_identity(str(real))
        assert file_identity(str(real)) != file_identity(str(real).upper())
