"""Run in a child Python with bpy: Kiln's path for one downloaded GLB (check_glb, then Blender's importer).

Usage: python import_child.py FILE [--unchecked] [--report]. Prints one line: ``REFUSED <sentence>``
when check_glb refuses the file, ``IMPORTED <objects>`` after a clean import, ``FAILED <error>`` when
Blender's importer reports an error. ``--unchecked`` skips check_glb (only to show the harness sees
what an unchecked file does). ``--report`` then makes Kiln's quality report of the imported meshes
as the helper does, and prints ``REPORTED <JSON: its triangles and what it did not measure>``. A
crash shows as a signal in the exit status, seen by the parent.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import runpy
import sys
import tempfile
from pathlib import Path

os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="kiln-hostile-child-")


@atexit.register
def say_peak() -> None:
    """The process's own high-water mark (its memory since exec), for the parent's ceiling."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                print("PEAK", int(line.split()[1]) * 1024, flush=True)


ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))


def report(objects: list[object]) -> str:
    """Kiln's report of the meshes among ``objects``, made by ``finishing.game_ready`` loaded as
    the helper loads it (through its one entry point, ``helper_blender/main.py``)."""
    game_ready = runpy.run_path(str(ROOT / "helper_blender" / "main.py"))["request_loop"]().game_ready
    made = game_ready.measure([obj for obj in objects if getattr(obj, "type", "") == "MESH"])
    return json.dumps({"triangles": made.triangles, "not_measured": made.not_measured}, sort_keys=True)


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
    if "--report" in sys.argv:
        print("REPORTED", report(list(bpy.data.objects)), flush=True)


main()
