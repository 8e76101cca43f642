"""The helper Blender's request loop: GLB in, .blend out, one request a line, for as long as it is asked.

Run in the helper Blender through ``helper_blender/main.py`` (the one entry point, which sets up
the path). Blender's own glTF importer does the work, so the result is what a plain import gives;
images are packed so the .blend carries its textures. Each request is a JSON line on stdin; each
answer a marked JSON line on stdout (Blender prints there too). It ends when stdin closes or its
parent goes away. The artist's Blender never imports this module: it only runs in a helper.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import pkgutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import bpy

from ..finishing import game_ready, library_asset
from . import review_picture

MARK = "KILN-HELPER "  # the same string is in api/isolation/helper.py
PARENT_CHECK_SECONDS = 1.0


def convert(
    glb: str,
    blend: str,
    game: str = "",
    label: str = "",
    picture: str = "",
    asset: dict[str, Any] | None = None,
    provenance: str = "",
) -> dict[str, Any]:
    """Import ``glb`` into an empty file, finish it (report, fix-ups, outputs: ``game`` is
    ``JobRequest.game``; a review picture to ``picture`` when asked), and save it, textures packed,
    as ``blend`` — or, with ``asset``, write it to ``blend`` as the Kiln library's asset; returns
    what finishing said. ``provenance``: the result's record (JSON) for its export."""
    # The factory startup file, emptied: a fresh file each time, a fifth of read_factory_settings'
    # cost (that one also resets the preferences and reloads every add-on).
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    finished = finish(game, label, picture, provenance)
    bpy.ops.file.pack_all()
    if asset:
        keep_as_asset(asset, Path(blend))
    else:
        bpy.ops.wm.save_as_mainfile(filepath=blend, compress=False)
    return finished


def keep_as_asset(about: dict[str, Any], blend: Path) -> None:
    """The result as the library's asset, named and described as the artist's Blender would
    (``library.asset_about`` made ``about`` there), written alone and compressed."""
    objects = list(bpy.data.objects)
    if len(objects) == 1:
        objects[0].name = about["name"]
    for obj in objects:
        for key, value in about["object_properties"].items():
            obj[key] = value
    asset = library_asset.asset_of(objects, about["name"])
    library_asset.describe(asset, about)
    library_asset.write(asset, blend)


def finish(game: str, label: str, picture: str, provenance: str = "") -> dict[str, Any]:
    """The game-ready work; a failure there (an export folder that cannot be written) is said in
    the answer, never a failed import: the mesh itself is fine."""
    try:
        options = game_ready.game_options.GameOptions.from_text(game)
        objects, said = game_ready.finish(list(bpy.data.objects), options, label, provenance)
        if options.review and picture:
            said["picture"] = review_picture.render_picture(objects, picture)
        return dict(said)
    except game_ready.ExportFailed as exc:
        return {"finish_error": str(exc)[-500:]}
    except Exception as exc:
        logging.getLogger(__name__).exception("Finishing the result failed")
        return {"finish_error": f"{type(exc).__name__}: {exc}"[-500:]}


def serve(memory_limit: int) -> None:
    """Answer requests until stdin closes."""
    preload_importer()
    limit_address_space(memory_limit)
    watch_parent()
    say({"ready": True, "pid": os.getpid(), "blender": bpy.app.version_string})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        started = time.perf_counter()
        try:
            finished = convert(
                request["glb"],
                request["blend"],
                request.get("game", ""),
                request.get("label", ""),
                request.get("picture", ""),
                request.get("asset"),
                request.get("provenance", ""),
            )
        except Exception as exc:  # the importer's own errors: a sentence on the job, not a crash
            detail = f"{type(exc).__name__}: {exc}"
            # bpy.ops reports a MemoryError raised inside the importer as a RuntimeError with its text.
            kind = "memory" if isinstance(exc, MemoryError) or "MemoryError" in detail else "import"
            say({"ok": False, "error": kind, "detail": detail[-500:]})
        else:
            seconds = time.perf_counter() - started
            say({"ok": True, "seconds": seconds, "peak_rss": peak_resident(), **finished})


def preload_importer() -> None:
    """Load the glTF importer's modules (and numpy) now, so the first mesh is as quick as the next
    and the memory ceiling measures meshes, not module loading."""
    import numpy  # noqa: F401

    for package in ("io_scene_gltf2.io.imp", "io_scene_gltf2.blender.imp"):
        try:
            found = importlib.import_module(package)
        except ImportError:
            continue
        for info in pkgutil.iter_modules(found.__path__, f"{package}."):
            with contextlib.suppress(Exception):
                importlib.import_module(info.name)


def say(message: dict[str, Any]) -> None:
    # A leading newline: Blender may have left half a line in the same stream.
    sys.stdout.write(f"\n{MARK}{json.dumps(message)}\n")
    sys.stdout.flush()


def limit_address_space(ceiling: int) -> None:
    """Linux: cap the address space at today's plus what is left under the ceiling.

    An allocation past it fails (Python: MemoryError; Blender's allocator: a crash the parent
    reports). Elsewhere RLIMIT_AS is missing or not enforced (macOS), and the parent's watchdog,
    which polls resident memory on every OS, is the limit.
    """
    if ceiling <= 0 or not sys.platform.startswith("linux"):
        return
    import resource

    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as statm:
        size, resident = (int(field) * page for field in statm.read().split()[:2])
    limit = size + max(ceiling - resident, 0)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def peak_resident() -> int:
    """This process's peak resident memory in bytes (0 where the OS does not say)."""
    try:
        import resource
    except ImportError:
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def watch_parent() -> None:
    """POSIX: end at once when the parent dies, even mid-import (stdin only closes between meshes)."""
    if os.name != "posix":
        return
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main(argv: list[str]) -> int:
    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    if len(args) != 2 or args[0] != "--memory-limit" or not args[1].isdigit():
        sys.stderr.write("usage: main.py -- --memory-limit BYTES\n")
        return 2
    serve(int(args[1]))
    return 0
