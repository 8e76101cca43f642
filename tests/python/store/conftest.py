"""Engines on a state folder of the test's choosing, and small file systems to make disks misbehave."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.jobs import JobEngine, ServiceConfig


@pytest.fixture
def make_engine(sandbox: Any, sandbox_key: str) -> Iterator[Any]:
    engines: list[JobEngine] = []

    def make(state_dir: Path, **overrides: Any) -> JobEngine:
        values = {"poll_interval": 0.2, "timeout_seconds": 60.0, **overrides}
        engine = JobEngine(state_dir, workers=2)
        engine.start(ServiceConfig(base_url=sandbox.base_url, api_key=sandbox_key, **values))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.shutdown()
    assert not [t for t in threading.enumerate() if t.name.startswith(("kiln-worker", "kiln-store"))]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Any]:
    """``mount(size)`` → a fresh tmpfs of that size; ``read_only(folder)`` remounts it read-only."""
    mounted: list[Path] = []

    def mount(size: str = "1m") -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        try:
            done = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
            )
            why = done.stderr.decode().strip() if done.returncode else ""
        except OSError as exc:
            why = str(exc)
        if why:
            pytest.skip(f"this machine does not let the tests mount a small file system ({why})")
        mounted.append(folder)
        return folder

    def read_only(folder: Path) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    yield type("SmallDisk", (), {"mount": staticmethod(mount), "read_only": staticmethod(read_only)})
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def wait_synced() -> Any:
    """Until the store thread has read the whole list once (the history is read off the UI thread)."""

    def wait(engine: JobEngine) -> None:
        writer = engine._writer
        assert writer is not None and writer.synced.wait(30)

    return wait
