"""Child Blender: open a saved .blend and print the Kiln prompts of the objects in it, one JSON line."""

from __future__ import annotations

import json
import sys

import bpy

bpy.ops.wm.open_mainfile(filepath=sys.argv[sys.argv.index("--") + 1])
prompts = sorted(obj["kiln_prompt"] for obj in bpy.data.objects if "kiln_prompt" in obj)
print("PROMPTS " + json.dumps(prompts), flush=True)
