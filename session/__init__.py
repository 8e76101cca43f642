"""The Blender side of a running Kiln: the job engine of this session, its heartbeat, and where results land.

Operators (``operators/``) and panels (``panels/``) call into this room; it never imports them.
Bottom first:

* ``blocking`` — the one decision between blocking (background mode) and interactive.
* ``messenger`` — how a sentence reaches the status bar (or the log) and how an operator refuses.
* ``runtime`` — the one job engine of this session, and which .blend jobs belong to.
* ``job_rows`` — the Jobs list's rows, mirroring the engine's jobs, written outside drawing.
* ``setup`` — what is missing before Kiln can reach the service, all of it at once.
* ``scene_objects``, ``variants``, ``batch_grid``, ``placement`` — where a result's objects go:
  the Kiln collection, the 3D cursor, a placeholder's place (as its newest variant), a batch's grid.
* ``state`` — what this session remembers about its jobs until they land.
* ``arguments`` — the options as operator arguments (one not given takes its preference).
* ``job_requests`` — the requests built from what the artist chose (text, resolution, a Blender image).
* ``spending`` — what a run will cost, a hard limit, when to ask; the credits line.
* ``balances`` — the service's balance asked again off the main thread once a job of it settles.
* ``results_here`` — which jobs' results are in the open .blend.
* ``quality_report`` — a result's quality report, read back from the objects it was stamped on.
* ``scene_import`` — a finished job into the scene: appended from the helper's .blend, or imported here.
* ``image_variants`` — the variants of one image ranked by fidelity as they land, the best shown.
* ``library`` — the Kiln asset library: its folder and index; identical requests reuse it.
* ``library_store`` — every result kept in the library once it is in the scene.
* ``review_sheet`` — a batch's review files beside its summary.
* ``watcher`` — the heartbeat: a ``bpy.app.timers`` function that applies what the workers did.
* ``starting`` — the one way a job starts: every front door (operators, agents, batch, farm) calls it.
* ``launching`` — what every networked operator checks first; launching and following a job.
* ``image_jobs`` — an image job's image checked (off the main thread with a window) and its variants sent.
* ``image_lines`` — a batch's or a blockout's images checked and prepared the same way, all at once.
* ``retexture`` — the selected mesh exported for a re-texture, with Blender's own glTF exporter.
* ``batches``, ``blockout``, ``exports`` — the session's part of a batch, a blockout and an export;
  ``batch_run`` — the batch operator's whole flow, above the watcher.
* ``provenance``, ``disclosure`` — where a result came from, in the files Kiln writes and in the
  project's AI disclosure report.
"""

from __future__ import annotations

import importlib

from ..main_thread import later
from ..registration import release_loaded
from . import library, messenger, results_here, watcher

#: What sending the first job loads (where its result lands, its service's order, its game options),
#: relative to this package.
FIRST_JOB_MODULES = (".placement", "..api.services.order", "..api.features.quality.options")


def register() -> None:
    watcher.register()
    results_here.register()
    library.register_library()
    later(load_first_job_modules)


def load_first_job_modules() -> None:
    """Load what the first job needs on a timer tick soon after Kiln is enabled: neither Blender's
    start (it waits for register) nor the artist's first Generate waits for it then."""
    for name in FIRST_JOB_MODULES:
        importlib.import_module(name, __name__)


#: What each module of the room loaded by its first use lets go of on unregister.
_RELEASES = (("state", "forget"),)


def unregister() -> None:
    results_here.unregister()
    watcher.unregister()
    library.unregister_library()
    release_loaded(__name__, _RELEASES)
    messenger.unregister()
