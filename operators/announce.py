"""The status bar's door: ``kiln.announce`` shows the sentences ``session.messenger`` queued."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import StringProperty

from ..api.words import catalogue as words

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult
    from bpy.stub_internal.rna_enums import WmReportItems

_LEVELS: dict[str, WmReportItems] = {"INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR"}


class KILN_OT_announce(bpy.types.Operator):
    """Show Kiln's sentences in the status bar"""

    # Reports reach the status bar only from an operator the window manager runs itself: those
    # of an operator called from Python (as from a timer) stay with the caller. So this one
    # waits for one event-loop pass (a timer of 0 s), reports there and ends: it lives for
    # milliseconds, never long enough to hold off autosave.

    bl_idname = "kiln.announce"
    bl_label = words.OP_ANNOUNCE.name
    bl_description = words.OP_ANNOUNCE.tip
    bl_options = {"INTERNAL"}

    #: One sentence a line, each after its level: "INFO Kiln: …", "WARNING Kiln: …".
    reports: StringProperty()  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        wm = context.window_manager
        self.timer = wm.event_timer_add(0.0, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        context.window_manager.event_timer_remove(self.timer)
        for line in self.reports.splitlines():
            level, _, message = line.partition(" ")
            self.report({_LEVELS.get(level, "INFO")}, message)
        return {"FINISHED"}

    def cancel(self, context: bpy.types.Context) -> None:
        """Ended before its timer fired (a file load, a closed window): its timer must not outlive it."""
        context.window_manager.event_timer_remove(self.timer)


classes = (KILN_OT_announce,)
