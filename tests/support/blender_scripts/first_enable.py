"""Run in a fresh Blender (bpy module): ``install ZIP`` installs Kiln without enabling it;
``enable GO`` waits until the file ``GO`` exists, then enables Kiln and says whether it worked.

The first-enable test starts several ``enable`` runs on one user folder, each writes
``GO.ready-<pid>`` once Blender is up, and the test creates ``GO`` when all are: so they enable
Kiln at the same moment, as two windows opened together after installing, or two farm tasks on
a fresh worker, would. Prints ``KILN-ENABLED`` (after whether enabling read Kiln's translation
files, and which of Kiln's modules enabling loaded) or exits non-zero with what went wrong.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import bpy

MODULE = "bl_ext.user_default.kiln"


def main() -> None:
    mode, argument = sys.argv[sys.argv.index("--") + 1 :][:2]
    if mode == "install":
        install = bpy.ops.extensions.package_install_files
        install(filepath=argument, repo="user_default", enable_on_install=False)
        print("KILN-INSTALLED")
        return
    go = Path(argument)
    go.with_name(f"{go.name}.ready-{os.getpid()}").touch()
    deadline = time.monotonic() + 120
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit("the signal to enable never came")
        time.sleep(0.001)
    bpy.ops.preferences.addon_enable(module=MODULE)
    if MODULE not in bpy.context.preferences.addons or not hasattr(bpy.types, "KILN_OT_generate_from_text"):
        raise SystemExit(f"{MODULE} did not enable")
    # Enabling hands Blender no translation (the first timer tick does): read it before any tick.
    print("KILN-TRANSLATIONS-READ", sys.modules[f"{MODULE}.language"]._handed_over)
    loaded = sorted(name.removeprefix(f"{MODULE}.") for name in sys.modules if name.startswith(f"{MODULE}."))
    print("KILN-LOADED", *loaded)
    print("KILN-ENABLED")


main()
