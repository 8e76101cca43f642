"""Kiln's words on screen, in the artist's language: every catalogue entry is said through here.

``text`` for what a panel or the preferences draw, ``report`` for the status bar and an operator's
reports, ``tip`` for a tooltip Kiln writes itself, ``data`` for a name Kiln gives new data, ``said``
for a stored ``Message`` (a job's error, a note). Each takes an entry of ``api.words.catalogue`` and
its values (never an assembled sentence), so a translation sees the sentence whole and a count picks
its plural form in the artist's language.

The translations (``api/words/po``, read by ``api.words.translations``) are registered with
``bpy.app.translations``: Blender itself then translates Kiln's property names, tooltips, choices,
operator and panel names, and every lookup here goes through Blender's ``pgettext_*``, so Blender's
Translate Interface, Tooltips, Reports and New Data switches and a change of language take effect at
the next redraw. Call on the main thread only.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

import bpy

from .api.words import Entry, Message, Plural, fill
from .api.words import catalogue as words
from .api.words.contexts import KILN_CONTEXT, plural_context
from .drawing import tag_redraw
from .main_thread import later

log = logging.getLogger(__name__)

#: What can be said: a catalogue entry (with its values) or a stored message.
Said = Entry | Message

Lookup = Callable[..., Any]  # the stubs say pgettext_* return None; they return the text

#: Each language's plural rule (count → form), filled when the translations are handed over.
_plural_rules: dict[str, Callable[[int], int]] = {}
#: Whether Blender has Kiln's translations (False: not read yet, or Kiln is disabled).
_handed_over = False


def register() -> None:
    """Hand Kiln's translations to Blender soon after Kiln is enabled, not during it: reading the
    seven languages' files costs tens of milliseconds Blender's start-up would wait for. The first
    thing Kiln says (background mode has no timers) hands them over itself if the timer has not."""
    later(_hand_over)


def _hand_over() -> None:
    global _handed_over
    if _handed_over:
        return
    _handed_over = True
    from .api.words.translations import table  # the files' reader loads with them, not at registration

    try:
        texts, rules = table()
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # a damaged file: English, and said
        log.warning("Kiln's translations could not be read, so Kiln speaks English: %s", exc)
        return
    _plural_rules.update(rules)
    bpy.app.translations.register(__package__, texts)
    tag_redraw()  # labels drawn before now were English


def unregister() -> None:
    global _handed_over
    _handed_over = False
    _plural_rules.clear()
    with contextlib.suppress(ValueError, RuntimeError):  # not handed over (not yet, or unreadable files)
        bpy.app.translations.unregister(__package__)


def words_now() -> tuple[str, bool, bool, bool]:
    """What Kiln's words depend on besides their values: Blender's language and its Translate
    Interface, Tooltips and Reports switches (a cache of said words keys on it)."""
    preferences = bpy.context.preferences
    assert preferences is not None
    view, locale = preferences.view, str(bpy.app.translations.locale)
    return locale, view.use_translate_interface, view.use_translate_tooltips, view.use_translate_reports


def _template(entry: Entry, lookup: Lookup, values: dict[str, Any]) -> str:
    """The entry's template in the artist's language (English when translation is off or missing)."""
    if not _handed_over:
        _hand_over()
    if not isinstance(entry, Plural):
        return str(lookup(entry, KILN_CONTEXT))
    count = int(values.get("n", 0))
    rule = _plural_rules.get(bpy.app.translations.locale)
    if rule is not None:
        translated = str(lookup(entry.other, plural_context(rule(count))))
        if translated != entry.other:
            return translated
    return entry.form(count)


def _say(entry: Entry, lookup: Lookup, values: dict[str, Any]) -> str:
    return fill(_template(entry, lookup, values), values)


def text(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as a panel draws it."""
    return _say(entry, bpy.app.translations.pgettext_iface, values)


def report(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as the status bar or an operator's report says it."""
    return _say(entry, bpy.app.translations.pgettext_rpt, values)


def tip(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as a tooltip Kiln writes itself (a greyed-out button's reason)."""
    return _say(entry, bpy.app.translations.pgettext_tip, values)


def data(entry: Entry, /, **values: Any) -> str:
    """A catalogue entry as the name of new data (a collection), when Blender translates new data."""
    return _say(entry, bpy.app.translations.pgettext_data, values)


def said(what: Said, /, *, as_report: bool = False, **values: Any) -> str:
    """An entry with its values, or a stored message in the current words (a name no longer in the
    catalogue is said as it is)."""
    say = report if as_report else text
    if isinstance(what, Message):
        entry = getattr(words, what.name, None)
        if not isinstance(entry, (str, Plural)):
            return what.name
        values = {**what.values, **values}
        what = entry
    # A count inside a sentence is a message of its own ("3 jobs"): said first, in the same words.
    filled = {k: said(v, as_report=as_report) if isinstance(v, Message) else v for k, v in values.items()}
    return say(what, **filled)
