"""The watcher: Kiln's heartbeat, a ``bpy.app.timers`` function that applies what the workers did.

Each beat runs on the main thread and stays bounded: drain the engine's events (never
waiting), import at most one finished job, tag the Sidebar for redraw, hand sentences to the
status bar. It beats every 0.25 s while a job is active or waits to be imported, and once a
second otherwise, so jobs another Kiln hands to this one are still seen.

Why a timer and not a modal operator: Blender postpones autosave while any modal operator
runs, and jobs can run for half an hour. The timer is persistent, so it survives file loads;
it is registered on start and registered again (to beat soon) on submit and after a load.
Timers never fire in background mode; there the operators wait and import themselves
(``operators.common.wait_then_import``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import bpy
from bpy.app.handlers import persistent
from bpy.props import StringProperty

from .. import preferences
from ..api.jobs import Job, JobState
from ..drawing import tag_redraw
from ..registration import classes_factory
from . import layout, library, runtime
from .scene_import import ImportFailed, import_job

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult
    from bpy.stub_internal.rna_enums import WmReportItems

    from ..api.jobs import JobEngine

Report = tuple["WmReportItems", str]

log = logging.getLogger(__name__)

#: Seconds between beats while a job is active or waits to be imported.
BUSY_SECONDS = 0.25
#: Seconds between beats otherwise: cheap, and no job goes unnoticed for long.
IDLE_SECONDS = 1.0
UNEXPECTED_ERROR = "Kiln hit an unexpected error while updating jobs; see the system console"

_announcements: list[Report] = []
_LEVELS: dict[str, WmReportItems] = {"INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR"}


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
    engine.mark_imported(job.id, names, into=runtime.current_origin())
    kept = library.store(context, job, names)
    if kept and not bpy.app.background:  # background mode: library.store has logged it
        announce("WARNING", kept)
    return "INFO", f"Kiln: “{job.request.label[:40]}” is in the scene ({job.triangles or 0:,} triangles)"


def announce(level: WmReportItems, message: str) -> None:
    """Put a sentence in the status bar from code with no operator to report through (timers).

    In background mode there is no status bar and no timer to show it: the sentence goes to the
    console at once, through Kiln's logger at WARNING or above (so the default log level prints
    it, and a pipeline's log has it). It is queued there too, for a tick called directly.
    """
    if bpy.app.background:
        log.log(logging.ERROR if level == "ERROR" else logging.WARNING, "%s", message)
    _announcements.append((level, message))
    ensure_running()


def tick(context: bpy.types.Context) -> list[Report]:
    """One bounded step on the main thread; returns what the status bar should say."""
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


def is_idle() -> bool:
    """Nothing for the watcher to do soon: no active job, none waiting to be imported here."""
    engine = runtime.engine_if_started()
    if engine is None:
        return True
    return not engine.has_active() and _next_import(engine, preferences.get().auto_import) is None


def beat() -> float:
    """The timer function: one tick, its sentences to the status bar, and the wait until the next.

    Never raises: Blender unregisters a timer whose function raises, which would stop every
    job's import for the rest of the session.
    """
    try:
        messages = tick(bpy.context)
        idle = is_idle()
    except Exception:
        log.exception("Kiln's job watcher hit an unexpected error")
        messages, idle = [("ERROR", UNEXPECTED_ERROR)], False
    try:
        _show(messages)
    except Exception:
        log.exception("Kiln could not put a sentence in the status bar")
    return IDLE_SECONDS if idle else BUSY_SECONDS


def _show(messages: list[Report]) -> None:
    """Status bar in the UI (one announcer for the whole beat); the log in background mode."""
    for level, message in messages:
        log.log(logging.WARNING if level in ("WARNING", "ERROR") else logging.INFO, "%s", message)
    wm = bpy.context.window_manager
    if not messages or bpy.app.background or wm is None or not wm.windows:
        return
    lines = "\n".join(f"{level} {' '.join(message.split())}" for level, message in messages)
    with bpy.context.temp_override(window=wm.windows[0]):
        bpy.ops.kiln.announce("INVOKE_DEFAULT", reports=lines)  # type: ignore[attr-defined]


class KILN_OT_announce(bpy.types.Operator):
    """Show Kiln's sentences in the status bar"""

    # Reports reach the status bar only from an operator the window manager runs itself: those
    # of an operator called from Python (as from a timer) stay with the caller. So this one
    # waits for one event-loop pass (a timer of 0 s), reports there and ends: it lives for
    # milliseconds, never long enough to hold off autosave.

    bl_idname = "kiln.announce"
    bl_label = "Kiln Announcement"
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


def ensure_running() -> None:
    """Make the next beat come soon (registering the timer if it is not); safe from any main-thread code."""
    if bpy.app.timers.is_registered(beat):
        bpy.app.timers.unregister(beat)
    bpy.app.timers.register(beat, first_interval=BUSY_SECONDS, persistent=True)


def stop() -> None:
    """Remove the timer (on unregister)."""
    if bpy.app.timers.is_registered(beat):
        bpy.app.timers.unregister(beat)


@persistent
def _on_load_post(*_args: object) -> None:
    runtime.file_loaded()
    # The timer is persistent and outlives the load; registering again makes it beat soon.
    ensure_running()


@persistent
def _on_save_post(*_args: object) -> None:
    runtime.file_saved()


classes = (KILN_OT_announce,)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    _register_classes()
    bpy.app.handlers.load_post.append(_on_load_post)
    bpy.app.handlers.save_post.append(_on_save_post)
    if not bpy.app.background:
        runtime.try_engine()  # a folder that cannot hold the job list is said when an operator runs
    ensure_running()


def unregister() -> None:
    stop()
    _announcements.clear()
    for handlers, fn in (
        (bpy.app.handlers.load_post, _on_load_post),
        (bpy.app.handlers.save_post, _on_save_post),
    ):
        if fn in handlers:
            handlers.remove(fn)
    _unregister_classes()
    runtime.shutdown()
