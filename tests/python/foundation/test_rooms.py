"""Lower rooms never import higher ones: operators and the preferences stand below the panels."""

from __future__ import annotations

import ast
from pathlib import Path

from checkout import ROOT


def imported_rooms(path: Path) -> set[str]:
    """The add-on's top-level rooms a module imports, from its relative imports (all of Kiln's are)."""
    package = path.relative_to(ROOT).parent.parts
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = [*base, *(node.module or "").split(".")] if node.module else list(base)
            if target:
                rooms.add(target[0])
            elif node.module is None:
                rooms.update(alias.name for alias in node.names)
    return rooms


def test_operators_and_preferences_never_import_the_panels() -> None:
    modules = [*sorted((ROOT / "operators").glob("*.py")), ROOT / "preferences.py", ROOT / "drawing.py"]
    offenders = [str(m.relative_to(ROOT)) for m in modules if "panels" in imported_rooms(m)]
    assert offenders == []


def test_the_check_sees_a_panels_import() -> None:
    assert "panels" in imported_rooms(ROOT / "panels" / "generate.py")  # `from . import thumbnails`
    assert "operators" in imported_rooms(ROOT / "panels" / "jobs.py")
