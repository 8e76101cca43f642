"""Row 10: game-ready work on a 1.2M-triangle textured result, all of it in the warm helper.

- the report alone, and the report with every fix-up (merge, faces out, loose parts), over the
  plain import (each the helper's extra seconds);
- a triangle budget of 50,000 (Decimate, collapse);
- the UI thread's part: appending the finished .blend (it stays the append only; the median of
  appending each conversion's .blend once);
- LOD1 at 50%: its distance to LOD0, sampled on both surfaces with trimesh and measured with
  Blender's BVH tree (mean of both directions, and the larger of the two maxima: Hausdorff), as a
  share of the bounding-box diagonal.

``python -m bench.game_ready`` runs just these rows (a few minutes).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import addon
from bench.meshes import write_textured_glb
from bench.reference import reference_work, timed_beat

TRIANGLES = 1_200_000
BUDGET = 50_000
REPEATS = 3
SAMPLES = 100_000


def run(workdir: Path) -> dict[str, Any]:
    isolation = addon.module("api.isolation")
    options = addon.module("api.features.quality.options")
    helper = isolation.ImportHelper()
    command, limits = isolation.module_helper_command(), isolation.HelperLimits()
    glb = workdir / "grid-1.2M.glb"
    count = write_textured_glb(glb, TRIANGLES)

    def seconds(game: Any, blend: Path) -> tuple[float, Any]:
        start = time.perf_counter()
        made = helper.prepare(
            command, limits, glb, blend, cancelled=lambda: False, game=game.to_text(), label="grid"
        )
        return time.perf_counter() - start, made

    try:
        seconds(options.GameOptions(), workdir / "warm.blend")
        runs: dict[str, list[float]] = {"report": [], "fixes": [], "budget": []}
        for i in range(REPEATS):
            # The report is always made; "report" is the whole conversion with nothing else asked.
            runs["report"].append(seconds(options.GameOptions(), workdir / f"r{i}.blend")[0])
            fixes = options.GameOptions(fix_merge=True, fix_normals=True, fix_loose=0.01)
            runs["fixes"].append(seconds(fixes, workdir / f"f{i}.blend")[0])
            spent, made = seconds(options.GameOptions(triangles=BUDGET), workdir / f"b{i}.blend")
            runs["budget"].append(spent)
        budget_triangles = _triangles(made.quality)
        report_only, _report = report_seconds(glb)
        # Each conversion's .blend appended once, as row 2 takes the median of its appends.
        work = reference_work()
        appends, references = [], []
        for i in range(REPEATS):
            appends.append(_append(workdir / f"r{i}.blend", glb))
            references.append(timed_beat(work))
        append_s = statistics.median(appends)
        lods = workdir / "lods"
        seconds(options.GameOptions(lods=(0.5,), export_dir=str(lods)), workdir / "lod.blend")
        fidelity = _fidelity(lods / "Grid.glb")
    finally:
        helper.close()
    return {
        "triangles": float(count),
        "convert_with_report_s": statistics.median(runs["report"]),
        "report_s": report_only,
        "fixes_s": statistics.median(runs["fixes"]),
        "budget_s": statistics.median(runs["budget"]),
        "budget_triangles": float(budget_triangles),
        "append_s": append_s,
        "append_reference_s": statistics.median(references),
        **fidelity,
    }


def _triangles(quality: str) -> int:
    import json

    return int(json.loads(quality)["triangles"])


def report_seconds(glb: Path) -> tuple[float, Any]:
    """(median seconds, the report) of the report alone: ``glb`` imported in this process, then its
    meshes read and measured as the helper does (``game_ready.measure``)."""
    import bpy

    game_ready = addon.module("finishing.game_ready")
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=str(glb))
    meshes = [obj for obj in bpy.data.objects if obj.type == "MESH"]
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        made = game_ready.measure(meshes)
        times.append(time.perf_counter() - start)
    bpy.ops.wm.read_homefile(use_empty=True)
    return statistics.median(times), made


def _append(blend: Path, glb: Path) -> float:
    """The UI thread's whole part of a finished result: appending the helper's .blend."""
    import bpy

    jobs = addon.module("api.jobs")
    import_job = addon.module("session.scene_import").import_job
    no_outputs = addon.module("api.features.quality.options").GameOptions()
    bpy.ops.wm.read_homefile(use_empty=True)
    request = jobs.JobRequest(kind="text", prompt="grid")
    job = jobs.Job(id="g", request=request, task_id="g", mesh_path=str(glb), blend_path=str(blend))
    start = time.perf_counter()
    import_job(bpy.context, job, no_outputs)
    spent = time.perf_counter() - start
    bpy.ops.wm.read_homefile(use_empty=True)
    return spent


def _fidelity(exported: Path) -> dict[str, float]:
    """LOD1's distance to LOD0, both ways, from surface samples (trimesh) to the other surface (BVH)."""
    import trimesh
    from mathutils.bvhtree import BVHTree

    scene = trimesh.load(str(exported), file_type="glb", process=False)
    meshes = {name.split(".")[0]: mesh for name, mesh in scene.geometry.items()}
    lod0 = next(m for n, m in meshes.items() if not n.endswith("LOD1"))
    lod1 = next(m for n, m in meshes.items() if n.endswith("LOD1"))
    diagonal = float(np.linalg.norm(np.ptp(lod0.vertices, axis=0)))

    def distances(source: Any, target: Any) -> np.ndarray:
        tree = BVHTree.FromPolygons(target.vertices.tolist(), target.faces.tolist())
        points, _faces = trimesh.sample.sample_surface(source, SAMPLES, seed=1)
        return np.array([tree.find_nearest(p)[3] for p in points.tolist()])

    there, back = distances(lod1, lod0), distances(lod0, lod1)
    return {
        "lod1_triangles": float(len(lod1.faces)),
        "lod0_triangles": float(len(lod0.faces)),
        "lod1_mean_share": float(np.concatenate([there, back]).mean()) / diagonal,
        "lod1_hausdorff_share": float(max(there.max(), back.max())) / diagonal,
    }


def main() -> int:
    """Just these rows: the add-on enabled from the working tree in a throwaway user folder."""
    from bench import report

    with addon.enabled_alone() as work:
        results = run(work)
    print(report.table(report.game_ready_rows(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
