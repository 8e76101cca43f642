"""Import a finished job into the scene the way the watcher does, for tests that call the step alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def job_importer(kiln_module: Callable[[str], Any]) -> Callable[[Any, Any], list[str]]:
    """``session.scene_import.import_job``, the job's options read as ``watcher.import_one`` reads them."""
    import_job = kiln_module("session.scene_import").import_job
    game_options = kiln_module("api.features.quality.options").GameOptions

    def run(context: Any, job: Any) -> list[str]:
        return import_job(context, job, game_options.from_text(job.request.game))

    return run
