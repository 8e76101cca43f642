"""What the built zip carries stays readable and free of test scaffolding: no function over 60 lines,
no name made for tests (``_test_…``), no catalogue entry whose name is built at run time.

"Shipped" is every Python file outside the folders ``blender_manifest.toml`` leaves out of the zip;
the vendored third-party code (``api/vendor``) is shipped as its authors wrote it and not held to
Kiln's own habits.
"""

from __future__ import annotations

import ast
from pathlib import Path

from checkout import ROOT, shipped_python

MAX_LINES = 60


def long_functions(path: Path) -> list[str]:
    """Every function of ``path`` longer than ``MAX_LINES`` (its decorators and docstring counted)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - first + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - (first := min([node.lineno, *(d.lineno for d in node.decorator_list)])) + 1
        > MAX_LINES
    ]


def hooks_for_tests(path: Path) -> list[str]:
    """Names in ``path`` made for tests to reach into: ``_test_…`` (a global, an attribute, a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.id if isinstance(node, ast.Name) else node.name)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return sorted(f"{path.name}: {name}" for name in names if name.startswith(("_test_", "_for_test")))


def built_catalogue_names(path: Path) -> list[str]:
    """``getattr(words, <an f-string>)``: a catalogue entry named at run time hides from grep."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "getattr"
        and len(node.args) >= 2
        and ast.unparse(node.args[0]) in ("words", "catalogue")
        and isinstance(node.args[1], ast.JoinedStr)
    ]


def test_the_scan_sees_the_whole_addon() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in shipped_python()}
    assert {"__init__.py", "preferences.py", "api/jobs/engine.py", "helper_blender/main.py"} <= names
    assert not any(name.startswith(("tests/", "sandbox/", "bench/", "api/vendor/")) for name in names)


def test_no_shipped_function_is_over_60_lines() -> None:
    assert [found for path in shipped_python() for found in long_functions(path)] == []


def test_no_shipped_name_is_made_for_tests() -> None:
    assert [found for path in shipped_python() for found in hooks_for_tests(path)] == []


def test_every_catalogue_entry_is_named_where_it_is_used() -> None:
    assert [found for path in shipped_python() for found in built_catalogue_names(path)] == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    body = "\n".join(f"    x = {n}" for n in range(MAX_LINES))
    sample = tmp_path / "sample.py"
    sample.write_text(
        f"_test_poll_interval = None\n\n@decorated\ndef long():\n{body}\n\n"
        "def short():\n    return getattr(words, f'OPTION_{value}')\n",
        encoding="utf-8",
    )
    assert long_functions(sample) == ["sample.py:4 long (62 lines)"]
    assert hooks_for_tests(sample) == ["sample.py: _test_poll_interval"]
    assert built_catalogue_names(sample) == ["sample.py:67"]
