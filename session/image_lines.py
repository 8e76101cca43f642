"""The images of a batch or a blockout checked and prepared as one image job's is, all at once.

Each image request goes through ``api.features.concept_image.check_request``: with a window on a
thread of its own (``main_thread.follow``), whose outcome comes back to the operator by a token, as
for one image job (``session.image_jobs``); in background mode here and now. A refused image is
left out with a sentence, the others go (prepared); what was found of the others is said once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.jobs import UPLOADS_DIR, JobRequest
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..main_thread import follow
from .blocking import has_event_loop
from .messenger import announce, tell

if TYPE_CHECKING:
    from ..api.features.concept_image import Checked

#: At most this many outcomes wait for their operator (the oldest go first).
KEPT_OUTCOMES = 8
_checked: dict[str, list[Checked | None]] = {}


def has_images(requests: Sequence[JobRequest]) -> bool:
    return any(is_image(request) for request in requests)


def is_image(request: JobRequest) -> bool:
    return request.kind == "image" and bool(request.image_path or request.image_url)


def check_all(requests: Sequence[JobRequest]) -> list[Checked | None]:
    """Every image request checked and prepared (None for the others); waits, so only off the main
    thread or in background mode."""
    from ..api.features.concept_image import check_request  # loaded by the first image job

    uploads = preferences.user_dir() / UPLOADS_DIR
    return [check_request(r, prepare=True, uploads=uploads) if is_image(r) else None for r in requests]


def check_then(name: str, requests: Sequence[JobRequest], again: Callable[[str], None]) -> None:
    """With a window: check on a thread, then ``again(token)`` on the main thread."""
    wanted = list(requests)
    uploads = preferences.user_dir() / UPLOADS_DIR  # read here, on the main thread

    def work() -> list[Checked | None]:
        from ..api.features.concept_image import check_request

        return [check_request(r, prepare=True, uploads=uploads) if is_image(r) else None for r in wanted]

    def done(outcome: list[Checked | None]) -> None:
        token = uuid.uuid4().hex
        while len(_checked) >= KEPT_OUTCOMES:
            _checked.pop(next(iter(_checked)))
        _checked[token] = outcome
        again(token)

    follow(f"{name}-image-check", work, done)


def peek(token: str) -> list[Checked | None] | None:
    return _checked.get(token)


def take(token: str) -> list[Checked | None] | None:
    return _checked.pop(token, None)


@dataclass(frozen=True)
class Sorted:
    """Which requests go (by their index, prepared) and what is said about the images."""

    going: dict[int, JobRequest] = field(default_factory=dict)
    refused: list[Message] = field(default_factory=list)
    found: list[Message] = field(default_factory=list)


def sort(requests: Sequence[JobRequest], checked: Sequence[Checked | None]) -> Sorted:
    """Refused images left out (each said, with that the rest goes); findings of the others said."""
    going: dict[int, JobRequest] = {}
    refused: list[Message] = []
    found: list[Message] = []
    for index, (request, outcome) in enumerate(zip(requests, checked, strict=True)):
        if outcome is None:
            going[index] = request
            continue
        refusal = outcome.preflight.refusal
        if refusal is not None:
            refused.append(message(refusal.entry, **refusal.values))
            refused.append(message(words.IMAGE_LEFT_OUT, name=request.label))
            continue
        found += [message(f.entry, **f.values) for f in outcome.preflight.said]
        # The placeholder, the grid and the game options stay the line's own; the image is the prepared one.
        going[index] = replace(
            request, image_sent=outcome.request.image_sent, preflight=outcome.request.preflight
        )
    return Sorted(going, refused, found)


def placeholders_checked(
    op: bpy.types.Operator, requests: Sequence[JobRequest], token: str, again: Callable[[str], None]
) -> list[JobRequest] | None:
    """A blockout's requests with their images checked and prepared, the refused left out (each said,
    with what was found of the others); None while the check runs on a thread (with a window:
    ``again(token)`` calls the operator back, its sentences then go to the status bar)."""
    if not has_images(requests):
        return list(requests)
    earlier = take(token) if token else None
    by_placeholder = {c.request.placeholder: c for c in earlier or [] if c is not None}
    if has_event_loop() and any(is_image(r) and r.placeholder not in by_placeholder for r in requests):
        check_then("blockout", requests, again)
        names = ", ".join(r.label for r in requests if is_image(r))
        tell(op, "INFO", words.IMAGE_CHECKING, name=names)
        return None
    checked = [by_placeholder.get(r.placeholder) for r in requests] if earlier else check_all(requests)
    found = sort(requests, checked)
    for said in [*found.refused, *found.found]:
        if token:  # called back from the check's outcome (a timer): nobody reads the operator's reports
            announce("WARNING", said)
        else:
            tell(op, "WARNING", said)
    return list(found.going.values())
