"""What artists and scripts invoke: generate, job actions, the watcher, scene import."""

from __future__ import annotations

from ..registration import classes_factory
from . import (
    batch,
    blockout,
    export_job,
    generate,
    job_actions,
    job_state,
    library,
    messenger,
    off_thread,
    prefs_actions,
    results_here,
    watcher,
)

classes = (
    *generate.classes,
    *batch.classes,
    *blockout.classes,
    *job_actions.classes,
    *prefs_actions.classes,
    *export_job.classes,
)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    messenger.register()
    _register_classes()
    watcher.register()
    results_here.register()
    library.register_library()


def unregister() -> None:
    batch.unregister()
    prefs_actions.unregister()
    results_here.unregister()
    watcher.unregister()
    library.unregister_library()
    _unregister_classes()
    job_state.state.clear()
    off_thread.forget()
    messenger.unregister()
