"""Run `blender --command extension ARGS...` inside the bpy module (which has no command line).

The same handler Blender's program runs for ``--command extension`` (bl_pkg's
``cli_extension_handler``), so what works here works with ``blender --command extension``.
Usage: ``python extension_command.py -- CMD ARGS [--then CMD ARGS ...]``; the exit code is the
first failing command's, and the last line names the enabled extensions. Online access is turned
on first, as an artist allowing it would.
The bpy module does not read saved preferences on import (and 4.2's crashes reading them), so
each run starts with ``repo-add``: the repository's folder, with what is installed in it, stays.
"""

from __future__ import annotations

import sys

import bpy


def commands(argv: list[str]) -> list[list[str]]:
    found: list[list[str]] = [[]]
    for arg in argv[argv.index("--") + 1 :]:
        if arg == "--then":
            found.append([])
        else:
            found[-1].append(arg)
    return [c for c in found if c]


def main() -> int:
    import addon_utils  # on the path once bpy is imported

    bpy.context.preferences.system.use_online_access = True
    addon_utils.enable("bl_pkg", default_set=True)
    from bl_pkg import bl_extension_cli

    for command in commands(sys.argv):
        print(f"=== blender --command extension {' '.join(command)}", flush=True)
        code = bl_extension_cli.cli_extension_handler(command)
        sys.stdout.flush()
        if code:
            return code
    enabled = sorted(a.module for a in bpy.context.preferences.addons if a.module.startswith("bl_ext."))
    print(f"ENABLED-EXTENSIONS {' '.join(enabled)}")
    return 0


sys.exit(main())
