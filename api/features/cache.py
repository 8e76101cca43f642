"""The download cache on disk: how big it is, and emptying it without pulling files from under a job."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import fs

if TYPE_CHECKING:
    from ..jobs import Job

log = logging.getLogger(__name__)


def folder_size(folder: Path) -> int:
    """Total bytes of the files directly in ``folder`` (0 when it does not exist)."""
    try:
        return sum(entry.stat().st_size for entry in folder.iterdir() if entry.is_file())
    except OSError:
        return 0


def _protected(jobs: Iterable[Job]) -> set[str]:
    """Cache names (Kiln's job ids) whose files are still needed: jobs at work, or not yet imported."""
    # Loaded by the first clearing, not when the preferences (which keep a SizeCache) register.
    from ..jobs import JobState
    from ..jobs.model import cache_name

    return {cache_name(job) for job in jobs if job.state.is_active or job.state is JobState.READY}


def clear_cache(folder: Path, jobs: Iterable[Job]) -> tuple[int, int]:
    """Delete cached meshes and previews except those of unfinished jobs; returns (files, bytes) removed."""
    keep = _protected(jobs)
    removed = freed = 0
    if not folder.is_dir():
        return 0, 0
    for entry in folder.iterdir():
        # "<job>.glb", "<job>.png", "<job>.blend" and the "<job>.glb.part" of a running download.
        if not entry.is_file() or entry.name.split(".", 1)[0] in keep:
            continue
        try:
            size = entry.stat().st_size
        except OSError:
            continue
        if not fs.discard(entry):
            continue
        removed, freed = removed + 1, freed + size
    return removed, freed


class SizeCache:
    """Remembers a folder's size for a few seconds: preference panels redraw on every mouse move."""

    def __init__(self, ttl: float = 5.0) -> None:
        self.ttl = ttl
        self._value: tuple[Path, float, int] | None = None

    def size(self, folder: Path) -> int:
        now = time.monotonic()
        if self._value is None or self._value[0] != folder or now - self._value[1] > self.ttl:
            self._value = (folder, now, folder_size(folder))
        return self._value[2]

    def forget(self) -> None:
        self._value = None
