"""What artists, scripts and agents invoke: the operator classes, and nothing else.

What they set in motion lives in ``session/``. Each module holds operators:

* ``generate`` — generate from text, one image, or several views of one object.
* ``retexture`` — new textures for the selected mesh, beside it.
* ``batch`` — generate from a prompt file.
* ``blockout`` — generate into selected placeholders; cycle and keep their variants.
* ``job_actions`` — cancel, retry, import, remove, resume a job; wait for jobs (scripts).
* ``export_job`` — export a finished job for a game engine.
* ``disclosure`` — the project's AI disclosure report (CSV and HTML).
* ``prefs_actions`` — the preferences' buttons: test the connection, clear the cache.
* ``announce`` — the status bar's door for sentences said outside an operator.
* ``agents`` — the agents' buttons (copy a client configuration, a new token, disconnect) and the
  serving operator for background mode.
"""

from __future__ import annotations

from ..registration import classes_factory
from . import (
    agents,
    announce,
    batch,
    blockout,
    disclosure,
    export_job,
    generate,
    job_actions,
    prefs_actions,
    retexture,
)

classes = (
    *announce.classes,
    *generate.classes,
    *retexture.classes,
    *batch.classes,
    *blockout.classes,
    *job_actions.classes,
    *prefs_actions.classes,
    *export_job.classes,
    *disclosure.classes,
    *agents.classes,
)
register, unregister = classes_factory(classes)
