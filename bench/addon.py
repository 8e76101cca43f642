"""Kiln enabled from the working tree inside this process, isolated from the developer's Blender.

``isolate()`` must run before anything imports bpy: Blender reads its user folder at import.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPO_MODULE = "kiln_dev"
ADDON_MODULE = f"bl_ext.{REPO_MODULE}.kiln"


def isolate() -> Path:
    """A throwaway Blender user folder, and no key or URL leaking in from the environment."""
    folder = Path(tempfile.mkdtemp(prefix="kiln-bench-user-"))
    os.environ["BLENDER_USER_RESOURCES"] = str(folder)
    for name in ("KILN_API_KEY", "KILN_BASE_URL"):
        os.environ.pop(name, None)
    return folder


def mount(user_folder: Path) -> None:
    """Make the working tree a local extension repository (as the tests do); not enabled yet."""
    import bpy

    repo = user_folder / "extensions-repo"
    repo.mkdir()
    (repo / "kiln").symlink_to(ROOT, target_is_directory=True)
    bpy.context.preferences.extensions.repos.new(
        name="Kiln (working tree)", module=REPO_MODULE, custom_directory=str(repo), source="USER"
    )


EMPTY_EXTENSION = "kiln_bench_empty"


def warm_extension_machinery(user_folder: Path) -> None:
    """Enable an empty extension beside Kiln: Blender loads its extension machinery for the first
    extension it enables, a cost every artist's Blender with any extension pays. Its manifest is
    Kiln's, wheels and all, so Blender unpacks Kiln's Pillow wheel here once, as installing Kiln does
    for an artist (it stays enabled, keeping the wheel): the rows count Kiln's start, not that."""
    import bpy

    empty = user_folder / "extensions-repo" / EMPTY_EXTENSION
    empty.mkdir()
    (empty / "__init__.py").write_text("def register():\n    pass\n\n\ndef unregister():\n    pass\n")
    (empty / "wheels").symlink_to(ROOT / "wheels", target_is_directory=True)
    manifest = (ROOT / "blender_manifest.toml").read_text(encoding="utf-8")
    (empty / "blender_manifest.toml").write_text(
        manifest.replace('id = "kiln"', f'id = "{EMPTY_EXTENSION}"'), encoding="utf-8"
    )
    module_name = f"bl_ext.{REPO_MODULE}.{EMPTY_EXTENSION}"
    bpy.ops.preferences.addon_enable(module=module_name)


@contextmanager
def enabled_alone() -> Iterator[Path]:
    """For one module's rows (``python -m bench.imports``): Kiln enabled from the working tree in a
    throwaway user folder, and a scratch folder; both removed afterwards."""
    user_dir = isolate()
    try:
        mount(user_dir)
        enable()
        with tempfile.TemporaryDirectory(prefix="kiln-bench-") as work:
            yield Path(work)
    finally:
        shutil.rmtree(user_dir, ignore_errors=True)


def enable(*, first_tick: bool = True) -> None:
    """Enable Kiln; with ``first_tick``, also run what it left for Blender's first timer tick (its
    deferred calls and the watcher's first beat: the bpy module has no event loop), which in an
    artist's Blender runs at start, long before the first click."""
    import bpy

    bpy.ops.preferences.addon_enable(module=ADDON_MODULE)
    bpy.context.preferences.system.use_online_access = True
    if first_tick:
        for call in list(module("main_thread")._soon.values()):
            call()
        module("session.watcher").beat()


def preferences() -> Any:
    import bpy

    return bpy.context.preferences.addons[ADDON_MODULE].preferences


def module(name: str) -> Any:
    """A submodule of the enabled add-on, e.g. ``module("session.watcher")``."""
    return importlib.import_module(f"{ADDON_MODULE}.{name}")


def reset_jobs() -> None:
    """Stop Kiln's engine and empty its job list and cache, so a phase starts from nothing."""
    import bpy

    module("session.runtime").shutdown()
    folder = Path(bpy.utils.extension_path_user(ADDON_MODULE, create=True))
    for child in folder.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()


def use_service(base_url: str, key: str) -> None:
    """Point Kiln at a service the way a pipeline does: through the environment."""
    os.environ["KILN_BASE_URL"] = base_url
    os.environ["KILN_API_KEY"] = key
