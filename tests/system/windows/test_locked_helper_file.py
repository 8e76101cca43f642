"""Windows' locked files: the helper Blender's .blend cannot be put in place (a child Blender runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locked_files import lock, retry_quickly, run

from api.isolation import module_helper_command
from api.jobs import JobEngine, JobState, ServiceConfig


def test_the_helpers_file_locked_for_good_never_fails_a_downloaded_mesh(
    sandbox: Any, sandbox_key: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """The helper read the mesh; only its .blend could not be put in place: the job imports in place."""
    retry_quickly(monkeypatch)
    refused = lock(monkeypatch, "replace", lambda p: p.suffix == ".blend", times=10_000)
    engine = JobEngine(tmp_path / "state", workers=1)
    command = module_helper_command()
    engine.start(
        ServiceConfig(
            base_url=sandbox.base_url, api_key=sandbox_key, poll_interval=0.2, helper_command=command
        )
    )
    try:
        done = run(engine)
        assert refused, "the helper's .blend rename was tried"
        assert done.state is JobState.READY and not done.error
        assert done.blend_path == "" and Path(done.mesh_path).is_file()  # imported in place instead
    finally:
        engine.shutdown()
