"""Row 2: how long the main thread stalls to import a ~65k and a ~1M-triangle textured GLB.

In-process: Kiln's import with Blender's glTF importer on the main thread (what every other
add-on does). Kiln's path: the helper Blender makes a .blend on a worker (timed, but off the
main thread) and the main thread only appends it. Both go through ``import_job``, so placement,
provenance and selection are paid on both sides.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench import addon
from bench.meshes import write_textured_glb

SIZES = {"65k": (65_000, 3), "1M": (1_000_000, 3)}  # label: (triangles, repeats); medians


def run(workdir: Path) -> dict[str, dict[str, float]]:
    results = {}
    for label, (triangles, repeats) in SIZES.items():
        glb = workdir / f"grid-{label}.glb"
        count = write_textured_glb(glb, triangles)
        runs = [_once(glb, workdir / f"grid-{label}-{i}.blend") for i in range(repeats)]
        in_process, helper, kiln = (statistics.median(r[k] for r in runs) for k in range(3))
        results[label] = {
            "triangles": float(count),
            "glb_mb": glb.stat().st_size / 1e6,
            "in_process_s": in_process,
            "kiln_s": kiln,
            "helper_s": helper,
            "ratio": in_process / kiln,
            "repeats": float(repeats),
        }
    return results


def _once(glb: Path, blend: Path) -> tuple[float, float, float]:
    """(in-process import, helper conversion, append) seconds, each into an empty scene."""
    import bpy

    jobs, convert = addon.module("api.jobs"), addon.module("api.convert")
    import_job = addon.module("operators.scene_import").import_job
    request = jobs.JobRequest(kind="text", prompt=glb.stem)

    bpy.ops.wm.read_homefile(use_empty=True)
    job = jobs.Job(id="in", request=request, task_id="in", mesh_path=str(glb))
    start = time.perf_counter()
    import_job(bpy.context, job)
    in_process = time.perf_counter() - start

    start = time.perf_counter()
    convert.convert_to_blend(convert.helper_command(bpy.app.binary_path), glb, blend, cancelled=lambda: False)
    helper = time.perf_counter() - start

    bpy.ops.wm.read_homefile(use_empty=True)
    job = jobs.Job(id="kiln", request=request, task_id="kiln", mesh_path=str(glb), blend_path=str(blend))
    start = time.perf_counter()
    import_job(bpy.context, job)
    kiln = time.perf_counter() - start
    assert not blend.exists(), "the import deletes the helper's .blend"
    bpy.ops.wm.read_homefile(use_empty=True)
    return in_process, helper, kiln
