"""The watcher: Kiln's heartbeat, a ``bpy.app.timers`` function that applies what the workers did.

Each beat runs on the main thread and stays bounded: drain the engine's events (never
waiting), import at most one finished job, conclude a batch whose jobs have all settled, tag the
Sidebar for redraw, hand sentences to the status bar, then the duties rooms above this one gave it
(the agents' calls waiting for the main thread). It beats every 0.25 s while a job is active or
waits to be imported, and once a second otherwise, so jobs another Kiln hands to this one are
still seen; sooner when a duty asks (an agent connected waits on its answers).

Why a timer and not a modal operator: Blender postpones autosave while any modal operator
runs, and jobs can run for half an hour. The timer is persistent, so it survives file loads;
it is registered on start and registered again (to beat soon) on submit and after a load.
Timers never fire in background mode; there the operators wait and import themselves
(``session.launching.wait_then_import``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import bpy
from bpy.app.handlers import persistent

from .. import preferences
from ..api.words import catalogue as words
from ..drawing import tag_redraw
from ..main_thread import later
from . import messenger, runtime
from .blocking import blocks

if TYPE_CHECKING:
    from ..api.jobs import Job, JobEngine
    from .messenger import Report

log = logging.getLogger(__name__)

#: Seconds between beats while a job is active or waits to be imported.
BUSY_SECONDS = 0.25
#: Seconds between beats otherwise: cheap, and no job goes unnoticed for long.
IDLE_SECONDS = 1.0
UNEXPECTED_ERROR = words.WATCHER_UNEXPECTED
#: Seconds between the Sidebar's redraws for what jobs did (a sentence redraws at the next beat): each
#: redraw costs the window a frame (on a laptop without a GPU, a tenth of a second), and a service is
#: asked every 2-3 s, so its news comes no faster; changes that come together are drawn together.
REDRAW_SECONDS = 2.0

#: Work rooms above this one do on each beat, on the main thread (the agents' calls): each returns
#: how many seconds it wants at most until the next beat, or None when it does not mind.
Duty = Callable[[], float | None]
_duties: list[Duty] = []


def add_duty(duty: Duty) -> None:
    if duty not in _duties:
        _duties.append(duty)


def remove_duty(duty: Duty) -> None:
    if duty in _duties:
        _duties.remove(duty)


def _do_duties() -> list[float]:
    """Each duty once; how soon they want the next beat. A duty that raises is logged and skipped."""
    soon = []
    for duty in list(_duties):
        try:
            seconds = duty()
        except Exception:
            log.exception(
                "Kiln's job watcher hit an unexpected error in %s", getattr(duty, "__qualname__", duty)
            )
            continue
        if seconds is not None:
            soon.append(seconds)
    return soon


class _Redraws:
    """When the Sidebar is asked to draw again for what jobs did: a change at once when the Sidebar was
    last drawn REDRAW_SECONDS ago or more (for whatever reason: a click, the mouse), else with the
    changes that follow it once that time is up; a sentence at once."""

    def __init__(self) -> None:
        self.waiting = False
        self.last = 0.0

    def after(self, changed: bool, said: bool) -> None:
        self.waiting = self.waiting or changed
        if said or (self.waiting and time.monotonic() - self.last >= REDRAW_SECONDS):
            self.now()

    def now(self) -> None:
        tag_redraw()
        self.drawn()

    def drawn(self) -> None:
        """The Sidebar drew what jobs are now: nothing waits."""
        self.waiting, self.last = False, time.monotonic()


_redraws = _Redraws()


def redraw_now() -> None:
    """Redraw the Sidebar at once (its rows came or went); what jobs do next waits its turn."""
    _redraws.now()


def sidebar_drawn() -> None:
    """The Jobs panel was drawn (so it shows what jobs are now): the next redraw asked for them waits."""
    _redraws.drawn()


def _importable_here(job: Job) -> bool:
    from ..api.jobs import JobState

    return job.state is JobState.READY and job.origin == runtime.current_origin()


def _next_import(engine: JobEngine, auto_import: bool) -> Job | None:
    """The next job the watcher imports on its own: finished, from this file, auto-import on."""
    return engine.ready_for(runtime.current_origin()) if auto_import else None


def import_one(context: bpy.types.Context, job: Job) -> Report:
    """Import a ready job and record the outcome; returns what the status bar should say.

    The job's fix-ups and outputs are read once here and handed down: the import (finished in
    place where no helper could) and the library's copy (which the helper finishes alike).
    """
    # Loaded with the first job that lands, not when the add-on registers.
    from ..api.features.quality.options import GameOptions
    from . import image_variants, library_store
    from .scene_import import ImportFailed, import_job

    engine = runtime.engine(context)
    game = GameOptions.from_text(job.request.game)
    try:
        names = import_job(context, job, game)
    except ImportFailed as exc:
        engine.mark_failed(job.id, exc.message)
        return "ERROR", messenger.sentence(exc.message)
    engine.mark_imported(job.id, names, into=runtime.current_origin())
    image_variants.rank_variants(context, job, names)
    unlike = image_variants.unlike_its_image(job)
    if unlike is not None:
        messenger.announce("WARNING", words.FIDELITY_POOR, percent=unlike)
    kept = library_store.store(context, job, names, game)
    if kept is not None:
        messenger.announce("WARNING", kept, logged=True)  # library_store.store has logged it
    if job.triangles:
        return "INFO", messenger.sentence(
            words.IMPORTED_WITH_TRIANGLES, name=job.request.label, n=job.triangles
        )
    return "INFO", messenger.sentence(words.IMPORTED_ONE, name=job.request.label)


def tick(context: bpy.types.Context) -> list[Report]:
    """One bounded step on the main thread; returns what the status bar should say."""
    # Loaded by the first beat, not at registration.
    from ..api.jobs import JobState
    from . import balances, state

    messages = messenger.take()
    engine = runtime.engine_if_started()
    if engine is None:
        return messages
    # Settings may have changed (key, URL, online access turned on): workers pick them up.
    engine.configure(preferences.service_config(context))
    events = engine.drain_events()
    auto_import = preferences.get(context).auto_import
    for event in events:
        if event.state in (JobState.READY, JobState.FAILED):  # what it cost shows in the balance left
            settled = engine.get(event.job_id)
            if settled is not None:
                balances.ask_again(context, settled.request.service_id)
        if event.state in (JobState.FAILED, JobState.OUTCOME_UNKNOWN, JobState.TIMED_OUT) and event.message:
            messages.append(("WARNING", messenger.sentence(event.message)))
        elif event.state is JobState.READY:
            job = engine.get(event.job_id)
            if job is not None and not (auto_import and _importable_here(job)):
                messages.append(
                    ("INFO", messenger.sentence(words.READY_PRESS_IMPORT, name=job.request.label))
                )
    ready = _next_import(engine, auto_import)
    if ready is not None:
        messages.append(import_one(context, ready))
    if state.current.followed:
        from . import batches  # loaded by the first batch

        messages += batches.conclude_settled(engine, auto_import)
    _redraws.after(bool(events), bool(messages))
    return messages


def is_idle() -> bool:
    """Nothing for the watcher to do soon: no active job, none waiting to be imported here."""
    engine = runtime.engine_if_started()
    if engine is None:
        return True
    return not engine.has_active() and _next_import(engine, preferences.get().auto_import) is None


def beat() -> float:
    """The timer function: one tick, the duties, the sentences to the status bar, and the wait until
    the next.

    Never raises: Blender unregisters a timer whose function raises, which would stop every
    job's import for the rest of the session.
    """
    try:
        messages = tick(bpy.context)
        idle = is_idle()
    except Exception:
        log.exception("Kiln's job watcher hit an unexpected error")
        messages, idle = [("ERROR", UNEXPECTED_ERROR)], False
    soon = _do_duties()
    try:
        messenger.show(messages)
    except Exception:
        log.exception("Kiln could not put a sentence in the status bar")
    return min([IDLE_SECONDS if idle else BUSY_SECONDS, *soon])


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


def register() -> None:
    bpy.app.handlers.load_post.append(_on_load_post)
    bpy.app.handlers.save_post.append(_on_save_post)
    # Interactive: jobs resume on the first tick; a blocking script starts the engine when it runs one.
    if not blocks():
        later(_resume_jobs)
    ensure_running()


def _resume_jobs() -> None:
    """Start the engine on the first timer tick, not while Blender's start waits for register (it
    opens the job list and loads the job room), so the last session's jobs resume from there; a folder
    that cannot hold the job list is said when an operator runs."""
    runtime.try_engine()


def unregister() -> None:
    stop()
    for handlers, fn in (
        (bpy.app.handlers.load_post, _on_load_post),
        (bpy.app.handlers.save_post, _on_save_post),
    ):
        if fn in handlers:
            handlers.remove(fn)
    runtime.shutdown()
