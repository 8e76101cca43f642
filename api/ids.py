"""Task ids from the service, checked in one place before any use.

An id is service text: it goes into a URL path (quoted) and, in older code paths, into cache
file names. So an id is accepted only when it is short and made of letters, digits, ``_``,
``-`` and ``.`` (not first), which no file system or URL reads as anything but a name.
"""

from __future__ import annotations

import re

MAX_TASK_ID_CHARS = 128
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
# Names Windows reserves for devices in every folder ("NUL.glb" is the null device there).
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{name}{n}" for name in ("com", "lpt") for n in "0123456789¹²³"}
)


def task_id_problem(value: object) -> str | None:
    """Why ``value`` cannot be used as a task id, in a few words; None when it can."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return "the task id is not text"
    text = str(value) if isinstance(value, str) else _int_text(value)
    if text is None:
        return "the task id is a number too large to use"
    if not text:
        return "the task id is empty"
    if len(text) > MAX_TASK_ID_CHARS:
        return f"the task id is {len(text)} characters long (at most {MAX_TASK_ID_CHARS} are accepted)"
    if not _TASK_ID.fullmatch(text):
        return "the task id contains characters other than letters, digits, '_', '-' and '.'"
    if text.split(".", 1)[0].lower() in _WINDOWS_DEVICES or text.endswith("."):
        return "the task id is a name Windows reserves for devices"
    return None


def check_task_id(value: object) -> str:
    """The id as text, or ValueError naming what is wrong (callers turn it into their sentence)."""
    problem = task_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value if isinstance(value, str) else str(value)


def _int_text(value: int) -> str | None:
    if value < 0 or value.bit_length() > 128:
        return None
    return str(value)
