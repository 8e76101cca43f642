"""How Kiln says a sentence: the status bar (or, in background mode, the log), and an operator's refusal.

The bottom of ``session/``: it imports no other session module, so every one of them (the watcher,
the engine's runtime, scene import, batch and export outcomes) can say something without an import
cycle. The status bar is reached through the ``kiln.announce`` operator (``operators.announce``),
asked for by name. Every sentence is said here from the catalogue (``sentence``), in the artist's
language, after Kiln's name.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import bpy

from ..api.words import catalogue as words
from ..language import Said, said
from ..main_thread import later

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult
    from bpy.stub_internal.rna_enums import WmReportItems

Report = tuple["WmReportItems", str]

log = logging.getLogger(__name__)

#: Seconds before queued sentences are shown when no beat of the watcher comes first.
FLUSH_SECONDS = 0.0

_queued: list[Report] = []


def sentence(what: Said, /, **values: Any) -> str:
    """What the status bar shows: the sentence in the artist's language after Kiln's name, the one
    place that name is put before a sentence (``REPORT``), so the status bar says who is speaking;
    a sentence that already opens with Kiln's name says it once ("Kiln cannot tell…", not
    "Kiln: Kiln cannot tell…")."""
    text = said(what, as_report=True, **values)
    if re.match(r"Kiln(?![A-Za-z])", text):
        return text
    return said(words.REPORT, as_report=True, sentence=text)


def refuse(op: bpy.types.Operator, *reasons: Said, **values: Any) -> set[OperatorResult]:
    """The one way an operator says no: each reason as an error (a script gets them all in the
    RuntimeError, the artist in the status bar) and ``{'CANCELLED'}``; ``values`` fill them."""
    for reason in reasons:
        op.report({"ERROR"}, sentence(reason, **values))
    return {"CANCELLED"}


def tell(op: bpy.types.Operator, level: WmReportItems, what: Said, /, **values: Any) -> None:
    """An operator's report that is not a refusal (what it did, a warning)."""
    op.report({level}, sentence(what, **values))


def announce(level: WmReportItems, what: Said, /, *, logged: bool = False, **values: Any) -> None:
    """Put a sentence in the status bar from code with no operator to report through (timers).

    In background mode there is no status bar and no timer to show it: the sentence goes to the
    console at once, through Kiln's logger at WARNING or above (so the default log level prints
    it, and a pipeline's log has it), unless the caller has ``logged`` it already. It is queued
    there too, for a watcher tick called directly.
    """
    message = sentence(what, **values)
    _queued.append((level, message))
    if bpy.app.background:
        if not logged:
            log.log(logging.ERROR if level == "ERROR" else logging.WARNING, "%s", message)
        return
    later(_flush, FLUSH_SECONDS)


def take() -> list[Report]:
    """The sentences announced since the last take (the watcher's beat says them with its own)."""
    taken = _queued[:]
    _queued.clear()
    return taken


def show(messages: list[Report]) -> None:
    """Sentences to the log, and to the status bar when there is one (one announcer for them all)."""
    for level, message in messages:
        log.log(logging.WARNING if level in ("WARNING", "ERROR") else logging.INFO, "%s", message)
    wm = bpy.context.window_manager
    if not messages or bpy.app.background or wm is None or not wm.windows:
        return
    lines = "\n".join(f"{level} {' '.join(message.split())}" for level, message in messages)
    with bpy.context.temp_override(window=wm.windows[0]):
        bpy.ops.kiln.announce("INVOKE_DEFAULT", reports=lines)  # type: ignore[attr-defined]


def _flush() -> None:
    """Soon after an announcement (UI only): show it, when no beat of the watcher took it first."""
    show(take())


def unregister() -> None:
    """Nothing said after Kiln is gone: the queue goes (``main_thread.forget`` takes the flush)."""
    _queued.clear()
