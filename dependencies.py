"""Whether this Blender's Python has the modules Kiln needs, and what to say when it has not.

Blender from blender.org ships numpy and requests inside its own Python. A Blender from a Linux
distribution uses the system's Python, which may have neither (Debian's ``blender`` package, for
one; its glTF importer needs numpy too). Kiln then registers only its preferences, which show the
sentence, and says it once in the status bar (the log in background mode): enabling Kiln never
ends in a traceback. Kiln's modules import numpy and requests only where they use them, so
everything up to this check loads without them.
"""

from __future__ import annotations

import importlib.util
import logging

import bpy

from .api.words import catalogue as words
from .language import report
from .main_thread import cancel, is_waiting, later

log = logging.getLogger(__name__)

#: Each module Kiln needs, and the Debian/Ubuntu package that brings it.
REQUIRED: dict[str, str] = {"numpy": "python3-numpy", "requests": "python3-requests"}
#: How long the sentence stays in the status bar (it replaces the bar's own text meanwhile).
STATUS_BAR_SECONDS = 30.0

_missing: tuple[str, ...] = ()


def find_missing() -> tuple[str, ...]:
    """The required modules this Python cannot import (looked up, not loaded: registering stays fast)."""
    missing = []
    for name in REQUIRED:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # a broken install, or a module without a spec
            spec = None
        if spec is None:
            missing.append(name)
    return tuple(missing)


def sentence(missing: tuple[str, ...]) -> str:
    """What is missing and how to get it; empty when nothing is."""
    if not missing:
        return ""
    names = ", ".join(missing)
    packages = " ".join(REQUIRED[name] for name in missing)
    return report(words.MODULES_MISSING, n=len(missing), names=names, packages=packages)


def notice() -> str:
    """The sentence while Kiln is enabled without what it needs (the preferences show it); else empty."""
    return sentence(_missing)


def check() -> bool:
    """Look for the modules once, on register; say what is missing. True when Kiln can work."""
    global _missing
    _missing = find_missing()
    if not _missing:
        return True
    log.warning("%s", notice())
    if not bpy.app.background:
        # No window exists yet while Blender starts: the status bar is written once one does.
        later(_show_in_status_bar, 0.5)
    return False


def forget() -> None:
    """On unregister: take the sentence away again."""
    global _missing
    _missing = ()
    cancel(_show_in_status_bar)
    if is_waiting(_clear_status_bar):
        cancel(_clear_status_bar)
        _clear_status_bar()


def _set_status_text(text: str | None) -> None:
    wm = bpy.context.window_manager
    for window in wm.windows if wm is not None else ():
        with bpy.context.temp_override(window=window):
            workspace = bpy.context.workspace
            if workspace is not None:
                workspace.status_text_set(text)


def _show_in_status_bar() -> float | None:
    """Timer: the sentence in every window's status bar, taken away again after a while."""
    wm = bpy.context.window_manager
    if wm is None or not wm.windows:
        return 0.5  # still starting: no window yet
    _set_status_text(notice())
    later(_clear_status_bar, STATUS_BAR_SECONDS)
    return None


def _clear_status_bar() -> None:
    _set_status_text(None)
