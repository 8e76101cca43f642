"""Test harness: one isolated Blender (the bpy module) per test run, Kiln mounted from the working tree.

The tests are grouped by what they need: ``python/`` (no bpy at all: run once, with bpy refused),
``blender/`` (Kiln inside the bpy module: run on both Blenders), ``system/`` (several processes,
child Blenders among them: both Blenders) and ``window/`` (the Blender program with a window: once).
Helpers every group imports live in ``support/`` (on the path through ``pytest.ini``).

``BLENDER_USER_RESOURCES`` points at a fresh temp dir before anything imports bpy, so a run
never touches (or is touched by) the developer's own Blender. The working tree is mounted
as a local extension repository, so the add-on runs as ``bl_ext.kiln_dev.kiln`` exactly as an
installed extension would.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

_USER_RESOURCES = Path(tempfile.mkdtemp(prefix="kiln-blender-user-"))
os.environ["BLENDER_USER_RESOURCES"] = str(_USER_RESOURCES)
for _name in ("KILN_API_KEY", "KILN_BASE_URL"):
    os.environ.pop(_name, None)
#: Seconds between polls of the sandbox, as a developer sets it (artists get 2–3 s; a service on
#: another machine always does): the sandbox finishes a task in ~0.1 s. Child Blenders inherit it.
os.environ["KILN_POLL_INTERVAL"] = "0.2"
#: npm's glTF validator, installed by `make venv` into .node/ (the provenance tests run it).
_NODE_MODULES = Path(__file__).resolve().parent.parent / ".node" / "node_modules"
if _NODE_MODULES.is_dir():
    os.environ.setdefault("KILN_NODE_MODULES", str(_NODE_MODULES))

ADDON_MODULE = "bl_ext.kiln_dev.kiln"

pytest_plugins = ["sandbox.pytest_plugin", "key_watch"]


WINDOW_SUITE = Path(__file__).resolve().parent / "window"
PYTHON_SUITE = Path(__file__).resolve().parent / "python"


def _only_under(config: pytest.Config, *folders: Path) -> bool:
    """Whether every path the run was given lies in one of ``folders``."""
    paths = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return all(any(path.is_relative_to(folder) for folder in folders) for path in paths)


def _window_suite_only(config: pytest.Config) -> bool:
    return _only_under(config, WINDOW_SUITE)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The window suite runs on its own (``pytest tests/window``), not once per bpy venv."""
    if collection_path == WINDOW_SUITE and not _window_suite_only(config):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> str | None:
    if _only_under(config, WINDOW_SUITE, PYTHON_SUITE):
        return None  # no Blender in these runs (tests/python refuses bpy)
    import bpy

    return f"Blender {bpy.app.version_string} (bpy module from {Path(bpy.__file__).parents[4]})"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_USER_RESOURCES, ignore_errors=True)
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


_EXIT_STATUS = pytest.StashKey[int]()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Blender 4.2's bpy module can crash (SIGSEGV) as the test process ends: when its module object
    outlives Python's finalization, Blender never runs its own exit and its space types free Python
    classes after Python is gone (gdb: ``bpy_class_free`` ← ``SpaceType::~SpaceType`` in exit
    handlers; some runs of tests/blender/ui hit it, each test alone does not). The run is over and
    reported here, so a 4.2 process runs Python's exit functions itself and leaves with pytest's own
    status. Blender 4.3 and later exit normally and are left alone; Kiln's child Blenders exit normally
    on 4.2 too (tests/system checks their exit codes)."""
    bpy = sys.modules.get("bpy")
    if bpy is None or bpy.app.version >= (4, 3, 0) or _EXIT_STATUS not in config.stash:
        return
    import atexit

    logging.shutdown()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(config.stash[_EXIT_STATUS])


@pytest.fixture(scope="session")
def kiln(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The add-on enabled from the working tree (mounted as a local extension repository)."""
    import bpy
    from blender_scripts.harness import enable_kiln

    enable_kiln(tmp_path_factory.mktemp("extensions-repo"))
    # Everything Kiln logs, DEBUG included, passes the suite-wide key watch (tests/support/key_watch.py).
    logging.getLogger(ADDON_MODULE).setLevel(logging.DEBUG)
    yield sys.modules[ADDON_MODULE]
    if ADDON_MODULE in bpy.context.preferences.addons:
        bpy.ops.preferences.addon_disable(module=ADDON_MODULE)


@pytest.fixture
def blender(kiln: ModuleType) -> Iterator[Any]:
    """A fresh empty scene with online access on; yields ``bpy``."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.preferences.system.use_online_access = True
    yield bpy
    bpy.context.preferences.system.use_online_access = True


@pytest.fixture
def offline(blender: Any) -> Iterator[Any]:
    """Blender's online access turned off (as it is by default after install)."""
    blender.context.preferences.system.use_online_access = False
    yield blender


@pytest.fixture
def kiln_module(kiln: ModuleType) -> Any:
    """A submodule of the enabled add-on, e.g. ``kiln_module("session.runtime")``."""
    import importlib

    return lambda name: importlib.import_module(f"{ADDON_MODULE}.{name}")


@pytest.fixture
def fresh_jobs(kiln: ModuleType) -> Iterator[Path]:
    """An empty job list and cache; the engine is stopped before and after."""
    import bpy

    runtime = sys.modules[f"{ADDON_MODULE}.session.runtime"]
    preferences = sys.modules[f"{ADDON_MODULE}.preferences"]
    runtime.shutdown()
    preferences.finish_key_saves()
    state_dir = Path(bpy.utils.extension_path_user(ADDON_MODULE, create=True))
    _empty(state_dir)
    yield state_dir
    runtime.shutdown()
    preferences.finish_key_saves()
    _empty(state_dir)


def _empty(folder: Path) -> None:
    for child in folder.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()


@pytest.fixture
def service(
    blender: Any, fresh_jobs: Path, sandbox: Any, sandbox_key: str, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """Kiln pointed at a running sandbox (through the environment, as a pipeline would), with the
    service a fresh Kiln offers chosen (a test before may have chosen another and not put it back)."""
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("KILN_API_KEY", sandbox_key)
    services = sys.modules[f"{ADDON_MODULE}.api.services"]
    sys.modules[f"{ADDON_MODULE}.preferences"].get().service = services.first_service()
    return sandbox
