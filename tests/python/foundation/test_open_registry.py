"""Acceptance 2 and 3 of the open registry, read from the shipped code (the built zip's Python, and
the farm script, which starts jobs too): no module outside a service's own package names a service
id or a favoured service; the custom service's resolutions are written in its package only; one
function starts a job; no shipped file is over 500 lines but the words' catalogue."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from checkout import ROOT, shipped_python

from api.services import info, old_records_service, service_ids

#: Where the ids are written: the registering lines (one a service) and each service's own package.
REGISTRY = "api/services/__init__.py"
PACKAGES = tuple(f"api/services/{info(sid).client_module.split('.')[0]}/" for sid in service_ids())
CATALOGUE = "api/words/catalogue.py"
FARM = ROOT / "farm" / "kiln_farm.py"


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _outside_the_packages() -> list[Path]:
    return [
        path
        for path in [*shipped_python(), FARM]
        if not _relative(path).startswith(PACKAGES) and _relative(path) != REGISTRY
    ]


def _constants(path: Path) -> list[tuple[int, object]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)]


def test_no_module_outside_a_services_package_names_a_service_or_a_favoured_one() -> None:
    ids = set(service_ids())
    named = [
        f"{_relative(path)}:{line} {value!r}"
        for path in _outside_the_packages()
        if _relative(path) != CATALOGUE  # words: a brand's name may read as its id ("ComfyUI")
        for line, value in _constants(path)
        if isinstance(value, str) and value.strip().upper() in ids
    ]
    favoured = [
        f"{_relative(path)}:{number}"
        for path in [*_outside_the_packages(), ROOT / REGISTRY]
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bDEFAULT_SERVICE\b|\bSERVICE_IDS\b", text)
    ]
    assert named == [] and favoured == []


def test_the_custom_services_resolutions_are_written_in_its_package_only() -> None:
    capabilities = info(old_records_service()).capabilities
    resolutions = {tier.id for kind in ("text", "image") for tier in capabilities.known_tiers(kind)}
    resolutions = {value for value in resolutions if value.isdigit()}
    default = int(capabilities.default_tier("image"))
    written = [
        f"{_relative(path)}:{line} {value!r}"
        for path in _outside_the_packages()
        if _relative(path) != CATALOGUE  # the words say the numbers to the artist
        for line, value in _constants(path)
        if (isinstance(value, str) and value in resolutions) or (type(value) is int and value == default)
    ]
    assert resolutions and written == []


def test_one_function_starts_a_job_every_front_door_calls_it() -> None:
    """The operators, the agents' bridge, the batch runner and the farm script hand a request to
    ``session.starting.start_job``; nothing else asks the engine to record or submit a job."""
    calls = re.compile(r"engine(?:\([^)]*\))?\s*\.\s*(?:record|submit)\(")
    callers = {
        _relative(path)
        for path in [*shipped_python(), FARM]
        if calls.search(path.read_text(encoding="utf-8"))
    }
    assert callers == {"session/starting.py"}
    front_doors = ("session/launching.py", "session/image_jobs.py", "session/batches.py")
    front_doors += ("operators/blockout.py", "agents/actions.py", "farm/kiln_farm.py")
    for door in front_doors:
        assert "start_job(" in (ROOT / door).read_text(encoding="utf-8"), door


def test_no_shipped_file_is_over_500_lines_but_the_catalogue() -> None:
    long = {
        _relative(path): lines
        for path in shipped_python()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert set(long) <= {CATALOGUE}, long
