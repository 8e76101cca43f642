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
from .model import ServiceConfig

log = logging.getLogger(__name__)

PREPARING_NOTE = "Preparing the import"


def prepare_import(
    config: ServiceConfig,
    helper: ImportHelper,
    mesh: Path,
    blend: Path,
    triangles: int | None,
    *,
    cancelled: Callable[[], bool],
    note: Callable[[str], None],
) -> str:
    """The helper Blender turns ``mesh`` into ``blend``; returns its path, or "" to import in place.

    "" when the artist chose in-place imports (and the mesh is small) or no helper can run here
    (said once). A crash, hang or limit of the helper raises IsolationError, a sentence for the
    job; CancelledError when ``cancelled()`` turns true. Call from a worker thread only.
    """
    if not wants_helper(config, mesh, triangles):
        return ""
    note(PREPARING_NOTE)
    try:
        made = helper.convert(config.helper_command, config.helper_limits, mesh, blend, cancelled=cancelled)
    except HelperUnavailable as exc:
        in_place_notice.record(exc.user_message)
        return ""
    except StorageError as exc:
        # The helper read the mesh fine; only its .blend could not be put in place (a lock, a full
        # disk). The downloaded mesh is good, so the job goes on and imports it here instead.
        log.warning("The helper's file for %s could not be kept (%s); importing in place", mesh.name, exc)
        return ""
    log.info("%s prepared by the helper Blender as %s", mesh.name, made.name)
    return str(made)
