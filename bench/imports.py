"""Row 2: the import's main-thread stall, in place vs Kiln's isolated path, and the warm helper.

In place: Kiln's import with Blender's glTF importer on the main thread (what every other add-on
does). Kiln's path: the warm helper Blender makes a .blend on a worker (timed, but off the main
thread) and the main thread only appends it. Both go through ``import_job``, so placement,
provenance and selection are paid on both sides. The helper is started (and warmed on the
first mesh) before anything is timed, as it is after a session's first job.

``python -m bench.imports`` runs just these rows (about a minute).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench import addon
from bench.meshes import write_textured_glb

SIZES = {"65k": (65_000, 5), "1.2M": (1_200_000, 3)}  # label: (triangles, repeats); medians


def run(workdir: Path) -> dict[str, Any]:
    isolation = addon.module("api.isolation")
    helper = isolation.ImportHelper()
    command, limits = isolation.module_helper_command(), isolation.HelperLimits()
    try:
        results: dict[str, Any] = {}
        for label, (triangles, repeats) in SIZES.items():
            glb = workdir / f"grid-{label}.glb"
            count = write_textured_glb(glb, triangles)
            helper.convert(command, limits, glb, workdir / "warm.blend", cancelled=lambda: False)
            (workdir / "warm.blend").unlink()
            runs = [
                _once(helper, command, limits, glb, workdir / f"grid-{label}-{i}.blend")
                for i in range(repeats)
            ]
            in_place, converted, appended = (statistics.median(r[k] for r in runs) for k in range(3))
            results[label] = {
                "triangles": float(count),
                "glb_mb": glb.stat().st_size / 1e6,
                "in_process_s": in_place,
                "kiln_s": appended,
                "helper_s": converted,
                "warm_total_s": statistics.median(r[1] + r[2] for r in runs),
                "ratio": in_place / appended,
                "repeats": float(repeats),
            }
        results["helper_peak_mb"] = helper.peak_bytes / 2**20
        results["helper_ceiling_mb"] = limits.ceiling / 2**20
        return results
    finally:
        helper.close()


def _once(helper: Any, command: Any, limits: Any, glb: Path, blend: Path) -> tuple[float, float, float]:
    """(in-place import, warm helper conversion, append) seconds, each into an empty scene."""
    import bpy

    jobs = addon.module("api.jobs")
    import_job = addon.module("session.scene_import").import_job
    no_outputs = addon.module("api.features.quality.options").GameOptions()
    request = jobs.JobRequest(kind="text", prompt=glb.stem)

    bpy.ops.wm.read_homefile(use_empty=True)
    job = jobs.Job(id="in", request=request, task_id="in", mesh_path=str(glb))
    start = time.perf_counter()
    import_job(bpy.context, job, no_outputs)
    in_place = time.perf_counter() - start

    start = time.perf_counter()
    helper.convert(command, limits, glb, blend, cancelled=lambda: False)
    converted = time.perf_counter() - start

    bpy.ops.wm.read_homefile(use_empty=True)
    job = jobs.Job(id="kiln", request=request, task_id="kiln", mesh_path=str(glb), blend_path=str(blend))
    start = time.perf_counter()
    import_job(bpy.context, job, no_outputs)
    appended = time.perf_counter() - start
    assert not blend.exists(), "the import deletes the helper's .blend"
    bpy.ops.wm.read_homefile(use_empty=True)
    return in_place, converted, appended


def main() -> int:
    """Just these rows: the add-on enabled from the working tree in a throwaway user folder."""
    from bench import report

    with addon.enabled_alone() as work:
        results = run(work)
    print(report.table(report.import_rows(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
