"""Work Kiln leaves for Blender's next tick outlives a file load: Kiln registers before the file an
artist opens from the command line or a file manager is loaded (the translations handed over and the
engine started on the first tick were lost with a timer Blender dropped)."""

from __future__ import annotations

from typing import Any


def test_a_deferred_call_and_a_followed_work_outlive_a_file_load(blender: Any, kiln_module: Any) -> None:
    main_thread = kiln_module("main_thread")
    called: list[object] = []

    def deferred() -> None:
        called.append("deferred")

    main_thread.later(deferred)
    before = set(main_thread._followed)
    main_thread.follow("file-load-probe", lambda: "outcome", called.append)
    (check,) = main_thread._followed - before
    try:
        blender.ops.wm.read_homefile(use_empty=True)
        assert blender.app.timers.is_registered(main_thread._soon[deferred])
        assert blender.app.timers.is_registered(check)
    finally:
        main_thread.cancel(deferred)
        main_thread._followed.discard(check)
        if blender.app.timers.is_registered(check):
            blender.app.timers.unregister(check)
