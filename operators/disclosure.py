"""The project's AI disclosure report: ``bpy.ops.kiln.disclosure_report(filepath=…, library=False)``.

The work is ``session.disclosure``: the rows are read here, the files written by a worker (in
background mode before the operator returns, so a script can read them at once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, StringProperty

from ..api.words import catalogue as words
from ..main_thread import follow
from ..session.blocking import blocks
from ..session.messenger import announce, refuse, tell

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult


class KILN_OT_disclosure_report(bpy.types.Operator):
    """Write a table of every result Kiln made in this file, as CSV and HTML, for a store's AI disclosure"""

    bl_idname = "kiln.disclosure_report"
    bl_label = words.OP_DISCLOSURE_REPORT.name
    bl_description = words.OP_DISCLOSURE_REPORT.tip
    bl_options = {"REGISTER"}

    filepath: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_DISCLOSURE_FILE.name, description=words.ARG_DISCLOSURE_FILE.tip, subtype="FILE_PATH"
    )
    library: BoolProperty(  # type: ignore[valid-type]
        name=words.ARG_DISCLOSURE_LIBRARY.name, description=words.ARG_DISCLOSURE_LIBRARY.tip, default=False
    )
    filter_glob: StringProperty(default="*.csv;*.html", options={"HIDDEN"})  # type: ignore[valid-type]

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if self.filepath.strip():
            return self.execute(context)
        stem = bpy.data.filepath[: -len(".blend")] if bpy.data.filepath.endswith(".blend") else "untitled"
        self.filepath = f"{stem}-ai-disclosure.csv"
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        if not self.filepath.strip():
            return refuse(self, words.DISCLOSURE_CHOOSE_FILE)
        from ..session import disclosure  # loaded by the first report: most sessions write none

        found = disclosure.file_rows(context)
        if self.library:
            found += disclosure.library_rows(context)
        filepath = self.filepath.strip()
        work = disclosure.writer(context, filepath, found)
        if not blocks(self):
            follow("disclosure", work, lambda written: announce(*disclosure.outcome(filepath, written)))
            return {"FINISHED"}
        level, what = disclosure.outcome(filepath, work())
        if level == "ERROR":
            return refuse(self, what)
        tell(self, level, what)
        return {"FINISHED"}


classes = (KILN_OT_disclosure_report,)
