"""Row 6: time to register the add-on, each run in a fresh Blender (the bpy module) process.

"Cold" is what Kiln adds to Blender's start-up: import every module of the add-on, then
``register()``. Blender's own extension machinery (its manifest reader and wheel manager, loaded by
the first extension any Blender enables) is warmed first by enabling an empty extension, so the row
counts Kiln's part, not Blender's. "Warm" is disable + enable again in the same process:
``register()`` alone.

The reference, measured in the same process just before Kiln: Blender enabling its own bundled
glTF add-on cold (its modules dropped from ``sys.modules`` first, so they are imported again). A
machine that runs everything slower moves both figures alike, so the row is also judged on their
ratio.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from bench.addon import ADDON_MODULE, ROOT, enable, isolate, mount, warm_extension_machinery

#: Blender's own glTF add-on, the reference an artist's Blender enables at every start.
REFERENCE_ADDON = "io_scene_gltf2"

#: Fresh processes timed. The row is the fastest of them, the median shown beside it: on a shared
#: machine (this VM's CPU runs the same fixed work up to a third slower from one second to the next)
#: a slower start measures the machine, not Kiln; the fastest is what Kiln's own work costs, as
#: ``timeit`` reads its repeats.
RUNS = 7


def measure() -> dict[str, float]:
    """In the child: time enabling Kiln cold, then again warm."""
    folder = isolate()
    import bpy

    mount(folder)
    warm_extension_machinery(folder)
    reference = _reference_cold()
    start = time.perf_counter()
    enable(first_tick=False)
    cold = time.perf_counter() - start
    bpy.ops.preferences.addon_disable(module=ADDON_MODULE)
    start = time.perf_counter()
    enable(first_tick=False)
    warm = time.perf_counter() - start
    assert ADDON_MODULE in bpy.context.preferences.addons
    bpy.ops.preferences.addon_disable(module=ADDON_MODULE)
    shutil.rmtree(folder, ignore_errors=True)
    return {"cold_ms": cold * 1000.0, "warm_ms": warm * 1000.0, "reference_ms": reference * 1000.0}


def _reference_cold() -> float:
    """Seconds Blender takes to enable its glTF add-on with its modules imported afresh."""
    import bpy

    if REFERENCE_ADDON in bpy.context.preferences.addons:
        bpy.ops.preferences.addon_disable(module=REFERENCE_ADDON)
    for name in [m for m in sys.modules if m == REFERENCE_ADDON or m.startswith(REFERENCE_ADDON + ".")]:
        del sys.modules[name]
    start = time.perf_counter()
    bpy.ops.preferences.addon_enable(module=REFERENCE_ADDON)
    return time.perf_counter() - start


def run(runs: int = RUNS) -> dict[str, float]:
    """The fastest and the median of ``runs`` fresh processes, after one untimed start.

    Blender keeps Python's bytecode cache, so every start after the first reads compiled
    modules; the untimed start writes that cache (even where PYTHONDONTWRITEBYTECODE is set
    for development), and the timed ones measure the start an artist has every day.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    results = []
    for _ in range(runs + 1):
        done = subprocess.run(
            [sys.executable, "-m", "bench.register"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    results = results[1:]
    return {
        "cold_ms": min(r["cold_ms"] for r in results),
        "cold_median_ms": statistics.median(r["cold_ms"] for r in results),
        "reference_ms": min(r["reference_ms"] for r in results),
        "warm_ms": statistics.median(r["warm_ms"] for r in results),
        "runs": float(runs),
    }


if __name__ == "__main__":
    print(json.dumps(measure()))
