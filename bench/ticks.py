"""Row 1: the watcher's tick on the main thread with 1, 10 and 100 jobs in flight (imports excluded).

The sandbox runs so slowly that no job finishes while we measure, so every tick is pure
bookkeeping: drain the workers' events, look for a finished job, tag the Sidebar. Ticks come
faster than Blender's 0.25 s timer to get enough samples; workers poll at the real interval.
"""

from __future__ import annotations

import time
from typing import Any

from bench import addon
from bench.sandbox_process import KEY, sandbox_process
from bench.stats import summary_ms

IN_FLIGHT = (1, 10, 100)
TICKS = 250
TICK_EVERY = 0.02
SLOW = 0.05  # sandbox speed: a task takes well over a minute


def run() -> dict[str, dict[str, float]]:
    import bpy

    jobs = addon.module("api.jobs")
    watcher = addon.module("operators.watcher")
    results = {}
    with sandbox_process(SLOW) as base_url:
        addon.use_service(base_url, KEY)
        for count in IN_FLIGHT:
            addon.reset_jobs()
            engine = addon.module("operators.runtime").engine(bpy.context)
            origin = addon.module("operators.runtime").current_origin()
            requests = [jobs.JobRequest(kind="text", prompt=f"a chair {i}") for i in range(count)]
            ids = [engine.submit(request, origin=origin).id for request in requests]
            _wait_in_flight(engine, ids)
            samples = []
            for _ in range(TICKS):
                start = time.perf_counter()
                watcher.tick(bpy.context)
                samples.append(time.perf_counter() - start)
                time.sleep(TICK_EVERY)
            assert all(job.state.is_active for job in engine.jobs()), "a job finished: imports would count"
            results[str(count)] = summary_ms(samples)
            for job_id in ids:
                engine.cancel(job_id)
        addon.reset_jobs()
    return results


def _wait_in_flight(engine: Any, ids: list[str], timeout: float = 60.0) -> None:
    """Until every job has its task id and is being polled (the bench driver may wait; Kiln never does)."""
    deadline = time.monotonic() + timeout
    while not all(
        (job := engine.get(i)) and job.task_id and job.state.value in ("queued", "running") for i in ids
    ):
        if time.monotonic() > deadline:
            raise RuntimeError("jobs did not reach the service in time")
        time.sleep(0.05)
