"""A stand-in for the Blender program in farm tests: runs the ``-P`` script under the bpy module.

The bpy module has no Blender binary, so this takes Blender's command line
(``-b --factory-startup -P script -- args``), drops Blender's own flags and runs the script in
this Python, where ``import bpy`` is the real Blender.
"""

from __future__ import annotations

import runpy
import sys

args = sys.argv[1:]
script = args[args.index("-P") + 1]
rest = args[args.index("--") :] if "--" in args else []
sys.argv = [script, *rest]
runpy.run_path(script, run_name="__main__")
