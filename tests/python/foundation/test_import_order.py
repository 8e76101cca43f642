"""The add-on's imports go one way: each room imports only rooms below it, and nothing imports in a circle.

Every module's imports are read with ``ast`` (so deferred imports inside functions, ``TYPE_CHECKING``
blocks and relative names handed to ``importlib.import_module`` count too), and two rules are
checked over the whole add-on: no import cycle (Tarjan's strongly connected components), and no
import from a lower room into a higher one (``ROOMS``, bottom first).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout import ROOT, python_files

#: Top-level folders of the repository that never ship (the manifest's paths_exclude_pattern).
DEV_ONLY = {"tests", "sandbox", "bench", "examples", "fixtures", "tools", "farm", "docs", "wheels", "dist"}

#: The rooms of the add-on, bottom first, as ``api/__init__.py`` states them. A module belongs to the
#: room whose longest prefix names it; a module in no room fails the test (say where it belongs). A
#: room may import its own modules and any room listed before it, never one listed after it.
ROOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "the bottom of api/",
        ("api", "api.words", "api.errors", "api.paths", "api.fs", "api.version", "api.lazy", "api.vendor"),
    ),
    ("checks", ("api.checks",)),
    ("the HTTP under every service", ("api.http",)),
    ("the services", ("api.services",)),
    ("the helper Blender", ("api.isolation",)),
    ("the job engine", ("api.jobs",)),
    ("features", ("api.features",)),
    ("agents", ("api.agents",)),
    ("contract names kept for outside checks", ("api.client", "api.glb")),
    ("what Blender does to a fresh result, in either Blender", ("finishing",)),
    ("what runs inside the helper Blender", ("helper_blender",)),
    (
        "shared Blender-side helpers",
        ("registration", "main_thread", "language", "dependencies", "drawing", "ui_text"),
    ),
    ("the option table and its choices", ("service_choices", "options")),
    ("preferences", ("preferences",)),
    ("the Blender side of a running Kiln", ("session",)),
    ("the Blender side of agents", ("agents",)),
    ("operators", ("operators",)),
    ("panels", ("panels",)),
    ("registration of the rooms", ("",)),
)

_RELATIVE_NAME = re.compile(r"\.+[A-Za-z_][\w.]*")


@dataclass(frozen=True)
class Module:
    path: Path
    is_package: bool


def modules_of(root: Path, skip: Iterable[str] = ()) -> dict[str, Module]:
    """Every module under ``root`` by dotted name relative to it (the root package itself is "")."""
    found = {}
    for path in python_files(root, frozenset(skip)):
        parts = path.relative_to(root).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = Module(path, is_package)
    return found


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


def imports_of(name: str, module: Module, known: Mapping[str, Module]) -> set[str]:
    """The add-on modules ``name`` imports, wherever in the file (all of Kiln's imports are relative)."""
    package = name.split(".") if module.is_package else name.split(".")[:-1]
    package = [part for part in package if part]
    tree = ast.parse(module.path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def resolve(level: int, dotted: str, names: Iterable[str]) -> None:
        if level - 1 > len(package):
            raise AssertionError(f"{module.path}: a relative import climbs above the add-on")
        base = _join(*package[: len(package) - (level - 1)], dotted)
        for imported in names:
            sub = _join(base, imported)
            found.add(sub if sub in known else base)

    uses_import_module = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            resolve(node.level, node.module or "", [alias.name for alias in node.names])
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
            uses_import_module = True
    if uses_import_module:  # relative names handed to importlib.import_module(…, __name__)
        for text in (
            n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ):
            dots = len(text) - len(text.lstrip("."))
            if (
                _RELATIVE_NAME.fullmatch(text)
                and _join(*package[: len(package) - (dots - 1)], text[dots:]) in known
            ):
                resolve(dots, text[dots:], [""])  # only strings naming a module: ".py" is no import
    found.discard(name)
    return found


def all_imports(root: Path, skip: Iterable[str] = ()) -> dict[str, set[str]]:
    """Every module's relative imports resolved, including names no module answers to."""
    known = modules_of(root, skip)
    return {name: imports_of(name, module, known) for name, module in known.items()}


def import_graph(root: Path, skip: Iterable[str] = ()) -> dict[str, set[str]]:
    imports = all_imports(root, skip)
    return {name: targets & imports.keys() for name, targets in imports.items()}


def missing_imports(imports: Mapping[str, set[str]]) -> list[str]:
    """Sentences for relative imports of a module the add-on does not have (left behind by a move)."""
    return [
        f"{name} imports {target}, which is not in the add-on"
        for name in sorted(imports)
        for target in sorted(imports[name] - set(imports))
    ]


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import one another in a circle (Tarjan's SCCs, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph[node]:
                    found.append(sorted(group))
    return found


def room_of(name: str, rooms: tuple[tuple[str, tuple[str, ...]], ...]) -> int | None:
    """The index of the room whose longest prefix names ``name``, or None."""
    best: tuple[int, int] | None = None
    for number, (_, prefixes) in enumerate(rooms):
        for prefix in prefixes:
            inside = name == prefix or (prefix != "" and name.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[1]):
                best = (number, len(prefix))
    return None if best is None else best[0]


def upward_imports(
    graph: Mapping[str, set[str]], rooms: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[str]:
    """Sentences for every import of a higher room from a lower one, and for modules in no room."""
    problems = []
    for name in sorted(graph):
        mine = room_of(name, rooms)
        if mine is None:
            problems.append(f"{name or '(the add-on package)'} is in no room: add it to ROOMS")
            continue
        for target in sorted(graph[name]):
            theirs = room_of(target, rooms)
            if theirs is not None and theirs > mine:
                problems.append(
                    f"{name} ({rooms[mine][0]}) imports {target} ({rooms[theirs][0]}), a room above it"
                )
    return problems


# --------------------------------------------------------------------------- the add-on


@pytest.fixture(scope="module")
def addon_graph() -> dict[str, set[str]]:
    return import_graph(ROOT, skip=DEV_ONLY)


def test_the_graph_sees_the_whole_addon_and_its_deferred_imports(addon_graph: dict[str, set[str]]) -> None:
    assert {
        "",
        "api.http.client",
        "api.jobs.engine",
        "session.watcher",
        "panels.jobs",
        "preferences",
    } <= set(addon_graph)
    assert not any(name.split(".")[0] in DEV_ONLY for name in addon_graph)
    assert "api.services.base" in addon_graph["api.jobs.sending"]  # under TYPE_CHECKING
    assert "api.jobs.engine" in addon_graph["api.jobs"]  # handed to importlib.import_module
    assert "api.http.retrying" in addon_graph["api.jobs"]  # the same, two levels up


def test_no_import_cycle_anywhere_in_the_addon(addon_graph: dict[str, set[str]]) -> None:
    assert cycles(addon_graph) == []


def test_every_room_names_modules_that_exist(addon_graph: dict[str, set[str]]) -> None:
    """A room left behind by a move would let its old name slip by unchecked."""
    stale = [p for _, prefixes in ROOMS for p in prefixes if p not in addon_graph]
    assert stale == []


def test_every_import_names_a_module_of_the_addon() -> None:
    assert missing_imports(all_imports(ROOT, skip=DEV_ONLY)) == []


def test_no_room_imports_a_room_above_it(addon_graph: dict[str, set[str]]) -> None:
    assert upward_imports(addon_graph, ROOMS) == []


def test_only_the_helper_room_imports_the_helper_room(addon_graph: dict[str, set[str]]) -> None:
    """The artist's Blender starts the helper by its entry point's path (``api.isolation.route``) and
    imports none of it: what both Blenders run is ``finishing``, what the artist's reads is its own."""
    inside = [name for name in addon_graph if name == "helper_blender" or name.startswith("helper_blender.")]
    assert inside
    importers = {
        name: sorted(target for target in targets if target in inside)
        for name, targets in addon_graph.items()
        if name not in inside
    }
    assert {name: found for name, found in importers.items() if found} == {}


# --------------------------------------------------------------------------- the checks themselves

SMALL_ROOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("low", ("low",)),
    ("high", ("high",)),
    ("top", ("",)),
)


def small_package(root: Path, files: Mapping[str, str]) -> Path:
    base = {
        "__init__.py": "from . import high\n",
        "low/__init__.py": "",
        "low/a.py": "from . import b\n",
        "low/b.py": "X = 1\n",
        "high/__init__.py": "",
        "high/c.py": "from ..low import a\nfrom ..low.b import X\n",
    }
    for name, text in {**base, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_clean_package_passes(tmp_path: Path) -> None:
    graph = import_graph(small_package(tmp_path, {}))
    assert graph["high.c"] == {"low.a", "low.b"} and graph[""] == {"high"}
    assert cycles(graph) == [] and upward_imports(graph, SMALL_ROOMS) == []


def test_an_upward_import_fails_even_when_deferred(tmp_path: Path) -> None:
    graph = import_graph(small_package(tmp_path, {"low/b.py": "def f():\n    from ..high import c\n"}))
    assert upward_imports(graph, SMALL_ROOMS) == ["low.b (low) imports high.c (high), a room above it"]


def test_a_circular_import_fails_even_when_deferred(tmp_path: Path) -> None:
    graph = import_graph(small_package(tmp_path, {"low/b.py": "def f():\n    from . import a\n"}))
    assert cycles(graph) == [["low.a", "low.b"]]


def test_a_cycle_through_import_module_is_seen(tmp_path: Path) -> None:
    lazy = 'import importlib\n\ndef load():\n    return importlib.import_module(".a", __package__)\n'
    graph = import_graph(small_package(tmp_path, {"low/b.py": lazy}))
    assert cycles(graph) == [["low.a", "low.b"]]


def test_an_import_left_behind_by_a_move_fails(tmp_path: Path) -> None:
    imports = all_imports(small_package(tmp_path, {"high/c.py": "from ..low.gone import X\n"}))
    assert missing_imports(imports) == ["high.c imports low.gone, which is not in the add-on"]


def test_a_module_in_no_room_fails(tmp_path: Path) -> None:
    graph = import_graph(small_package(tmp_path, {"loose.py": ""}))
    assert upward_imports(graph, SMALL_ROOMS) == ["loose is in no room: add it to ROOMS"]
