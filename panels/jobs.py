"""The Jobs panel: every job, newest first, with what it is doing and what can be done to it.

Its rows mirror the engine's job ids (``session.job_rows``). Drawing may not write data, so when the
draw sees the rows behind the engine it asks a one-shot ``bpy.app.timers`` callback to resync them
right after; no timer runs while nothing changes. What only a drawn job needs (the job model, its
words, thumbnails, quality line) loads with the first job drawn, not when Kiln registers.
"""

from __future__ import annotations

import fnmatch
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy

from .. import preferences
from ..api.services import info
from ..api.words import Message
from ..api.words import catalogue as words
from ..drawing import (
    LIST_INSET_UNITS,
    button_rows,
    buttons_row,
    fit,
    text_room,
    unit,
    wrapped_label,
)
from ..language import said, text
from ..main_thread import cancel, later
from ..service_choices import service_words
from ..session import job_rows, results_here, runtime, spending, watcher
from . import agents

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

    from ..api.jobs import Job, JobState


@functools.cache
def state_icons() -> dict[JobState, IconItems]:
    """Each state's icon in the list (made by the first job drawn)."""
    from ..api.jobs import JobState

    return {
        JobState.SUBMITTING: "EXPORT",
        JobState.QUEUED: "SORTTIME",
        JobState.RUNNING: "PLAY",
        JobState.DOWNLOADING: "IMPORT",
        JobState.READY: "PACKAGE",
        JobState.IMPORTED: "CHECKMARK",
        JobState.FAILED: "ERROR",
        JobState.CANCELLED: "CANCEL",
        JobState.OUTCOME_UNKNOWN: "QUESTION",
        JobState.TIMED_OUT: "TIME",
    }


PREVIEW_SCALE = 6.0
LIST_ROWS = 4
#: Share of a list row an active job's name takes; its progress bar takes the rest.
NAME_SHARE = 0.7
#: Below this room for the name (widget units), an active job's row shows the name alone.
MIN_NAME_UNITS = 4.0
ELSEWHERE_ICON: IconItems = "LINKED"
#: An imported job whose result is not in the open file (imported into another one).
IMPORTED_ELSEWHERE_ICON: IconItems = "FILE_BLEND"


#: The last filter result, with what it was computed from.
_filtered: tuple[tuple[Any, ...], list[int]] | None = None


def _sync_later() -> None:
    """One-shot timer: resync the rows outside drawing, drop thumbnails of removed jobs, redraw."""
    from . import thumbnails

    if job_rows.sync_now(bpy.context.window_manager):
        thumbnails.forget_jobs_except({job.id for job in job_rows.jobs()})
        watcher.redraw_now()


def _thumbnail(job: Job) -> int | None:
    from . import thumbnails

    return thumbnails.job_icon(job.id, job.preview_path) if job.preview_path else None


def _draw_row(
    layout: bpy.types.UILayout, context: bpy.types.Context, job: Job, thumb: int | None, *, elsewhere: bool
) -> None:
    """One line a row: the name, shortened in the middle to what fits (the details show all of it),
    with the state's icon; an active job's progress bar beside it while there is room."""
    from ..ui_text import progress_text

    agent = agents.mark(job)  # an agent asked for it
    fixed = float(elsewhere) + float(agent is not None)  # icons after the name
    with_bar = job.state.is_active
    if with_bar:
        name_room = text_room(
            context, share=NAME_SHARE, icon=True, inset_units=LIST_INSET_UNITS, fixed_units=fixed
        )
        with_bar = name_room is None or name_room >= MIN_NAME_UNITS * unit(context)
    row = layout.split(factor=NAME_SHARE) if with_bar else layout
    name_row = row.row(align=True) if with_bar else row
    share = NAME_SHARE if with_bar else 1.0
    name = fit(
        context, job.request.label, share=share, icon=True, inset_units=LIST_INSET_UNITS, fixed_units=fixed
    )
    if thumb is None:
        name_row.label(text=name, icon=_state_icon(job))
    else:
        name_row.label(text=name, icon_value=thumb)
    if elsewhere:
        name_row.label(text="", icon=ELSEWHERE_ICON)  # another Blender works on it
    if agent is not None:
        name_row.label(text="", icon=agent)
    if with_bar:
        shown = fit(
            context,
            said(progress_text(job)),
            text(words.BAR_PERCENT, percent=f"{job.progress:.0f}"),
            share=1.0 - NAME_SHARE,
            inset_units=LIST_INSET_UNITS,
        )
        row.progress(factor=job.progress / 100.0, type="BAR", text=shown)


