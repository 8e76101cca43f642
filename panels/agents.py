"""The Agents panel (shown while Kiln's agent server runs) and the mark an agent's job carries in the
job list: who is connected, what each has spent of its budget, and Disconnect."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from .. import agents, language
from ..api.words import catalogue as words
from ..drawing import fit, wrapped_label

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

    from ..api.agents import SessionView
    from ..api.jobs import Job

#: An agent, in this panel and on its jobs' rows.
AGENT_ICON: IconItems = "CONSOLE"


class KILN_PT_agents(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_AGENTS

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        from ..api.agents import status as agent_status  # loaded by the first draw, not at registration

        return agent_status.current.running

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        connected = agents.serving.sessions()
        if not connected:
            from ..api.agents import status as agent_status

            said = language.text(words.AGENTS_WAITING, port=agent_status.current.port)
            wrapped_label(layout, context, said, icon="LINKED")
            return
        wrapped_label(layout, context, language.text(words.AGENTS_CONNECTED, n=len(connected)), icon="LINKED")
        for session in sorted(connected, key=lambda s: s.started):
            _draw_session(layout.box().column(align=True), context, session)
        layout.operator("kiln.disconnect_agents", icon="UNLINKED")


def _draw_session(col: bpy.types.UILayout, context: bpy.types.Context, session: SessionView) -> None:
    spent = session.spending
    col.label(text=fit(context, session.agent, icon=True, boxes=1), icon=AGENT_ICON)
    lines = [
        language.text(words.AGENT_SPENT_CREDITS, spent=spent.credits, n=spent.limits.credits),
        language.text(words.AGENT_STARTED_JOBS, started=spent.jobs, n=spent.limits.jobs),
    ]
    if spent.unpriced_jobs:
        lines.append(language.text(words.AGENT_UNPRICED_JOBS, n=spent.unpriced_jobs))
    for line in lines:
        wrapped_label(col, context, line, icon="BLANK1", boxes=1)


def mark(job: Job) -> IconItems | None:
    """The icon an agent's job carries in its row, or None for the artist's own."""
    return AGENT_ICON if job.request.agent else None


def draw_asked_by(layout: bpy.types.UILayout, context: bpy.types.Context, job: Job) -> None:
    """The line in a job's details that says an agent asked for it."""
    if job.request.agent:
        said = language.text(words.AGENT_ASKED_FOR, agent=job.request.agent)
        wrapped_label(layout, context, said, icon=AGENT_ICON, boxes=1)


classes = (KILN_PT_agents,)
