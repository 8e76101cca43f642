"""Rows 3 and 4: completion → in-scene latency, and the HTTP requests and connections per task.

A few jobs run through Kiln as in Blender: workers poll at the real interval, and the watcher
ticks every 0.25 s on the main thread (as its timer does). Kiln's client is wrapped only to
note when things happen (task seen completed, downloads); the sandbox says when each task
completed and logs every request; urllib3 logs every new TCP connection.
"""

from __future__ import annotations

import logging
import math
import statistics
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import addon
from bench.stats import summary_ms

JOBS = 4
# Sandbox time scale: a text task takes 3.3 s, not a whole number of poll intervals, so the
# request budget is not decided by the ±10 % jitter of the poll schedule.
SPEED = 1.5
TIMEOUT = 60.0


class _ConnectionCounter(logging.Handler):
    """urllib3 says "Starting new HTTP connection" each time it opens a TCP connection."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.opened = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Starting new HTTP"):
            self.opened += 1


def timed_client_factory(marks: dict[str, dict[str, float]]) -> Any:
    """Kiln's own client, noting (monotonic clock) when a task is seen done and how long downloads take."""
    client_module = addon.module("api.services.interface.client")
    completed = addon.module("api.http.models").TaskStatus.COMPLETED
    lock = threading.Lock()

    class TimedClient(client_module.Client):  # type: ignore[misc, name-defined]
        def get_task(self, task_id: str, **kwargs: Any) -> Any:
            task = super().get_task(task_id, **kwargs)
            if task.status is completed:
                with lock:
                    marks[task_id].setdefault("detected", time.monotonic())
            return task

        def download(self, url: str, dest: Any, **kwargs: Any) -> Any:
            start = time.monotonic()
            try:
                return super().download(url, dest, **kwargs)
            finally:
                with lock:  # the sandbox names its files after the task; Kiln names its copies after the job
                    task = marks[Path(urlsplit(url).path).stem]
                    task["download_s"] = task.get("download_s", 0.0) + time.monotonic() - start

    def factory(config: Any, stop: threading.Event) -> Any:
        return TimedClient(config.base_url, config.api_key, cancel_event=stop)  # the engine's default policy

    return factory


def run(sandbox: Any, key: str) -> dict[str, Any]:
    """Run ``JOBS`` text jobs through Kiln against ``sandbox`` (in this process, for its records)."""
    import bpy

    jobs, runtime = addon.module("api.jobs"), addon.module("session.runtime")
    preferences = addon.module("preferences")
    addon.reset_jobs()
    addon.use_service(sandbox.base_url, key)
    marks: dict[str, dict[str, float]] = defaultdict(dict)
    # Instrumentation only: the same engine runtime.engine() would build, with the timed client.
    runtime._engine = jobs.JobEngine(preferences.user_dir(), client_factory=timed_client_factory(marks))
    runtime._engine.start(preferences.service_config(bpy.context))
    engine = runtime.engine(bpy.context)
    counter = _ConnectionCounter()
    urllib3_log = logging.getLogger("urllib3.connectionpool")
    urllib3_log.addHandler(counter)
    urllib3_log.setLevel(logging.DEBUG)
    requests_before = len(sandbox.requests)
    try:
        ids, main_thread_s, ticks, in_scene = _drive(engine)
    finally:
        urllib3_log.removeHandler(counter)
    poll_interval = preferences.service_config(bpy.context).poll_interval
    requests = sandbox.requests[requests_before:]
    per_job = []
    for job_id in ids:
        task_id = engine.get(job_id).task_id
        task = sandbox.tasks[task_id]
        seconds = task.queued_s + task.running_s
        completed = task.created + seconds
        mark, (seen, import_s) = marks[task_id], in_scene[job_id]
        per_job.append(
            {
                "total": seen - completed,
                "poll_wait": mark["detected"] - completed,
                "download": mark["download_s"],
                "import": import_s,
                "beyond": seen - mark["detected"] - mark["download_s"] - import_s,
                "task_seconds": seconds,
                # The submit, then every poll and file of this task (their paths carry its id).
                "requests": 1 + sum(1 for r in requests if task_id in r.path),
                "budget": math.ceil(seconds / poll_interval) + 3,
            }
        )
    addon.reset_jobs()
    return {
        "jobs": JOBS,
        "poll_interval_s": poll_interval,
        "task_seconds": statistics.median(j["task_seconds"] for j in per_job),
        "median_s": {
            part: statistics.median(j[part] for j in per_job)
            for part in ("total", "poll_wait", "download", "import", "beyond")
        },
        "requests_per_task": [j["requests"] for j in per_job],
        "request_budget": [j["budget"] for j in per_job],
        "requests_total": len(requests),
        "connections_opened": counter.opened,
        "main_thread_s_per_job": main_thread_s / JOBS,
        "ticks": summary_ms(ticks),
    }


def _drive(engine: Any) -> tuple[list[str], float, list[float], dict[str, tuple[float, float]]]:
    """Submit the jobs and tick like the watcher's timer until all are in the scene.

    Returns the job ids, the main thread's total time (submits and ticks), every tick's
    duration, and per job (monotonic time it was in the scene, duration of the importing tick).
    """
    import bpy

    jobs, runtime = addon.module("api.jobs"), addon.module("session.runtime")
    watcher = addon.module("session.watcher")
    origin = runtime.current_origin()  # as the generate operator does: imports go to this file
    start = time.perf_counter()
    ids = [
        engine.submit(jobs.JobRequest(kind="text", prompt=f"a chair {i}"), origin=origin).id
        for i in range(JOBS)
    ]
    main_thread_s = time.perf_counter() - start
    ticks: list[float] = []
    in_scene: dict[str, tuple[float, float]] = {}
    deadline = time.monotonic() + TIMEOUT
    while len(in_scene) < JOBS:
        if time.monotonic() > deadline:
            raise RuntimeError("bench jobs did not all reach the scene in time")
        time.sleep(watcher.BUSY_SECONDS)
        start = time.perf_counter()
        watcher.tick(bpy.context)
        ticks.append(time.perf_counter() - start)
        now = time.monotonic()
        for job in engine.jobs():
            if job.state.value == "imported" and job.id not in in_scene:
                in_scene[job.id] = (now, ticks[-1])
            elif job.state.value in ("failed", "cancelled", "timed out"):
                raise RuntimeError(f"bench job failed: {job.error}")
    return ids, main_thread_s + sum(ticks), ticks, in_scene
