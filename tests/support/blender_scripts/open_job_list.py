"""Child Blender in background mode (as ``blender -b``): enable Kiln and run its first operator, which
opens the job list; print ``STATE <Kiln's folder>``. What Kiln says goes to the console, no more."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import ADDON_MODULE, enable_kiln

enable_kiln(Path(sys.argv[sys.argv.index("--") + 1]))
bpy.ops.kiln.wait_jobs()
print(f"STATE {bpy.utils.extension_path_user(ADDON_MODULE)}", flush=True)
sys.modules[f"{ADDON_MODULE}.session.runtime"].shutdown()
