"""The translation contexts Kiln's words are registered and looked up under (light: Kiln's classes are
named in its context while Blender registers them, before any translation is read)."""

from __future__ import annotations

#: Kiln's own translation context: its names never replace Blender's translation of the same word.
KILN_CONTEXT = "Kiln"
#: Blender's default translation context (tooltips are looked up there) and its operators' context.
#: Only Kiln's tooltips go there too: long enough never to be one of Blender's own texts.
BLENDER_CONTEXTS = ("*", "Operator")


def plural_context(index: int) -> str:
    """The context a plural form is registered under: the entry's English plural text is the msgid."""
    return f"Kiln plural {index}"