class KILN_UL_jobs(bpy.types.UIList):
    """Kiln's jobs, newest first"""

    def draw_item(
        self,
        context: bpy.types.Context,
        layout: bpy.types.UILayout,
        data: Any | None,
        item: Any | None,
        icon: int | None,
        active_data: Any,
        active_property: str | None,
        index: int | None = 0,
        flt_flag: int | None = 0,
    ) -> None:
        engine = runtime.engine_if_started()
        job = engine.get(item.job_id) if engine is not None else None
        if job is None:
            return
        thumb = _thumbnail(job)
        if self.layout_type == "GRID":
            if thumb is None:
                layout.label(text="", icon=state_icons()[job.state])
            else:
                layout.label(text="", icon_value=thumb)
            return
        _draw_row(layout, context, job, thumb, elsewhere=engine is not None and bool(engine.where(job)))

    def filter_items(  # type: ignore[override]
        self, context: bpy.types.Context, data: Any | None, property: str
    ) -> tuple[list[int], list[int]]:
        """The rows the filter buttons and the search box let through (already in newest-first order).

        Worked out again only when a job, the filter or the search text changed.
        """
        global _filtered
        from ..ui_text import shown_by_filter

        engine = runtime.engine_if_started()
        mirror, mirror_roster = job_rows.mirrored()
        rows = getattr(data, property)
        name, chosen = self.filter_name.lower(), data.kiln_job_filter
        key = (
            engine.standing if engine else -1,
            mirror_roster,
            len(rows),
            name,
            chosen,
            self.bitflag_filter_item,
        )
        if _filtered is not None and _filtered[0] == key:
            return list(_filtered[1]), []
        ids = mirror if len(mirror) == len(rows) else [row.job_id for row in rows]
        jobs = {job.id: job for job in job_rows.jobs()}
        pattern = f"*{name}*"
        flags = []
        for job_id in ids:
            job = jobs.get(job_id)
            shown = (
                job is not None
                and shown_by_filter(job.state, chosen)
                and (not name or fnmatch.fnmatchcase(job.request.label[:64].lower(), pattern))
            )
            flags.append(self.bitflag_filter_item if shown else 0)
        _filtered = (key, flags)
        return list(flags), []


