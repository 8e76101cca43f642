"""Child Blender for the crash test: submit one job, report its task id, then hang until killed."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

module = enable_kiln(Path(sys.argv[sys.argv.index("--") + 1]))
bpy.ops.kiln.generate_from_text(prompt="a stone house", wait=False)
engine = sys.modules[f"{module}.session.runtime"].engine()
while not any(job.task_id for job in engine.jobs()):
    threading.Event().wait(0.05)
print(f"TASK {engine.jobs()[0].task_id}", flush=True)
threading.Event().wait()
