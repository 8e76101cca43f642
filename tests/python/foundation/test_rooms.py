"""Rooms by role: the operators' room holds operators only, and the helper's room runs without tricks.

Read from the source with ``ast``: a module of ``operators/`` defines at least one class with a
``bl_idname`` of Kiln's (``kiln.…``), and nothing else that another room imports from it; the code
that runs inside the helper Blender imports the add-on the add-on's way (relative imports), with
one entry point that sets up the path, and no module loaded from a file or an ImportError fallback.
"""

from __future__ import annotations

import ast
from pathlib import Path

from checkout import ROOT, shipped_python


def operator_ids(path: Path) -> list[str]:
    """The ``bl_idname`` of every class a module defines that says it is one of Kiln's operators."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            if (
                isinstance(statement, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "bl_idname" for t in statement.targets)
                and isinstance(statement.value, ast.Constant)
                and str(statement.value.value).startswith("kiln.")
            ):
                found.append(str(statement.value.value))
    return found


def test_every_module_of_the_operators_room_defines_operators() -> None:
    modules = [p for p in sorted((ROOT / "operators").glob("*.py")) if p.name != "__init__.py"]
    assert modules
    assert [p.name for p in modules if not operator_ids(p)] == []


def test_no_other_room_defines_kiln_operators() -> None:
    """An operator found elsewhere would leave a newcomer looking in the wrong room."""
    elsewhere = [
        str(p.relative_to(ROOT))
        for room in ("session", "agents", "panels", "helper_blender", "finishing")
        for p in sorted((ROOT / room).rglob("*.py"))
        if operator_ids(p)
    ]
    elsewhere += [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("*.py")) if operator_ids(p)]
    assert elsewhere == []


def test_the_check_sees_an_operator_and_its_absence(tmp_path: Path) -> None:
    with_one = tmp_path / "a.py"
    with_one.write_text('class KILN_OT_x:\n    bl_idname = "kiln.x"\n', encoding="utf-8")
    without = tmp_path / "b.py"
    without.write_text("def helper():\n    return 1\n", encoding="utf-8")
    assert operator_ids(with_one) == ["kiln.x"] and operator_ids(without) == []


def _tricks(path: Path) -> list[str]:
    """What a helper module does to load code other than by an ordinary import statement."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        text = ast.unparse(node) if isinstance(node, ast.Call) else ""
        if "spec_from_file_location" in text or "module_from_spec" in text or "exec_module" in text:
            found.append(f"{path.name}: {text[:60]}")
        if "sys.path" in text and path.name != "main.py":
            found.append(f"{path.name}: changes sys.path")
        if isinstance(node, ast.Try) and _imports_kiln(node.body) and _catches_import_error(node):
            found.append(f"{path.name}: an ImportError fallback")
    return found


def _imports_kiln(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.level for s in body for n in ast.walk(s))


def _catches_import_error(node: ast.Try) -> bool:
    return any("ImportError" in ast.unparse(h.type) for h in node.handlers if h.type is not None)


def test_the_helper_room_has_one_entry_point_and_loads_nothing_by_tricks() -> None:
    room = ROOT / "helper_blender"
    assert [p.name for p in room.glob("*.py") if 'if __name__ == "__main__"' in p.read_text()] == ["main.py"]
    assert [trick for p in sorted(room.glob("*.py")) for trick in _tricks(p)] == []


def test_the_trick_check_sees_a_fallback(tmp_path: Path) -> None:
    module = tmp_path / "x.py"
    module.write_text("try:\n    from . import a\nexcept ImportError:\n    a = None\n", encoding="utf-8")
    assert _tricks(module) == ["x.py: an ImportError fallback"]


def _packages() -> list[Path]:
    return [path.parent for path in shipped_python() if path.name == "__init__.py" and path.parent != ROOT]


def unlisted(package: Path) -> list[str]:
    """The modules and sub-rooms of a room that its docstring does not name (as ``name``)."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    members = [p.stem for p in package.glob("*.py") if p.name != "__init__.py"]
    members += [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    return sorted(
        name for name in members if not any(f"``{name}{end}``" in docstring for end in ("", "/", ".py"))
    )


def test_every_room_lists_its_modules_in_its_docstring() -> None:
    missing = {str(p.relative_to(ROOT)): unlisted(p) for p in _packages()}
    assert {room: names for room, names in missing.items() if names} == {}


def test_the_listing_check_sees_a_missing_module(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text('"""Holds ``a``."""\n', encoding="utf-8")
    (tmp_path / "a.py").write_text("", encoding="utf-8")
    (tmp_path / "b.py").write_text("", encoding="utf-8")
    assert unlisted(tmp_path) == ["b"]
