"""Which Blender imports a mesh: the warm helper (the default) or the artist's own, and why.

Every mesh from the network is untrusted, so by default a helper Blender parses it and the
artist's Blender only appends the .blend it writes. The artist may choose "Import in this
Blender" (faster, less safe): then only meshes large enough to freeze the UI still go through
the helper. Where no helper can run (the ``bpy`` module has no Blender program to start),
Kiln imports in place and says so once per session.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Protocol

from ..words import Message

log = logging.getLogger(__name__)

#: The helper's entry point: ``..`` taken out but links kept (resolve() would follow a linked add-on folder
#: and lose the name it is mounted under, which the entry point imports it by).
SCRIPT = Path(os.path.abspath(__file__)).parents[2] / "helper_blender" / "main.py"  # noqa: PTH100
#: Why no helper runs under the ``bpy`` module (the details of ``MESHES_OPEN_HERE_NO_PROGRAM``).
NO_BLENDER_PROGRAM = (
    "Blender runs here as the bpy module, which has no Blender program to start a helper with"
)


class ImportSettings(Protocol):
    """What the decision reads from ``ServiceConfig`` (copied on the main thread)."""

    @property
    def helper_command(self) -> tuple[str, ...]: ...
    @property
    def import_in_place(self) -> bool: ...
    @property
    def large_import_triangles(self) -> int: ...
    @property
    def large_import_bytes(self) -> int: ...


def helper_command(blender_binary: str) -> tuple[str, ...]:
    """The helper's command line; empty where no helper Blender can run. Call on the main thread.

    ``blender_binary`` is ``bpy.app.binary_path``: empty for the bpy module, and never the
    Python interpreter itself (that would start Python, not Blender).
    """
    if not _is_blender_program(blender_binary):
        return ()
    return (blender_binary, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(SCRIPT))


def module_helper_command(python: str = sys.executable) -> tuple[str, ...]:
    """A helper for the bpy module: its own Python runs the script (which imports bpy).

    Not chosen on its own (the Python that loaded bpy may not be able to start again the same way);
    a pipeline, the tests and the bench pass it in ``ServiceConfig.helper_command``.
    """
    return (python, str(SCRIPT))


@functools.lru_cache(maxsize=4)
def _is_blender_program(path: str) -> bool:
    """Asked once per path: the preferences build the command on every watcher tick."""
    if not path or not Path(path).is_file() or not os.access(path, os.X_OK):
        return False
    pythons = {os.path.realpath(p) for p in (sys.executable, getattr(sys, "_base_executable", "")) if p}
    return os.path.realpath(path) not in pythons


def wants_helper(settings: ImportSettings, mesh: Path, triangles: int | None) -> bool:
    """Whether this mesh should go through the helper (it may still turn out that none can run)."""
    return not settings.import_in_place or is_large(settings, mesh, triangles)


def is_large(settings: ImportSettings, mesh: Path, triangles: int | None) -> bool:
    """Big enough to freeze the UI: more triangles than the threshold, or (unknown or small) a big file."""
    if triangles is not None and triangles > settings.large_import_triangles:
        return True
    try:
        return mesh.stat().st_size > settings.large_import_bytes
    except OSError:
        return False


class InPlaceNotice:
    """ "No helper can run, so meshes import in this Blender": logged and shown once per session.

    Workers record the sentence (``HelperUnavailable``'s); the main thread takes it once, after an
    in-place import.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._said: Message | None = None
        self._shown = False

    def record(self, said: Message) -> None:
        """A worker found no helper; the first sentence is logged (with why), and kept for the status bar."""
        with self._lock:
            if self._said is not None:
                return
            self._said = said
        log.warning("%s (%s)", said, said.details)

    def take(self) -> Message | None:
        """The sentence for the artist, the first time only; None after that or when all is well."""
        with self._lock:
            if self._said is None or self._shown:
                return None
            self._shown = True
            return self._said

    def reset(self) -> None:
        with self._lock:
            self._said, self._shown = None, False


in_place_notice = InPlaceNotice()
