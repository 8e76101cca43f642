"""Child Blender for the crash test: submit one job (to the service named after the repository, if
any), report its task id, then hang until killed."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

arguments = sys.argv[sys.argv.index("--") + 1 :]
module = enable_kiln(Path(arguments[0]))
# The service is the second argument (the preferences' choice when there is none); a third, an image
# file, sends that image instead of the prompt (a service that takes images only).
service = {"service": arguments[1]} if len(arguments) > 1 else {}
engine = sys.modules[f"{module}.session.runtime"].engine()
if len(arguments) > 2:  # the operator checks an image on a timer, which never runs here: the engine's way in
    jobs = sys.modules[f"{module}.api.jobs"]
    engine.submit(jobs.JobRequest(kind="image", image_path=arguments[2], service=arguments[1]))
else:
    bpy.ops.kiln.generate_from_text(prompt="a stone house", wait=False, **service)
while not any(job.task_id for job in engine.jobs()):
    threading.Event().wait(0.05)
task_id = engine.jobs()[0].task_id
# The kill must come after the task id is on disk (the store thread writes it a moment after the
# job holds it): before that, a crash leaves a job whose outcome is unknown, by design.
store = engine.state_dir / "jobs.sqlite3"
while True:
    with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        if any(task_id in data for (data,) in db.execute("SELECT data FROM jobs")):
            break
    threading.Event().wait(0.05)
print(f"TASK {task_id}", flush=True)
threading.Event().wait()
