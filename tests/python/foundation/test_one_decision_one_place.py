"""Decisions the Blender side makes often are made in one place each, read from the source.

Blocking versus interactive is ``session.blocking.blocks``; an operator refuses through
``session.messenger.refuse`` (one prefix, one level, one result); the text request and the
reading of the "AUTO" resolution are ``session.job_requests``. A second copy fails here, so a
new operator or panel cannot quietly grow its own.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkout import ROOT, shipped_python

#: The Blender-side code (api/ never imports bpy).
BLENDER_SIDE = [
    *ROOT.glob("*.py"),
    *(path for room in ("session", "agents", "operators", "panels") for path in (ROOT / room).rglob("*.py")),
]

#: Where ``bpy.app.background`` may be read, and what it means there.
BACKGROUND_READERS = {
    "session/blocking.py": "blocking versus interactive: the one function every operator asks",
    "session/messenger.py": "no status bar without a window: sentences go to the log",
    "dependencies.py": "the same, for the one sentence said before any operator is registered",
    "session/runtime.py": "how other Blenders' job lists name this one (a background Blender)",
    "session/placement.py": "no undo history to push a step to without a window",
}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _files_saying(pattern: str) -> dict[str, int]:
    found = {}
    for path in BLENDER_SIDE:
        count = len(re.findall(pattern, path.read_text(encoding="utf-8")))
        if count:
            found[_relative(path)] = count
    return found


def test_the_background_flag_is_read_only_where_it_means_something_else_than_blocking() -> None:
    readers = _files_saying(r"bpy\.app\.background")
    assert set(readers) <= set(BACKGROUND_READERS), sorted(set(readers) - set(BACKGROUND_READERS))
    assert readers["session/blocking.py"] == 1


def test_every_refusal_goes_through_one_helper() -> None:
    assert _files_saying(r"report\(\s*\{\s*[\"']ERROR[\"']\s*\}") == {"session/messenger.py": 1}


def test_the_service_default_resolution_is_read_in_one_place() -> None:
    assert _files_saying(r"==\s*[\"']AUTO[\"']|==\s*AUTO\b") == {"session/job_requests.py": 1}


def test_the_panel_builds_its_request_with_the_operators_builder() -> None:
    """The "Already generated" offer must be about the request Generate sends."""
    assert {name for name in _files_saying(r"JobRequest\(") if name.startswith("panels/")} == set()


def test_the_environment_names_each_services_key_and_address_in_its_own_package() -> None:
    """Each service's variables are constants of that service (its ``ServiceInfo``); where a key and
    an address come from is decided once, by ``api.features.service_access.credentials``, which reads them."""
    from api.services import all_services

    for service in all_services():
        for name in filter(None, (service.key_env, service.base_url_env)):  # "": a server that takes no key
            found = {
                path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8").count(f'"{name}"')
                for path in shipped_python()
                if f'"{name}"' in path.read_text(encoding="utf-8")
            }
            package = f"api/services/{service.client_module.split('.')[0]}/__init__.py"
            assert found == {package: 1}, (name, found)


def test_the_environment_names_the_poll_interval_in_one_place() -> None:
    found = {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8").count("KILN_POLL_INTERVAL")
        for path in shipped_python()
        if "KILN_POLL_INTERVAL" in path.read_text(encoding="utf-8")
    }
    assert found == {"api/features/service_access.py": 1}


def test_only_the_pump_and_the_main_thread_module_register_timers() -> None:
    found = {
        path.relative_to(ROOT).as_posix(): len(
            re.findall(r"timers\.register\(", path.read_text(encoding="utf-8"))
        )
        for path in shipped_python()
        if "timers.register(" in path.read_text(encoding="utf-8")
    }
    assert found == {"session/watcher.py": 1, "main_thread.py": 2}
