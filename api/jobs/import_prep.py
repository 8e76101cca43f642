"""The large-import decision: whether a downloaded mesh goes through a helper Blender first.

Kept apart on purpose: the decision and the helper call change together (``api.convert``), and
this module needs nothing from the engine beyond what its one function is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ..convert import ConversionError, convert_to_blend
from .model import ServiceConfig

log = logging.getLogger(__name__)

PREPARING_NOTE = "Preparing the import"


def prepare_import(
    config: ServiceConfig,
    mesh: Path,
    triangles: int | None,
    *,
    cancelled: Callable[[], bool],
    note: Callable[[str], None],
) -> str:
    """A large mesh is turned into a .blend beside it by a helper Blender; returns its path, or "".

    "" means import the GLB in-process: the mesh is small, or the helper is missing or failed
    (logged). This never fails the job. Raises CancelledError when ``cancelled()`` turns true.
    Call from a worker thread only.
    """
    if not is_large(config, mesh, triangles):
        return ""
    if not config.helper_command:
        log.info("%s is large but no helper Blender is set up; importing it in-process", mesh.name)
        return ""
    note(PREPARING_NOTE)
    try:
        blend = convert_to_blend(config.helper_command, mesh, mesh.with_suffix(".blend"), cancelled=cancelled)
    except ConversionError as exc:
        log.warning("The helper Blender failed on %s (%s); importing it in-process", mesh.name, exc)
        return ""
    log.info("%s prepared by the helper Blender as %s", mesh.name, blend.name)
    return str(blend)


def is_large(config: ServiceConfig, mesh: Path, triangles: int | None) -> bool:
    """Worth a helper: more triangles than the threshold, or (when unknown or small) a big file."""
    if triangles is not None and triangles > config.large_import_triangles:
        return True
    try:
        return mesh.stat().st_size > config.large_import_bytes
    except OSError:
        return False
