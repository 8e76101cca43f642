"""Words: every sentence an artist can read from Kiln, and how one is said.

The bottom of ``api/`` (it imports nothing of Kiln's), so every room may speak:

* ``kinds`` — what an entry is: a text, a count-aware ``Plural``, a ``Label`` and its tooltip.
* ``catalogue`` — every sentence, label and tooltip, written once.
* ``phrasing`` — plural forms by count, values filled in, a stored ``Message``, shortening.
* ``contexts`` — the translation contexts Kiln's words are registered and looked up under.
* ``translations`` — the translators' .po files (``po/``), read into what Blender registers.
* ``checking`` — the translation check: every entry, placeholder and plural form in every language.

Translations are chosen on Blender's side (``language.py`` at the add-on's top), where the language
is known; this room renders English only (for the console and for what is stored).
"""

from .kinds import Entry, Label, Plural
from .phrasing import ELLIPSIS, Message, as_message, english, english_message, fields, fill, message, shorten

__all__ = [
    "ELLIPSIS",
    "Entry",
    "Label",
    "Message",
    "Plural",
    "as_message",
    "english",
    "english_message",
    "fields",
    "fill",
    "message",
    "shorten",
]
