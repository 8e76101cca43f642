"""Row 11: an image job's checks: the preflight of a 4K concept, the fidelity of a 200k-triangle mesh,
and what starting the check costs the UI thread.

The preflight (``api.checks.image_preflight``), with the Pillow Kiln's zip carries, decodes, looks
at and prepares a 4096 × 4096 PNG of a small subject far off centre; the fidelity
(``api.checks.fidelity``) reads a 200,000-triangle GLB, draws its five silhouettes and compares them
with the concept. Both run on a worker thread in Kiln; each is timed here alone, median of three
after a warm-up, on the Blender this venv runs (4.2 LTS in .venv-lts, 5.2 in .venv); the preflight
also in this process's CPU seconds, which a machine busy with other work inflates less. The UI
thread's part is the operator building the request and handing the check to a thread
(``session.image_jobs``), median of 10. Beside them, each platform's zip size, as `make build`
makes them.

``python -m bench.image_checks`` runs just these rows (seconds) and writes them into
bench/RESULTS.md in place of their last numbers.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench import addon
from fixtures.concept_images import draw_case, write_concept

SIDE = 4096
TRIANGLES = 200_000
RUNS_UI = 10


def _median_seconds(work: Any, runs: int = 3) -> float:
    return _median_wall_and_cpu(work, runs)[0]


def _median_wall_and_cpu(work: Any, runs: int = 3) -> tuple[float, float]:
    """Seconds on the clock and of this process's CPU (which a machine busy with others inflates less)."""
    work()
    times, cpu = [], []
    for _ in range(runs):
        start, used = time.perf_counter(), time.process_time()
        work()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
    return statistics.median(times), statistics.median(cpu)


def run(workdir: Path) -> dict[str, Any]:
    """Seconds of the preflight and of the fidelity; milliseconds of the UI thread's part."""
    from api.checks import fidelity
    from api.checks.image_preflight import ServiceImage, check_image
    from sandbox import meshes

    big = workdir / "concept-4k.png"
    draw_case("off_centre", SIDE).save(big)
    glb = workdir / "mesh-200k.glb"
    glb.write_bytes(
        meshes.text_mesh(f"textured test grid of {TRIANGLES} triangles", 1024).export(file_type="glb")
    )
    concept = write_concept(workdir, "chair")
    service = ServiceImage(min_side=128)
    measured = fidelity.measure(glb, concept)
    ui_ms, ui_wall_ms = _ui_thread_ms(big)
    preflight_s, preflight_cpu_s = _median_wall_and_cpu(
        lambda: check_image(big, service, prepare_into=workdir / "prepared")
    )
    import bpy

    return {
        "blender": "{}.{}".format(*bpy.app.version[:2]),
        "zips_mb": _zip_sizes(workdir / "dist"),
        "preflight_s": preflight_s,
        "preflight_cpu_s": preflight_cpu_s,
        "load": os.getloadavg()[0],
        "fidelity_s": _median_seconds(lambda: fidelity.measure(glb, concept)),
        "fidelity": measured.value,
        "ui_ms": ui_ms,
        "ui_wall_ms": ui_wall_ms,
    }


def _zip_sizes(folder: Path) -> dict[str, float]:
    """Megabytes of each platform's zip, as `make build` makes them (Pillow's wheels inside)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import build

    return {name: path.stat().st_size / 1e6 for name, path in build.build_platforms(folder).items()}


def _ui_thread_ms(image: Path) -> tuple[float, float]:
    """The main thread's part of an image job with a window, the check handed to a thread: its own CPU
    time, and the wall time (which includes waiting for the GIL the new thread holds at once)."""
    import importlib

    from api.jobs import JobRequest

    image_jobs = importlib.import_module(f"{addon.ADDON_MODULE}.session.image_jobs")
    props = SimpleNamespace(bl_rna=SimpleNamespace(properties=[]), is_property_set=lambda name: False)
    op = SimpleNamespace(properties=props, report=lambda level, text: None)
    request = JobRequest(kind="image", image_path=str(image))
    times, own = [], []
    for _ in range(RUNS_UI):
        start, cpu = time.perf_counter(), time.thread_time()
        image_jobs.check_then_call_again(op, request, True, "EXEC_DEFAULT")
        own.append((time.thread_time() - cpu) * 1000)
        times.append((time.perf_counter() - start) * 1000)
        for thread in threading.enumerate():  # one check at a time, and none left when the folder goes
            if thread.name == "kiln-image-check":
                thread.join()
    return statistics.median(own), statistics.median(times)


def main() -> int:
    """Just these rows: the add-on enabled from the working tree in a throwaway user folder."""
    from bench import report

    with addon.enabled_alone() as work:
        results = run(work)
    rows = report.image_check_rows(results)
    print(report.table(rows))
    report.merge(rows, "python -m bench.image_checks")
    print(f"\nwritten to {report.RESULTS.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
