"""Run in a child Python with bpy: Kiln's path for one downloaded GLB (check_glb, then Blender's importer).

Usage: python import_child.py FILE [--unchecked]. Prints one line: ``REFUSED <sentence>`` when
check_glb refuses the file, ``IMPORTED <objects>`` after a clean import, ``FAILED <error>`` when
Blender's importer reports an error. ``--unchecked`` skips check_glb (only to show the harness sees
what an unchecked file does). A crash shows as a signal in the exit status, seen by the parent.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="kiln-hostile-child-")
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))


def main() -> None:
    path = sys.argv[1]
    if "--unchecked" not in sys.argv:
        from api.checks.glb import check_glb
        from api.errors import KilnError

        try:
            check_glb(path)
        except KilnError as exc:
            print("REFUSED", exc.user_message, flush=True)
            return
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    try:
        bpy.ops.import_scene.gltf(filepath=path)
    except RuntimeError as exc:
        print("FAILED", str(exc).splitlines()[0][:200], flush=True)
        return
    print("IMPORTED", len(bpy.data.objects), flush=True)


main()
