"""Child Blender for the shared-library tests: one Kiln of a team, with its own user folder.

Usage: ``python library_child.py -- REPO_DIR LIBRARY GO_FILE generate NAME COUNT`` or
``… reuse PROMPT``. Enables Kiln with ``LIBRARY`` as its library folder, says ``READY``, waits
for ``GO_FILE`` (so every child starts adding at the same moment), then either sends ``COUNT``
text jobs ``NAME i`` and waits until each is imported (and kept in the library), or asks for
``PROMPT`` with reuse='ALWAYS'. Prints one ``REPORT {json}`` line.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

args = sys.argv[sys.argv.index("--") + 1 :]
repo, library, go, mode = Path(args[0]), args[1], Path(args[2]), args[3]
module = enable_kiln(repo)
sys.modules[f"{module}.preferences"].get().library_dir = library
runtime = sys.modules[f"{module}.session.runtime"]
engine = runtime.engine()
print("READY", flush=True)
deadline = time.monotonic() + 300
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.02)
started = time.monotonic()
messages: list[str] = []
if mode == "generate":
    name, count = args[4], int(args[5])
    for i in range(count):
        bpy.ops.kiln.generate_from_text(prompt=f"{name} {i}", wait=False, reuse="NEVER")
    bpy.ops.kiln.wait_jobs()
else:
    result = bpy.ops.kiln.generate_from_text(prompt=args[4], reuse="ALWAYS")
    messages.append(str(result))
report = {
    "seconds": round(time.monotonic() - started, 2),
    "states": sorted(job.state.value for job in engine.jobs()),
    "objects": sorted(obj.name for obj in bpy.data.objects if "kiln_task_id" in obj or "kiln_reused" in obj),
    "reused": sorted(obj.name for obj in bpy.data.objects if "kiln_reused" in obj),
    "messages": messages,
}
print("REPORT " + json.dumps(report), flush=True)
runtime.shutdown()
