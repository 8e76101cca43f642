"""Windows' locked files, stood in for on Linux: ``Path`` methods that refuse as Windows does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api import fs
from api.jobs import JobEngine, JobRequest

TEXT = JobRequest(kind="text", prompt="a red chair")
LOCKED = "The process cannot access the file because it is being used by another process"


def retry_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kiln's waits for a lock to pass, shortened to 10 ms each."""
    monkeypatch.setattr(fs, "RETRY_DELAYS", (0.01,) * len(fs.RETRY_DELAYS))


def lock(
    monkeypatch: pytest.MonkeyPatch, method: str, matches: Callable[[Path], bool], times: int
) -> list[Path]:
    """Make ``Path.<method>`` refuse (PermissionError) the first ``times`` calls on matching paths."""
    refused: list[Path] = []
    real = getattr(Path, method)

    def locked(self: Path, *args: Any, **kwargs: Any) -> Any:
        target = Path(args[0]) if method == "replace" else self
        if matches(target) and len(refused) < times:
            refused.append(target)
            raise PermissionError(13, LOCKED, str(target))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, method, locked)
    return refused


def run(engine: JobEngine, request: JobRequest = TEXT) -> Any:
    job = engine.submit(request, origin="test")
    assert engine.wait([job.id], timeout=60)
    return engine.get(job.id)
