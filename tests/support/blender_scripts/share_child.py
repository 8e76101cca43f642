"""Child Blender for the shared-store tests: one of several Blenders on one user folder.

Usage: ``python share_child.py -- REPO_DIR NAME JOBS OUT_BLEND [LINGER_SECONDS]``. Enables Kiln,
sends ``JOBS`` text jobs named ``NAME-i`` without waiting, then ``bpy.ops.kiln.wait_jobs()``,
saves the .blend, and prints one ``REPORT {json}`` line: its job ids, the prompts of the objects
in its scene, and every job it lists with where it runs. With LINGER_SECONDS it first keeps its
engine running that long (a Blender started while another waits).
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

args = sys.argv[sys.argv.index("--") + 1 :]
repo, name, count, out = Path(args[0]), args[1], int(args[2]), Path(args[3])
linger = float(args[4]) if len(args) > 4 else 0.0
module = enable_kiln(repo)
runtime = sys.modules[f"{module}.session.runtime"]
engine = runtime.engine()
print("STARTED", flush=True)
for i in range(count):
    bpy.ops.kiln.generate_from_text(prompt=f"{name}-{i}", wait=False)
mine = [job.id for job in engine.own_jobs()]
seen_elsewhere: dict[str, str] = {}
if linger:
    deadline = threading.Event()
    for _ in range(int(linger / 0.25)):
        for job in engine.jobs():
            if engine.where(job):
                seen_elsewhere[job.id] = str(engine.where(job))
        deadline.wait(0.25)
bpy.ops.kiln.wait_jobs()
bpy.ops.wm.save_as_mainfile(filepath=str(out))
report = {
    "mine": mine,
    "prompts": sorted(obj["kiln_prompt"] for obj in bpy.data.objects if "kiln_prompt" in obj),
    "states": {job.id: job.state.value for job in engine.jobs()},
    "elsewhere": seen_elsewhere,
}
print("REPORT " + json.dumps(report), flush=True)
runtime.shutdown()
