"""The one decision between blocking and interactive, for every Kiln operator (bl_pkg's ``_is_modal``).

Background mode (``blender -b``) has no event loop: no timer fires, so nothing would import a job
once the operator returned. There an operator does its whole work before it returns, waiting is
fine (there is no UI), and nobody can be asked a question. With a window, an operator returns at
once and the watcher follows the work, even when a script in the Python console called it: the UI
thread never waits on the network. (bl_pkg also blocks for an operator called without invoke; Kiln
cannot, because its work lasts minutes, not seconds.)
"""

from __future__ import annotations

import bpy


def blocks(op: bpy.types.Operator | None = None) -> bool:
    """Whether ``op`` finishes its work before returning; an operator with a ``wait`` argument
    called with ``wait=False`` returns at once even in background mode (``kiln.wait_jobs`` later).
    Without an operator: whether this Blender runs without an event loop, so nothing can wait for
    later and nobody can be asked."""
    if has_event_loop():
        return False
    return bool(getattr(op, "wait", True))


def has_event_loop() -> bool:
    """Whether a timer fires later here (a window's Blender): work handed to a thread can come back
    to the main thread. In background mode it cannot, whatever the operator's ``wait``."""
    return not bpy.app.background
