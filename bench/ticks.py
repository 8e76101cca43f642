"""Rows 1 and 8: the watcher's beat (its ``bpy.app.timers`` function) on the main thread.

Row 1: with 1, 10 and 100 jobs in flight, the sandbox so slow that no job finishes while we
measure, so every beat is pure bookkeeping: drain the workers' events, look for a finished job,
tag the Sidebar. Beats come faster than the timer's 0.25 s to get enough samples.

Beside each watcher beat the loop times a reference beat: fixed pure-Python work sized (at the
start of the run) to last what a watcher beat lasts on a calm machine. Both are sampled in turn,
so a machine that stalls or slows this process moves both alike, and row 1 is also judged on the
ratio of their p99s.

Row 8: the longest UI-thread stall in Kiln code while 100 jobs change state — sent, queued,
running (progress), downloading, ready — with a history of finished jobs already in the store.
The beat runs every 0.25 s like the timer, so each one drains what piled up meanwhile.
Automatic import is off: an import is Blender's importer at work (row 2), not bookkeeping;
each ready job still makes its "press Import" sentence. Beside the wall-clock stall the row
keeps the beat's own CPU time, to tell Kiln's work from waiting on the workers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench import addon
from bench.reference import reference_summary, reference_work, timed_beat
from bench.sandbox_process import KEY, sandbox_process
from bench.stats import summary_ms
from bench.store import seed

IN_FLIGHT = (1, 10, 100)
TICKS = 250
TICK_EVERY = 0.02
SLOW = 0.05  # sandbox speed: a task takes well over a minute

CHANGING = 100
HISTORY = 5_000
CHANGE_SPEED = 1.0  # a text task takes about 5 s
CHANGE_TIMEOUT = 600.0


def run() -> dict[str, dict[str, float]]:
    import bpy

    jobs = addon.module("api.jobs")
    watcher = addon.module("session.watcher")
    results = {}
    work = reference_work()
    with sandbox_process(SLOW) as base_url:
        addon.use_service(base_url, KEY)
        for count in IN_FLIGHT:
            addon.reset_jobs()
            engine = addon.module("session.runtime").engine(bpy.context)
            origin = addon.module("session.runtime").current_origin()
            requests = [jobs.JobRequest(kind="text", prompt=f"a chair {i}") for i in range(count)]
            ids = [engine.submit(request, origin=origin).id for request in requests]
            _wait_in_flight(engine, ids)
            samples, reference = [], []
            for _ in range(TICKS):
                start = time.perf_counter()
                watcher.beat()
                samples.append(time.perf_counter() - start)
                time.sleep(TICK_EVERY / 2)
                reference.append(timed_beat(work))
                time.sleep(TICK_EVERY / 2)
            assert all(job.state.is_active for job in engine.jobs()), "a job finished: imports would count"
            results[str(count)] = {**summary_ms(samples), **reference_summary(reference)}
            for job_id in ids:
                engine.cancel(job_id)
        addon.reset_jobs()
    return results


def run_state_changes(history: int = HISTORY) -> dict[str, float]:
    """Beat every 0.25 s until 100 jobs, sent together, are all ready; the longest beat is the row."""
    import bpy

    jobs, runtime = addon.module("api.jobs"), addon.module("session.runtime")
    watcher = addon.module("session.watcher")
    prefs = addon.preferences()
    auto_import = prefs.auto_import
    prefs.auto_import = False
    try:
        with sandbox_process(CHANGE_SPEED) as base_url:
            addon.use_service(base_url, KEY)
            addon.reset_jobs()
            if history:
                seed(Path(bpy.utils.extension_path_user(addon.ADDON_MODULE, create=True)), history)
            engine = runtime.engine(bpy.context)
            origin = runtime.current_origin()
            ids = [
                engine.submit(jobs.JobRequest(kind="text", prompt=f"a stool {i}"), origin=origin).id
                for i in range(CHANGING)
            ]
            samples: list[float] = []
            own_cpu: list[float] = []
            deadline = time.monotonic() + CHANGE_TIMEOUT
            started = time.monotonic()
            while not all(engine.get(i).state.value == "ready" for i in ids):
                if time.monotonic() > deadline:
                    raise RuntimeError("bench jobs did not all finish in time")
                settled = [engine.get(i) for i in ids]
                failed = [job.error for job in settled if job.state.value in ("failed", "timed out")]
                if failed:
                    raise RuntimeError(f"bench job failed: {failed[0]}")
                time.sleep(watcher.BUSY_SECONDS)
                start, start_cpu = time.perf_counter(), time.thread_time()
                watcher.beat()
                samples.append(time.perf_counter() - start)
                own_cpu.append(time.thread_time() - start_cpu)
            seconds = time.monotonic() - started
            addon.reset_jobs()
    finally:
        prefs.auto_import = auto_import
    return {
        **summary_ms(samples),
        # The main thread's own work; the rest of a stall is waiting for the GIL or the engine's lock.
        "max_cpu_ms": max(own_cpu) * 1000.0,
        "jobs": float(CHANGING),
        "history": float(history),
        "seconds": seconds,
    }


def _wait_in_flight(engine: Any, ids: list[str], timeout: float = 60.0) -> None:
    """Until every job has its task id and is being polled (the bench driver may wait; Kiln never does)."""
    deadline = time.monotonic() + timeout
    while not all(
        (job := engine.get(i)) and job.task_id and job.state.value in ("queued", "running") for i in ids
    ):
        if time.monotonic() > deadline:
            raise RuntimeError("jobs did not reach the service in time")
        time.sleep(0.05)