class KILN_PT_jobs(bpy.types.Panel):
    """Every Kiln job of this computer, newest first"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_JOBS

    def draw(self, context: bpy.types.Context) -> None:
        layout, wm = self.layout, context.window_manager
        assert layout is not None and wm is not None
        roster = job_rows.roster()
        jobs = job_rows.jobs()
        if job_rows.behind(wm, roster):
            later(_sync_later)
        watcher.sidebar_drawn()
        _draw_store_problems(layout, context)
        if not jobs:  # what to press first: Generate, or a service while none is chosen
            empty = words.NO_JOBS_YET if preferences.chosen_service(context) else words.NO_JOBS_NO_SERVICE
            wrapped_label(layout, context, text(empty), icon="INFO")
            return
        layout.row().prop(wm, "kiln_job_filter", expand=True)
        layout.template_list("KILN_UL_jobs", "", wm, "kiln_jobs", wm, "kiln_job_index", rows=LIST_ROWS)
        active = _active_job(wm)
        if active is not None:
            _draw_details(layout.box(), context, active)
        clear, add = text(words.OP_CLEAR_FINISHED.name), text(words.OP_ADD_BY_ID.name)
        row = buttons_row(layout, context, clear, add)
        row.operator("kiln.clear_finished", text=clear, icon="TRASH")
        by_id = row.row()  # greyed out where the service cannot be asked by id (its tooltip says why)
        by_id.enabled = info(preferences.chosen_service(context)).capabilities.follows_by_id
        by_id.operator("kiln.resume_task", text=add, icon="RECOVER_LAST")
        layout.operator("kiln.disclosure_report", text=text(words.OP_DISCLOSURE_REPORT.name), icon="TEXT")
        credits_line = spending.spending_line()
        if credits_line:
            wrapped_label(layout, context, credits_line)


def service_label(job: Job) -> str:
    """The name of the service the job went to, as the service menu says it (a brand, or "Custom
    Service" in the artist's language)."""
    return service_words(job.request.service_id)[0]


def _state_icon(job: Job) -> IconItems:
    from ..api.jobs import JobState

    if job.state is JobState.IMPORTED and not results_here.is_here(job):
        return IMPORTED_ELSEWHERE_ICON
    return state_icons()[job.state]


def _status(job: Job) -> str:
    """The job's state in words; for an imported job, where its result is."""
    from ..ui_text import status_text

    return said(status_text(job, here=results_here.is_here(job), origin=runtime.current_origin()))


def _draw_store_problems(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    """Damage found in the job list (and where its backup is), or disk trouble: shown until a restart."""
    engine = runtime.engine_if_started()
    problems = engine.store_problem_messages() if engine is not None else []
    if not problems:
        return
    box = layout.box().column()
    for problem in problems:
        sentence = box.column()
        sentence.alert = True
        wrapped_label(sentence, context, said(problem), icon="ERROR", boxes=1)
        draw_show_file(box, problem)
        copy_folder = problem.values.get("copy_folder")
        if isinstance(copy_folder, str):  # where Kiln kept the damaged list's copy
            box.operator(
                "wm.path_open", text=text(words.SHOW_COPY), icon="FILE_FOLDER"
            ).filepath = copy_folder


def draw_show_file(layout: bpy.types.UILayout, problem: Message | None) -> None:
    """The button that opens the folder of the file a sentence names (a file in a folder's way)."""
    values = problem.values if problem is not None else {}
    if isinstance(values.get("folder"), str) and isinstance(values.get("name"), str):
        label = text(words.SHOW_FILE, name=values["name"])
        layout.operator("wm.path_open", text=label, icon="FILE_FOLDER").filepath = values["folder"]


def _active_job(wm: bpy.types.WindowManager) -> Job | None:
    rows, index = wm.kiln_jobs, wm.kiln_job_index  # type: ignore[attr-defined]
    if not 0 <= index < len(rows):
        return None
    engine = runtime.engine_if_started()
    return engine.get(rows[index].job_id) if engine is not None else None


def _draw_details(layout: bpy.types.UILayout, context: bpy.types.Context, job: Job) -> None:
    """The active job in full: big thumbnail, progress or outcome, the error sentence, its actions."""
    from ..session.quality_report import job_report
    from ..ui_text import progress_sentence, progress_text, triangles_text
    from . import quality

    col = layout.column()
    thumb = _thumbnail(job)
    if thumb is not None:
        col.template_icon(icon_value=thumb, scale=PREVIEW_SCALE)
    wrapped_label(col, context, job.request.label, icon=_state_icon(job), boxes=1)
    wrapped_label(col, context, text(words.JOB_SENT_TO, service=service_label(job)), icon="WORLD", boxes=1)
    if job.state.is_active:
        # The bar carries a few words; why the job waits goes below it, whole.
        bar = fit(context, said(progress_text(job)), boxes=1)
        col.progress(factor=job.progress / 100.0, type="BAR", text=bar)
        sentence = progress_sentence(job)
        if sentence is not None:
            wrapped_label(col, context, said(sentence), icon="INFO", boxes=1)
    else:
        wrapped_label(col, context, _status(job), boxes=1)
        triangles = triangles_text(job)
        if triangles is not None and job_report(job) is None:  # else the quality line says them
            wrapped_label(col, context, said(triangles), boxes=1)
    if job.error:
        alert = col.column()
        alert.alert = True
        error = said(job.error_message) if job.error_message is not None else job.error
        wrapped_label(alert, context, error, icon="ERROR", boxes=1)
        draw_show_file(col, job.error_message)
    elif job.note and not job.state.is_active:
        note = said(job.note_message) if job.note_message is not None else job.note
        wrapped_label(col, context, note, icon="INFO", boxes=1)
    quality.draw_quality(col, context, job)
    _draw_fidelity(col, context, job)
    agents.draw_asked_by(col, context, job)
    engine = runtime.engine_if_started()
    where = engine.where(job) if engine is not None else None
    if where is not None:
        wrapped_label(col, context, said(where), icon=ELSEWHERE_ICON, boxes=1)
    _draw_actions(layout, context, job, elsewhere=engine is not None and engine.runs_elsewhere(job))


def _draw_fidelity(layout: bpy.types.UILayout, context: bpy.types.Context, job: Job) -> None:
    """How well an image job's mesh matches its image, in words, once the mesh is here."""
    from ..api.checks import fidelity
    from ..api.jobs import JobKind, JobState

    if JobKind(job.request.kind) is not JobKind.IMAGE or job.state not in (JobState.READY, JobState.IMPORTED):
        return
    entry = fidelity.words_for(job.fidelity)
    poor = job.fidelity is not None and job.fidelity < fidelity.FAIR
    sentence = text(entry, percent=round((job.fidelity or 0.0) * 100))
    wrapped_label(layout, context, sentence, icon="ERROR" if poor else "IMAGE_DATA", boxes=1)


def _draw_actions(
    layout: bpy.types.UILayout, context: bpy.types.Context, job: Job, *, elsewhere: bool = False
) -> None:
    """``elsewhere``: another Blender works on the job, so only what it allows is offered (Import)."""
    from ..api.jobs import JobState
    from ..api.jobs.service_side import cancels_on_service, resumable

    has_mesh = job.state in (JobState.READY, JobState.IMPORTED) and bool(job.mesh_path)
    has_mesh = has_mesh and Path(job.mesh_path).is_file()
    first: list[tuple[str, str, IconItems]] = []
    if has_mesh:
        label = words.OP_IMPORT.name if job.state is JobState.READY else words.IMPORT_AGAIN
        first.append(("kiln.import_job", text(label), "IMPORT"))
    if job.state.is_active:
        if not elsewhere:  # a cancel where the service has one; else Kiln stops waiting (it may still charge)
            stop = words.OP_CANCEL_ON_SERVICE if cancels_on_service(job) else words.OP_STOP_WAITING
            first.append(("kiln.cancel_job", text(stop.name), "CANCEL"))
    else:
        if resumable(job):
            first.append(("kiln.resume_job", text(words.OP_RESUME.name), "RECOVER_LAST"))
        first.append(("kiln.retry_job", text(words.OP_RETRY.name), "FILE_REFRESH"))
    if first:
        remove = not job.state.is_active
        rows = button_rows(layout, context, *(t for _op, t, _icon in first), boxes=1, icons=int(remove))
        for row, (idname, label, icon) in zip(rows, first, strict=False):
            row.operator(idname, text=label, icon=icon).job_id = job.id
        if remove:
            rows[-1].operator("kiln.remove_job", text="", icon="X").job_id = job.id
    second: list[tuple[str, str, IconItems]] = []
    if has_mesh:
        second.append(("kiln.export_job", text(words.OP_EXPORT.name), "EXPORT"))
    second.append(("kiln.copy_details", text(words.OP_COPY_DETAILS.name), "COPYDOWN"))
    rows = button_rows(layout, context, *(t for _op, t, _icon in second), boxes=1, icons=1)
    for row, (idname, label, icon) in zip(rows, second, strict=False):
        row.operator(idname, text=label, icon=icon).job_id = job.id
    rows[-1].operator("kiln.open_cache_folder", text="", icon="FILE_FOLDER")


classes = (KILN_UL_jobs, KILN_PT_jobs)


def unregister() -> None:
    """Drop a pending resync."""
    cancel(_sync_later)
