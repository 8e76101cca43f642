"""Child Blender for the crash test of a service that takes images only (fal.ai): record the concept
image's job for the service named (straight to the engine: the Generate operator's image check
follows its worker on a timer, which nothing drives in a bpy module that hangs), report the task id
once it is on disk, then hang until killed."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import enable_kiln

repo, service, image = sys.argv[sys.argv.index("--") + 1 :][:3]
module = enable_kiln(Path(repo))
engine = sys.modules[f"{module}.session.runtime"].engine()
engine.record(sys.modules[f"{module}.api.jobs"].JobRequest(kind="image", image_path=image, service=service))
while not any(job.task_id for job in engine.jobs()):
    threading.Event().wait(0.05)
task_id = engine.jobs()[0].task_id
# The kill comes after the task id is on disk (see submit_and_hang.py).
store = engine.state_dir / "jobs.sqlite3"
while True:
    with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        if any(task_id in data for (data,) in db.execute("SELECT data FROM jobs")):
            break
    threading.Event().wait(0.05)
print(f"TASK {task_id}", flush=True)
threading.Event().wait()
