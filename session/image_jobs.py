"""An image job's Blender side: its image checked before it is sent, its variants ranked when they land.

The check (``api.features.concept_image``) reads and may fetch a file and costs up to a few hundred
milliseconds at 4K, so with a window it runs on a thread of its own (``main_thread.follow``) and the
operator is called again with its outcome (a token in :data:`_checked`): invoked, it asks about what
was found together with the price; executed (a script in the console), it sends or refuses. In
background mode the check runs inline (waiting is fine there). Variants of one image share a name
(``JobRequest.variant_of``), ranked as they land (``session.image_variants``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import bpy

from .. import preferences
from ..api.jobs import UPLOADS_DIR, JobRequest
from ..api.words import catalogue as words
from ..language import report
from ..main_thread import follow
from . import watcher
from .blocking import blocks
from .launching import tell_not_in_scene, wait_then_import
from .messenger import announce, refuse, tell
from .starting import start_job

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult
    from bpy.stub_internal.rna_enums import WmReportItems

    from ..api.features.concept_image import Checked
    from ..api.words import Entry

log = logging.getLogger(__name__)

#: At most this many outcomes wait for their operator (the oldest go first).
KEPT_OUTCOMES = 16
#: The outcomes of checks that ran off the main thread, until the operator called again takes its own.
_checked: dict[str, Checked] = {}


def check_inline(request: JobRequest, prepare: bool) -> Checked:
    """Background mode: the check here and now."""
    from ..api.features.concept_image import check_request  # loaded by the first image job

    return check_request(request, prepare=prepare, uploads=preferences.user_dir() / UPLOADS_DIR)


def check_then_call_again(op: bpy.types.Operator, request: JobRequest, prepare: bool, mode: str) -> None:
    """With a window: check on a thread, then call the operator again (``mode``: "INVOKE_DEFAULT" to ask,
    "EXEC_DEFAULT" to send) with the same arguments and the outcome's token."""
    uploads = preferences.user_dir() / UPLOADS_DIR
    arguments = given_arguments(op)
    tell(op, "INFO", words.IMAGE_CHECKING, name=request.label)

    def done(checked: Checked) -> None:
        token = uuid.uuid4().hex
        while len(_checked) >= KEPT_OUTCOMES:  # questions the artist cancelled leave theirs behind
            _checked.pop(next(iter(_checked)))
        _checked[token] = checked
        _call_again(mode, {**arguments, "checked": token})

    from ..api.features.concept_image import check_request  # loaded by the first image job

    follow("image-check", lambda: check_request(request, prepare=prepare, uploads=uploads), done)


def given_arguments(op: bpy.types.Operator) -> dict[str, Any]:
    """The arguments the caller set (the rest keep falling back to the preferences)."""
    props = op.properties
    given = {}
    for prop in props.bl_rna.properties:
        name = prop.identifier
        if name != "rna_type" and props.is_property_set(name):
            value = getattr(props, name)
            given[name] = tuple(value) if getattr(prop, "is_array", False) else value
    return given


def _call_again(mode: str, arguments: dict[str, Any]) -> None:
    call_again(lambda: bpy.ops.kiln.generate_from_image(mode, **arguments))  # type: ignore[attr-defined]


def call_again(operator_call: Callable[[], object]) -> None:
    """Call an operator from a check's outcome (a timer) in the first window's 3D View."""
    wm = bpy.context.window_manager
    if wm is None or not wm.windows:
        log.warning("No window to come back to after the image check; nothing was sent")
        announce("ERROR", words.IMAGE_CHECK_LOST)
        return
    window = wm.windows[0]
    area = next((a for a in window.screen.areas if a.type == "VIEW_3D"), None)
    override = {"window": window, "area": area} if area is not None else {"window": window}
    with bpy.context.temp_override(**override):
        operator_call()


def peek(token: str) -> Checked | None:
    return _checked.get(token)


def take(token: str) -> Checked | None:
    return _checked.pop(token, None)


def question_note(checked: Checked) -> str:
    """What was found, in the artist's words, to put before the price in the question."""
    return " ".join(report(found.entry, **found.values) for found in checked.preflight.said)


def sendable(
    op: bpy.types.Operator, checked: Checked | None, strict: bool, *, relayed: bool = False
) -> set[OperatorResult] | None:
    """Refuse what must not be sent (None: it may go); say what was found and what was prepared.

    ``relayed``: the operator was called again from the check's outcome (a timer, with a window),
    whose reports would reach nobody: the sentences go to the status bar instead.
    """
    said = _Voice(op, relayed)
    if checked is None:
        return said.no(words.IMAGE_CHECK_LOST)
    found = checked.preflight
    if found.refusal is not None:
        return said.no(found.refusal.entry, **found.refusal.values)
    if strict and found.said:  # every finding said "name" only: one set of values fills them all
        return said.no(*(f.entry for f in found.said), words.IMAGE_STRICT_REFUSED, **found.said[0].values)
    for finding in found.said:
        said.tell("WARNING", finding.entry, **finding.values)
    if not found.measured:
        said.tell("WARNING", words.IMAGE_NOT_LOOKED_AT)
        return None
    if not found.findings:
        said.tell("INFO", words.IMAGE_LOOKS_FINE, name=checked.request.label)
    if found.prepared_path:
        said.tell("INFO", words.IMAGE_PREPARED, name=checked.request.label, side=found.prepared_side)
    return None


class _Voice:
    """An operator's reports, or the status bar when nobody would read them."""

    def __init__(self, op: bpy.types.Operator, relayed: bool) -> None:
        self.op, self.relayed = op, relayed

    def tell(self, level: WmReportItems, entry: Entry, /, **values: Any) -> None:
        if self.relayed:
            announce(level, entry, **values)
        else:
            tell(self.op, level, entry, **values)

    def no(self, *entries: Entry, **values: Any) -> set[OperatorResult]:
        if not self.relayed:
            return refuse(self.op, *entries, **values)
        for entry in entries:
            announce("ERROR", entry, **values)
        return {"CANCELLED"}


def variant_requests(request: JobRequest, count: int) -> list[JobRequest]:
    """``count`` jobs of one image sharing a name (one job: the request as it is)."""
    if count <= 1:
        return [request]
    shared = f"{request.label} {uuid.uuid4().hex[:4]}"
    return [replace(request, variant_of=shared) for _ in range(count)]


def launch_variants(
    op: bpy.types.Operator, context: bpy.types.Context, requests: list[JobRequest]
) -> set[OperatorResult]:
    """Send every variant; with a window return at once, in background mode wait and import them all."""
    with_game = getattr(op, "with_game", None)
    options = op.import_options(context)  # type: ignore[attr-defined]
    jobs = [
        start_job(context, with_game(request, context) if with_game else request, import_options=options)
        for request in requests
    ]
    label = requests[0].label
    if not blocks(op):
        watcher.ensure_running()
        tell(op, "INFO", words.IMAGE_VARIANTS_GENERATING, name=label, n=len(jobs))
        return {"FINISHED"}
    settled = wait_then_import(context, [job.id for job in jobs])
    landed = tell_not_in_scene(op, settled)
    if not landed:
        return refuse(op, words.JOB_DID_NOT_FINISH)
    tell(op, "INFO", words.IMAGE_VARIANTS_IMPORTED, name=label, n=landed)
    return {"FINISHED"}
