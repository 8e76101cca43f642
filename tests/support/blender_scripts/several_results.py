"""Child Blender for the no-crash tests: several finished jobs in the scene, then every export or
every Kiln operator. A crash ends this process, so the test reads its exit code.

Usage: ``python several_results.py -- REPO_DIR OUT_DIR exports|operators``. The service and the
poll interval come from the environment (``KILN_BASE_URL``, ``KILN_API_KEY``, ``KILN_POLL_INTERVAL``).
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

ENGINES = ("GLB", "UNREAL", "UNITY", "GODOT")
RESULTS = 3


def results() -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def finished_jobs(module: str) -> list[Any]:
    engine = sys.modules[f"{module}.session.runtime"].engine()
    return [job for job in engine.jobs() if job.mesh_path and Path(job.mesh_path).is_file()]


def scene_state() -> tuple[Any, ...]:
    """What an export must leave as it found: objects, selection, active, scenes, collections."""
    view_layer = bpy.context.view_layer
    return (
        sorted(obj.name for obj in bpy.data.objects),
        sorted(obj.name for obj in view_layer.objects if obj.select_get()),
        getattr(view_layer.objects.active, "name", None),
        len(bpy.data.scenes),
        sorted(c.name for c in bpy.data.collections),
        view_layer.active_layer_collection.name,
    )


def exports(module: str, out: Path) -> None:
    """Each finished job exported for every engine, the scene unchanged by each."""
    results()[0].select_set(True)
    for job in finished_jobs(module):
        for engine in ENGINES:
            before = scene_state()
            folder = out / job.id / engine
            outcome = bpy.ops.kiln.export_job(job_id=job.id, engine=engine, directory=str(folder))
            assert scene_state() == before, (engine, before, scene_state())
            files = sorted(p.name for p in folder.iterdir())
            print("EXPORTED " + json.dumps([job.id, engine, sorted(outcome), files]), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def arguments(name: str, module: str, out: Path) -> list[dict[str, Any]]:
    """How each operator is called (several ways for some); the rest with their defaults."""
    jobs = finished_jobs(module)
    first = jobs[0].id if jobs else ""
    prompts = out / "prompts.txt"
    prompts.write_text("a barrel\n", encoding="utf-8")
    per_job = {"job_id": first}
    return {
        "generate_from_text": [{"prompt": "a crate", "reuse": "NEVER"}],
        "generate_from_image": [{}, {"image_url": "https://example.invalid/a.png"}],
        "generate_batch": [{}, {"filepath": str(prompts), "reuse": "NEVER"}],
        "generate_from_selection": [{"reuse": "NEVER"}],
        "mark_placeholder": [{"prompt": "a crate"}],
        "export_job": [{**per_job, "engine": e, "directory": str(out / "ops" / e)} for e in ENGINES],
        "serve_agents": [{"port": free_port(), "seconds": 0.2}],
        **{
            op: [per_job, {"job_id": "nope"}]
            for op in ("cancel_job", "retry_job", "resume_job", "import_job", "copy_details")
        },
        "resume_task": [{}, {"task_id": jobs[0].task_id if jobs else "", "name": "again"}],
        "remove_job": [{"job_id": jobs[-1].id if jobs else ""}],
    }.get(name, [{}])


#: Called last in each state: they empty the job list or the cache.
LAST = ("remove_job", "clear_finished", "clear_cache")


def set_state(state: str) -> None:
    view_layer = bpy.context.view_layer
    for obj in view_layer.objects:
        obj.select_set(state == "everything selected")
    if state == "nothing selected":
        view_layer.objects.active = None
    elif state == "everything selected":
        view_layer.objects.active = view_layer.objects[0]
    else:
        result = results()[-1]
        result.select_set(True)
        view_layer.objects.active = result


def operators(module: str, out: Path) -> None:
    """Every registered Kiln operator, in several scene states, each way it is called."""
    names = sorted(
        getattr(bpy.types, name).bl_idname.split(".", 1)[1]
        for name in dir(bpy.types)
        if name.startswith("KILN_OT_")
    )
    print("OPERATORS " + json.dumps(names), flush=True)
    order = [n for n in names if n not in LAST] + [n for n in LAST if n in names]
    for state in ("nothing selected", "everything selected", "a result active"):
        while len(finished_jobs(module)) < 2:  # the last state's calls emptied the list
            bpy.ops.kiln.generate_from_text(prompt=f"a box {len(results())}", reuse="NEVER")
        for name in order:
            for given in arguments(name, module, out):
                set_state(state)
                try:
                    outcome = sorted(getattr(bpy.ops.kiln, name)(**given))
                except RuntimeError as exc:  # a refusal, as a script sees it
                    outcome = ["REFUSED", str(exc).strip().splitlines()[-1][:120]]
                print("CALLED " + json.dumps([state, name, outcome]), flush=True)


def main() -> None:
    repo, out, mode = sys.argv[sys.argv.index("--") + 1 :][:3]
    bpy.ops.wm.read_homefile(use_empty=True)
    module = enable_kiln(Path(repo))
    bpy.ops.mesh.primitive_cube_add()
    bpy.ops.object.camera_add()
    for n in range(RESULTS):
        assert bpy.ops.kiln.generate_from_text(prompt=f"a box {n}", reuse="NEVER") == {"FINISHED"}
    assert len(finished_jobs(module)) == RESULTS, finished_jobs(module)
    (exports if mode == "exports" else operators)(module, Path(out))
    sys.modules[f"{module}.session.runtime"].shutdown()
    print("DONE", flush=True)
    if bpy.app.version < (4, 3, 0):
        # Blender 4.2's bpy module crashes as it exits once its glTF exporter has run (a bare script
        # that exports one cube does too; 4.3 and later exit normally): leave as tests/conftest.py does.
        atexit._run_exitfuncs()
        os._exit(0)


main()
