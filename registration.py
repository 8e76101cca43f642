"""Class registration shared by the rooms, and the one place Kiln's names get their translation context.

A room registers its classes with :func:`classes_factory`; on unregister, :func:`release_loaded` lets
its modules that load with their first use (not at registration) let go of what they hold.

Kiln's labels ("All", "Engine", "Info") are often words Blender also uses. Registered under Blender's
default context, Kiln's translation would replace Blender's own wherever that word appears; so every
operator, panel, menu, list and property Kiln registers is named in Kiln's own context
(``api.words.contexts.KILN_CONTEXT``), set here once as the classes are registered.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import bpy

from .api.words.contexts import KILN_CONTEXT

#: Kiln's classes (and mixins) whose properties are already in Kiln's context: a mixin shared by
#: many operators is read once.
_in_context: set[type] = set()


def in_kiln_context(cls: type) -> type:
    """``cls`` with its name and its properties' names looked up in Kiln's translation context."""
    named = issubclass(cls, (bpy.types.Operator, bpy.types.Panel, bpy.types.Menu))  # a list has no context
    if named and not getattr(cls, "bl_translation_context", ""):
        cls.bl_translation_context = KILN_CONTEXT  # type: ignore[attr-defined]
    # Blender collects properties from the class and its bases: Kiln's own bases (mixins) too.
    for klass in cls.__mro__:
        if klass not in _in_context and klass.__module__.startswith(__package__ or "."):
            _properties_in_kiln_context(klass)
            _in_context.add(klass)
    return cls


def _properties_in_kiln_context(klass: type) -> None:
    # Evaluated as Blender would (the modules say ``from __future__ import annotations``).
    annotations: dict[str, Any] = dict(inspect.get_annotations(klass, eval_str=True))
    for name, value in annotations.items():
        keywords = getattr(value, "keywords", None)
        if isinstance(keywords, dict) and "translation_context" not in keywords:
            annotations[name] = value.function(**keywords, translation_context=KILN_CONTEXT)
    klass.__annotations__ = annotations


def classes_factory(classes: Sequence[type]) -> tuple[Callable[[], None], Callable[[], None]]:
    """``bpy.utils.register_classes_factory`` for Kiln's classes, each in Kiln's translation context."""
    return bpy.utils.register_classes_factory([in_kiln_context(cls) for cls in classes])  # type: ignore[func-returns-value, return-value]


def release_loaded(package: str, releases: Iterable[tuple[str, str]]) -> None:
    """On unregister: each ``(module, function)`` of ``package`` whose module was loaded calls that
    function to let go of what it holds. One never loaded holds nothing and is not loaded now (its
    file may be gone: an update)."""
    for name, release in releases:
        module = sys.modules.get(f"{package}.{name}")
        if module is not None:
            getattr(module, release)()
