"""`make bench`: one run against the sandbox; the table printed and written to bench/RESULTS.md.

The raw numbers go to bench/out/latest.json (not kept); RESULTS.md is committed and linked from the docs.

Order matters: the memory and register rows run in fresh child processes first; then this
process (the bpy module, Kiln enabled from the working tree) times the main thread.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import (
    addon,
    download,
    game_ready,
    image_checks,
    imports,
    latency,
    naive,
    register,
    report,
    store,
    ticks,
    uv_layouts,
)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
KEY = "sbx_live_bench11111111"


def main() -> int:
    started = time.monotonic()
    user_dir = addon.isolate()
    try:
        results = measure(user_dir)
    finally:
        shutil.rmtree(user_dir, ignore_errors=True)
    results["machine"] = {
        "blender": results.pop("blender"),
        "python": platform.python_version(),
        "cpus": float(os.cpu_count() or 0),
        "bench_seconds": time.monotonic() - started,
    }
    rows = report.rows(results)
    print()
    print(report.table(rows))
    path = report.write(OUT, results, rows)
    print(f"\nBlender {results['machine']['blender']}; {time.monotonic() - started:.0f} s")
    print(f"written to {report.RESULTS.relative_to(ROOT)} and {path.relative_to(ROOT)}")
    return 0


def measure(user_dir: Path) -> dict[str, Any]:
    """Every row's numbers; child processes first, then this process's main thread."""
    results: dict[str, Any] = {}
    step("register the add-on (fresh processes)")
    results["register"] = register.run()
    step("download a 500 MB GLB (fresh process)")
    results["download"] = download.run()

    import bpy

    from sandbox.server import Sandbox

    results["blender"] = bpy.app.version_string
    addon.mount(user_dir)
    addon.enable()
    addon.preferences().max_in_flight = 100
    try:
        with tempfile.TemporaryDirectory(prefix="kiln-bench-") as work:
            step("import stall, in place vs warm helper + append")
            results["imports"] = imports.run(Path(work))
            step("game-ready work at 1.2M triangles in the helper: report, fixes, budget, LOD1")
            results["game_ready"] = game_ready.run(Path(work))
            step("the quality report at 1.2M triangles on three UV layouts")
            results["uv_layouts"] = uv_layouts.run(Path(work))
            step("an image job's checks: preflight at 4K, fidelity at 200k triangles, the UI thread")
            results["image_checks"] = image_checks.run(Path(work))
        step("watcher beat with 1, 10, 100 jobs in flight")
        results["ticks"] = ticks.run()
        step("longest beat while 100 jobs change state")
        results["stall"] = ticks.run_state_changes()
        step("submit, import bookkeeping, panels and start with 5,000 jobs stored")
        results["store"] = store.run()
        with Sandbox(keys=[KEY], speed=latency.SPEED) as sandbox:
            step("completion → in-scene latency, requests, connections")
            results["latency"] = latency.run(sandbox, KEY)
            step("naive baseline on the main thread")
            results["naive"] = naive.run(sandbox, KEY, results["latency"]["poll_interval_s"])
    finally:
        addon.reset_jobs()
        bpy.ops.preferences.addon_disable(module=addon.ADDON_MODULE)
    return results


def step(what: str) -> None:
    print(f"bench: {what} …", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
