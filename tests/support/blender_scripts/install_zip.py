"""Run in a fresh Blender (bpy module): install the built zip, then disable and re-enable it.

Exits non-zero with a sentence on the first thing that is wrong; the parent test reads it.
"""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path

import bpy

MODULE = "bl_ext.user_default.kiln"


def kiln_classes() -> list[type]:
    addon = sys.modules[MODULE]
    return [
        *addon.preferences.classes,
        *addon.operators.classes,
        *addon.panels.classes,
    ]


def leftovers() -> list[str]:
    found = [name for name in dir(bpy.types) if name.startswith(("KILN_", "KilnPreferences"))]
    for name in dir(bpy.app.handlers):
        handlers = getattr(bpy.app.handlers, name)
        if isinstance(handlers, list):
            found += [f"handler {fn.__name__}" for fn in handlers if fn.__module__.startswith(MODULE)]
    found += [f"thread {t.name}" for t in threading.enumerate() if t.name.startswith("kiln")]
    if MODULE in bpy.context.preferences.addons:
        found.append("add-on still enabled")
    return found


def main() -> None:
    zip_path = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
    if MODULE not in bpy.context.preferences.addons:
        raise SystemExit(f"{MODULE} is not enabled after install")
    # truststore is vendored inside Kiln: nothing is unpacked into Blender's shared wheel folder.
    context = importlib.import_module(f"{MODULE}.api.http.trust").system_trust()
    if context is None or not type(context).__module__.startswith(f"{MODULE}.api.vendor.truststore"):
        raise SystemExit(f"HTTPS does not use Kiln's vendored truststore: {context!r}")
    local = Path(bpy.utils.user_resource("EXTENSIONS", path=".local"))
    if list(local.glob("lib/python3*/site-packages/truststore")):
        raise SystemExit(f"a truststore wheel was unpacked under {local}")
    classes = kiln_classes()
    missing = [cls.__name__ for cls in classes if not cls.is_registered]
    if missing:
        raise SystemExit(f"not registered: {missing}")
    sys.modules[f"{MODULE}.session.runtime"].engine()
    if not any(t.name.startswith("kiln") for t in threading.enumerate()):
        raise SystemExit("the job engine started no worker thread")
    watcher = sys.modules[f"{MODULE}.session.watcher"]
    batches = importlib.import_module(f"{MODULE}.session.batches")  # loaded by a batch, as here
    jobs_panel = sys.modules[f"{MODULE}.panels.jobs"]
    main_thread = sys.modules[f"{MODULE}.main_thread"]
    watcher.ensure_running()
    session_state = sys.modules[f"{MODULE}.session.state"]
    batches.follow(session_state.FollowedBatch("prompts.txt", [], ""))
    main_thread.later(jobs_panel._sync_later, 60.0)
    main_thread.follow("left-behind", lambda: None, lambda _outcome: None)
    waiting = [*main_thread._soon.values(), *main_thread._followed]
    timers = {"watcher beat": watcher.beat, **{f"deferred call {i}": fn for i, fn in enumerate(waiting)}}
    if len(waiting) < 2 or not all(bpy.app.timers.is_registered(fn) for fn in timers.values()):
        raise SystemExit("the timers to check were not registered")

    bpy.ops.preferences.addon_disable(module=MODULE)
    left = leftovers()
    left += [f"timer {name}" for name, fn in timers.items() if bpy.app.timers.is_registered(fn)]
    left += [] if session_state.current.is_empty() else [f"session state {session_state.current}"]
    if left:
        raise SystemExit(f"left behind after disable: {left}")

    bpy.ops.preferences.addon_enable(module=MODULE)
    if not all(cls.is_registered for cls in kiln_classes()):
        raise SystemExit("classes missing after enabling again")
    print(f"KILN-OK {len(classes)} classes")


main()
