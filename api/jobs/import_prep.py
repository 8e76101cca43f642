"""The import decision: whether a downloaded mesh goes through the helper Blender first, and the call.

Kept apart on purpose: the decision and the helper call change together (``api.isolation``), and
this module needs nothing from the engine beyond what its one function is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ..errors import StorageError
from ..isolation import HelperUnavailable, ImportHelper, in_place_notice, wants_helper
from ..words import Message, message
from ..words import catalogue as words
from .model import ServiceConfig

log = logging.getLogger(__name__)


def prepare_import(
    config: ServiceConfig,
    helper: ImportHelper,
    mesh: Path,
    blend: Path,
    triangles: int | None,
    *,
    cancelled: Callable[[], bool],
    note: Callable[[Message], None],
    game: str = "",
    label: str = "",
) -> str:
    """The helper Blender turns ``mesh`` into ``blend``; returns its path, or "" to import in place.

    "" when the artist chose in-place imports (and the mesh is small) or no helper can run here
    (said once). A crash, hang or limit of the helper raises IsolationError, a sentence for the
    job; CancelledError when ``cancelled()`` turns true. Call from a worker thread only.
    The helper also finishes the result as ``game`` (``JobRequest.game``) asks and reports on it.
    """
    if not wants_helper(config, mesh, triangles) and not game:
        return ""
    note(message(words.NOTE_PREPARING))
    try:
        made = helper.prepare(
            config.helper_command,
            config.helper_limits,
            mesh,
            blend,
            cancelled=cancelled,
            game=game,
            label=label,
        )
    except HelperUnavailable as exc:
        in_place_notice.record(exc.message)
        return ""
    except StorageError as exc:
        # The helper read the mesh fine; only its .blend could not be put in place (a lock, a full
        # disk). The downloaded mesh is good, so the job goes on and imports it here instead.
        log.warning("The helper's file for %s could not be kept (%s); importing in place", mesh.name, exc)
        return ""
    log.info("%s prepared by the helper Blender as %s", mesh.name, made.blend.name)
    for path in made.exported:
        log.info("%s exported to %s", mesh.name, path)
    if made.finish_error:
        log.warning("The helper imported %s but could not finish it: %s", mesh.name, made.finish_error)
        note(message(words.NOTE_KEPT_AS_MADE, details=made.finish_error))
    return str(made.blend)
