"""What can go wrong in the helper Blender, each with a sentence for the job.

The artist never reads "helper": a sentence says a separate background Blender opens the mesh, or
simply what happened to it. What the helper said (its last output, its exit code) is the details.
"""

from __future__ import annotations

from typing import Any

from ..errors import KilnError
from ..words import Entry, Message
from ..words import catalogue as words


class IsolationError(KilnError):
    """The helper could not turn this mesh into a .blend; the job fails with ``message``.

    ``detail`` (the same as ``details``) is what the helper said (its last output), for the log and
    Copy Details only.
    """

    def __init__(self, said: Entry | Message, /, *, details: str = "", **values: Any) -> None:
        super().__init__(said, details=details, **values)

    @property
    def detail(self) -> str:
        return self.details


class HelperUnavailable(IsolationError):
    """The helper did not start (no program, or it died before taking a mesh): import in place instead.

    Its sentence is what the artist is told once: meshes open in this Blender, and why.
    """

    def __init__(self, said: Entry = words.MESHES_OPEN_HERE, /, *, details: str) -> None:
        super().__init__(said, details=details)


class HelperCrashed(IsolationError):
    """The helper stopped while it read the mesh."""

    def __init__(self, *, details: str) -> None:
        super().__init__(words.MESH_CRASHED_IMPORTER, details=details)


class HelperOutOfMemory(IsolationError):
    """The helper went over its memory ceiling."""

    def __init__(self, ceiling: int, details: str = "") -> None:
        super().__init__(words.MESH_OUT_OF_MEMORY, details=details, gigabytes=ceiling / 1024**3)


class HelperTimedOut(IsolationError):
    """The helper took longer than its time limit on one mesh."""

    def __init__(self, seconds: float) -> None:
        super().__init__(words.MESH_OPEN_TIMED_OUT, seconds=seconds)


class MeshRejected(IsolationError):
    """Blender's importer refused the file (a Python error, not a crash)."""

    def __init__(self, *, details: str) -> None:
        super().__init__(words.MESH_UNREADABLE, details=details)
