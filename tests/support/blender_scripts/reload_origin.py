"""Child Blender: the unsaved file's identity before and after Kiln is loaded anew (as an update
does: disabled, its modules dropped, enabled), and after File ▸ New. Prints one ``ORIGINS`` line.

Usage: ``python reload_origin.py -- REPO_DIR``. A child process, so dropping Kiln's modules
cannot leave stale ones behind for the other tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy
from harness import enable_kiln


def origin(module: str) -> str:
    return str(sys.modules[f"{module}.session.runtime"].current_origin())


module = enable_kiln(Path(sys.argv[sys.argv.index("--") + 1]))
before = origin(module)
bpy.ops.preferences.addon_disable(module=module)
for name in [name for name in sys.modules if name.startswith(module)]:
    del sys.modules[name]
bpy.ops.preferences.addon_enable(module=module)
reloaded = origin(module)
bpy.ops.wm.read_homefile(use_empty=True)
print(
    "ORIGINS " + json.dumps({"before": before, "reloaded": reloaded, "new_file": origin(module)}), flush=True
)
