"""The batch operator's flow: the prompt file read and weighed, the cost asked about, the jobs sent
and followed (the UI) or waited for and imported (background mode).

``operators.batch`` hands over what it was given as plain values (:class:`Given`) and returns what
:func:`run` says; the pieces a beat of the watcher needs (sending into a grid, the summary) are in
``batches``, below the watcher, so this module sits above both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

from ..api.errors import InputError, KilnError
from ..api.features.quality.options import GameOptions
from ..api.jobs.service_side import refusal_of
from ..api.words import catalogue as words
from ..language import said
from . import batches, image_lines, library, spending, state, watcher
from .blocking import blocks, has_event_loop
from .launching import tell_not_in_scene, wait_then_import
from .messenger import refuse, tell

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

    from ..api.features import batch
    from ..api.features.concept_image import Checked


@dataclass(frozen=True)
class Given:
    """What the batch operator was given, read once on the main thread."""

    path: Path
    resolution: int | None
    reuse: str
    max_credits: int
    #: Where the summary goes (absolute), "" for none.
    summary_path: str
    game: GameOptions
    #: The artist has seen the cost and said yes (the UI asks once, through the operator's invoke).
    confirmed: bool = False
    #: Where every line goes (its tier and options too: ``JobRequest.to_service``).
    service: str = ""
    tier: str = ""
    options: str = ""
    #: The token of the image check that ran off the main thread (``session.image_lines``).
    checked: str = ""


@dataclass(frozen=True)
class Weighed:
    """A prompt file's usable lines, those the library answers, and what the rest will cost."""

    items: list[batch.BatchItem]
    reused: dict[int, library.Entry]

    @property
    def to_send(self) -> list[batch.BatchItem]:
        return [item for index, item in enumerate(self.items) if index not in self.reused]


def read(given: Given) -> batch.Batch | None:
    """The prompt file, each line going to the given service, or None when it cannot be read
    (``run`` says why)."""
    from ..api.features import batch  # loaded by the first batch: most sessions send none

    try:
        return _to_service(batch.read_batch(given.path, resolution=given.resolution), given)
    except InputError:
        return None


def _to_service(parsed: batch.Batch, given: Given) -> batch.Batch:
    """Each line going to its own service (its ``service`` column), else to the batch's."""
    from ..api.features import batch

    items = [batch.going_to(item, given.service, given.tier, given.options) for item in parsed.items]
    return replace(parsed, items=items)


def weigh(items: list[batch.BatchItem], reuse: str, context: bpy.types.Context) -> Weighed:
    """Which lines the library answers (a batch never stops to ask: ASK uses them)."""
    return Weighed(items, batches.reusable(items, reuse, context))


def with_checked_images(
    parsed: batch.Batch, checked: list[Checked | None] | None
) -> tuple[batch.Batch, image_lines.Sorted]:
    """The batch with its refused image lines left out and the others' prepared images."""
    if checked is None:  # no image lines, or their check's outcome is gone
        return parsed, image_lines.Sorted()
    found = image_lines.sort([item.request for item in parsed.items], checked)
    items = [replace(item, request=found.going[i]) for i, item in enumerate(parsed.items) if i in found.going]
    return replace(parsed, items=items), found


def run(
    op: bpy.types.Operator,
    context: bpy.types.Context,
    given: Given,
    ask_first: Callable[[], None],
    check_first: Callable[[str], None],
) -> set[OperatorResult]:
    """The whole batch for ``op``: refused with every reason, its images checked (``check_first``
    calls the operator again with the check's token, in the UI), sent after the cost was asked about
    (``ask_first`` starts the operator's own question in the UI), followed or waited for."""
    from ..api.features import batch

    try:
        parsed = _to_service(batch.read_batch(given.path, resolution=given.resolution), given)
    except InputError as exc:
        return refuse(op, exc.message)
    requests = [item.request for item in parsed.items]
    if image_lines.has_images(requests) and not given.checked:
        if has_event_loop():  # the images are read on a thread; the operator comes back with them
            image_lines.check_then("batch", requests, check_first)
            tell(op, "INFO", words.IMAGE_CHECKING, name=given.path.name)
            return {"FINISHED"}
        parsed, found = with_checked_images(parsed, image_lines.check_all(requests))
    elif given.checked:
        outcome = image_lines.take(given.checked)
        if outcome is None:  # never send an image line unchecked
            return refuse(op, words.IMAGE_CHECK_LOST)
        parsed, found = with_checked_images(parsed, outcome)
    else:
        found = image_lines.Sorted()
    asked = given.confirmed and bool(given.checked)  # the question said what the images showed
    images_said = [] if asked else [*found.refused, *found.found]
    for problem in [*(line.said for line in parsed.problems), *parsed.notes, *images_said]:
        tell(op, "WARNING", problem)
    if not parsed.items:
        return refuse(op, words.BATCH_NOTHING_USABLE, file=given.path.name)
    refused = next(filter(None, (refusal_of(item.request) for item in parsed.items)), None)
    if refused is not None:  # a line the service cannot take: nothing of the batch is sent
        return refuse(op, refused)
    weighed = weigh(parsed.items, given.reuse, context)
    cost = spending.estimate_for((item.request for item in weighed.to_send), context)
    refusal = spending.over_limit(cost, given.max_credits)
    if refusal:
        return refuse(op, refusal)
    if not given.confirmed and weighed.to_send and not blocks(op):
        ask_first()  # in the UI a batch always says what it costs and asks first
        return {"CANCELLED"}
    sending = spending.cost_text(cost, for_report=True)
    tell(op, "INFO", words.BATCH_SENDING, file=given.path.name, n=len(weighed.to_send), cost=sending)
    if weighed.reused:
        tell(op, "INFO", words.BATCH_FROM_LIBRARY, n=len(weighed.reused))
    return _send(op, context, given, weighed)


def _send(
    op: bpy.types.Operator, context: bpy.types.Context, given: Given, weighed: Weighed
) -> set[OperatorResult]:
    name = given.path.name
    try:
        # Lines with an export but no folder given: export/ beside the prompt file.
        game = (given.game, str(given.path.parent / "export"))
        job_ids = batches.send(context, weighed.items, weighed.reused, game)
    except KilnError as exc:  # the job list cannot be written: nothing was sent
        return refuse(op, exc.message)
    if not job_ids:
        tell(op, "INFO", words.BATCH_ALL_FROM_LIBRARY, file=name)
        return {"FINISHED"}
    if not blocks(op):
        batches.follow(state.FollowedBatch(name, job_ids, given.summary_path))
        watcher.ensure_running()
        tell(op, "INFO", words.BATCH_GENERATING, n=len(job_ids), file=name)
        return {"FINISHED"}
    try:
        wait_then_import(context, job_ids)
    except KilnError as exc:
        return refuse(op, exc.message)
    jobs, headline = batches.conclude(job_ids, given.summary_path)
    if not tell_not_in_scene(op, jobs):
        return refuse(op, words.BATCH_NONE_SUCCEEDED, file=name, outcome=said(headline))
    tell(op, "INFO", words.BATCH_DONE, file=name, outcome=said(headline))
    return {"FINISHED"}
