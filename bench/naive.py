"""Row 7: the naive way, as the other add-ons do it: submit, poll, download and import, all on
the main thread, one job after the other. Blender is frozen for the whole of each job.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench import addon

JOBS = 2


def run(sandbox: Any, key: str, poll_interval: float) -> dict[str, float]:
    """Main-thread stall per job for the naive loop against ``sandbox`` (same speed as Kiln's run)."""
    import bpy

    client = addon.module("api.services.interface.client").Client(sandbox.base_url, key)
    completed = addon.module("api.http.models").TaskStatus.COMPLETED
    stalls = []
    with tempfile.TemporaryDirectory(prefix="kiln-bench-naive-") as tmp:
        for i in range(JOBS):
            start = time.perf_counter()
            task = client.submit_text(f"a red chair {i}")
            while task.status is not completed:
                time.sleep(poll_interval)
                task = client.get_task(task.id)
            assert task.result is not None
            glb = client.download(task.result.mesh_url, Path(tmp) / f"{task.id}.glb")
            bpy.ops.import_scene.gltf(filepath=str(glb))
            stalls.append(time.perf_counter() - start)
    client.close()
    bpy.ops.wm.read_homefile(use_empty=True)
    return {"jobs": float(JOBS), "stall_per_job_s": sum(stalls) / JOBS}
