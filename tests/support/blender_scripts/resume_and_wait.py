"""Child Blender for the crash test: enable Kiln again and wait for what the killed process left."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln

enable_kiln(Path(sys.argv[sys.argv.index("--") + 1]))
bpy.ops.kiln.wait_jobs()
for obj in bpy.data.objects:
    if "kiln_task_id" in obj:
        print(f"IMPORTED {obj['kiln_task_id']} {obj.get('kiln_prompt')}", flush=True)
sys.modules["bl_ext.kiln_dev.kiln.session.runtime"].shutdown()
