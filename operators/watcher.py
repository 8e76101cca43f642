"""The watcher: a modal operator whose timer applies what the workers did, on the main thread.

Each tick drains the engine's events (never waiting), imports at most one finished job,
and tags the Sidebar for redraw. It ends itself when no job is active and nothing waits to
be imported, and is started again on submit, after a file load, and when Blender starts
with unfinished jobs. Timers never fire in background mode; there the operators call
``import_ready`` themselves after waiting.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import bpy
from bpy.app.handlers import persistent

from .. import preferences
from ..api.jobs import Job, JobEngine, JobState
from ..panels.widgets import tag_redraw
from ..registration import classes_factory
from . import layout, runtime
from .scene_import import ImportFailed, import_job

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult
    from bpy.stub_internal.rna_enums import WmReportItems

Report = tuple["WmReportItems", str]

log = logging.getLogger(__name__)

TICK_SECONDS = 0.25
UNEXPECTED_ERROR = "Kiln hit an unexpected error while updating jobs; see the system console"

_timer: bpy.types.Timer | None = None
_running = False
_announcements: list[Report] = []


def _importable_here(job: Job) -> bool:
    return job.state is JobState.READY and job.origin == runtime.current_origin()


def _next_import(engine: JobEngine, auto_import: bool) -> Job | None:
    """The next job the watcher imports on its own: finished, from this file, auto-import on."""
    return engine.ready_for(runtime.current_origin()) if auto_import else None


def import_one(context: bpy.types.Context, job: Job) -> Report:
    """Import a ready job and record the outcome; returns what the status bar should say."""
    engine = runtime.engine(context)
    try:
        names = import_job(context, job)
    except ImportFailed as exc:
        engine.mark_failed(job.id, str(exc))
        return "ERROR", f"Kiln: {exc}"
    layout.place(context, job.id, names)
    if not bpy.app.background:
        # One undo step for the whole import (the importer, called from Python, pushes none).
        bpy.ops.ed.undo_push(message=f"Kiln: import {job.request.label[:40]}")
    engine.mark_imported(job.id, names)
    return "INFO", f"Kiln: “{job.request.label[:40]}” is in the scene ({job.triangles or 0:,} triangles)"


def announce(level: WmReportItems, message: str) -> None:
    """Put a sentence in the status bar from code with no operator to report through (timers)."""
    _announcements.append((level, message))
    ensure_running()


def tick(context: bpy.types.Context) -> list[Report]:
    """One watcher step; returns what the status bar should say."""
    messages: list[Report] = _announcements[:]
    _announcements.clear()
    engine = runtime.engine_if_started()
    if engine is None:
        return messages
    # Settings may have changed (key, URL, online access turned on): workers pick them up.
    engine.configure(preferences.service_config(context))
    events = engine.drain_events()
    auto_import = preferences.get(context).auto_import
    for event in events:
        if event.state in (JobState.FAILED, JobState.OUTCOME_UNKNOWN, JobState.TIMED_OUT) and event.message:
            messages.append(("WARNING", f"Kiln: {event.message}"))
        elif event.state is JobState.READY:
            job = engine.get(event.job_id)
            if job is not None and not (auto_import and _importable_here(job)):
                messages.append(
                    ("INFO", f"Kiln: “{job.request.label[:40]}” is ready: press Import in the Kiln panel")
                )
    ready = _next_import(engine, auto_import)
    if ready is not None:
        messages.append(import_one(context, ready))
    if events or messages:
        tag_redraw()
    return messages


def import_ready(context: bpy.types.Context, job_ids: list[str] | None = None) -> None:
    """Background mode: import this Blender's finished jobs (or just ``job_ids``), from any file."""
    engine = runtime.engine(context)
    engine.drain_events()
    for job in engine.own_jobs() if job_ids is None else engine.jobs():
        if job.state is JobState.READY and (job_ids is None or job.id in job_ids):
            import_one(context, job)


def is_idle() -> bool:
    engine = runtime.engine_if_started()
    if engine is None:
        return True
    return not engine.has_active() and _next_import(engine, preferences.get().auto_import) is None


class KILN_OT_watch_jobs(bpy.types.Operator):
    """Keep Kiln's jobs moving: apply progress, import finished meshes"""

    bl_idname = "kiln.watch_jobs"
    bl_label = "Watch Kiln Jobs"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        global _timer, _running
        if _running or bpy.app.background or context.window is None:
            return {"CANCELLED"}
        _running = True
        wm = context.window_manager
        _timer = wm.event_timer_add(TICK_SECONDS, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        if not _running:
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        try:
            reports = tick(context)
        except Exception:
            # Never let one bad tick end the watcher for the session: log it, say so, start again.
            log.exception("Kiln's job watcher hit an unexpected error")
            self.report({"ERROR"}, UNEXPECTED_ERROR)
            stop()
            schedule_start()
            return {"CANCELLED"}
        for level, message in reports:
            self.report({level}, message)
        if is_idle():
            stop()
            return {"FINISHED"}
        return {"PASS_THROUGH"}


def stop() -> None:
    """End the watcher and remove its timer (also on unregister)."""
    global _timer, _running
    if _timer is not None and bpy.context.window_manager is not None:
        bpy.context.window_manager.event_timer_remove(_timer)
    _timer, _running = None, False


def ensure_running() -> None:
    """Start the watcher if it is not running; safe from any main-thread context."""
    if _running or bpy.app.background:
        return
    wm = bpy.context.window_manager
    if wm is None or not wm.windows:
        return
    window = bpy.context.window or wm.windows[0]
    with bpy.context.temp_override(window=window):
        bpy.ops.kiln.watch_jobs()  # type: ignore[attr-defined]


def _start_later() -> None:
    """Timer callback: handlers and register() run where no window is at hand yet."""
    if not is_idle():
        ensure_running()


def schedule_start() -> None:
    if not bpy.app.timers.is_registered(_start_later):
        bpy.app.timers.register(_start_later, first_interval=0.5)


@persistent
def _on_load_post(*_args: object) -> None:
    global _running, _timer
    # A file load ends every modal operator; the timer went with the old window manager.
    _running, _timer = False, None
    runtime.file_loaded()
    schedule_start()


@persistent
def _on_save_post(*_args: object) -> None:
    runtime.file_saved()


classes = (KILN_OT_watch_jobs,)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    _register_classes()
    bpy.app.handlers.load_post.append(_on_load_post)
    bpy.app.handlers.save_post.append(_on_save_post)
    if not bpy.app.background:
        runtime.try_engine()  # a folder that cannot hold the job list is said when an operator runs
        schedule_start()


def unregister() -> None:
    stop()
    if bpy.app.timers.is_registered(_start_later):
        bpy.app.timers.unregister(_start_later)
    for handlers, fn in (
        (bpy.app.handlers.load_post, _on_load_post),
        (bpy.app.handlers.save_post, _on_save_post),
    ):
        if fn in handlers:
            handlers.remove(fn)
    _unregister_classes()
    runtime.shutdown()
