"""Task ids from the service, checked in one place before any use.

An id is service text Kiln only ever stores, shows and sends back in a URL, where it is quoted
(:func:`url_segment`); it never becomes part of a path (cache files are named from Kiln's own job
id). So any text is a task id — unicode, ``/``, ``:``, ``=``, ``+``, spaces, as real services
use — except what can hurt there: control characters (a NUL cuts text short in C code; a newline
forges a log line or a header), characters that reorder or break shown text, text that is not
text (a lone surrogate cannot be stored or sent as UTF-8), and absurd lengths. A refused id is
still kept for the artist, escaped (:func:`shown_task_id`), so it can be quoted to the service.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

MAX_TASK_ID_CHARS = 512
#: Control characters, lone surrogates, line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
#: Bidirectional controls: they make shown text read differently from what it is.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SHOWN_CHARS = 200


def task_id_problem(value: object) -> str | None:
    """Why ``value`` cannot be used as a task id, in a few words; None when it can."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return "the task id is not text"
    text = str(value) if isinstance(value, str) else _int_text(value)
    if text is None:
        return "the task id is a number too large to use"
    if not text.strip():
        return "the task id is empty"
    if len(text) > MAX_TASK_ID_CHARS:
        return f"the task id is {len(text)} characters long (at most {MAX_TASK_ID_CHARS} are accepted)"
    if any(unicodedata.category(ch) == "Cs" for ch in text):
        return "the task id is not valid text"
    if any(_refused(ch) for ch in text):
        return "the task id contains control characters"
    return None


def check_task_id(value: object) -> str:
    """The id as text, or ValueError naming what is wrong (callers turn it into their sentence)."""
    problem = task_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value if isinstance(value, str) else str(value)


def url_segment(task_id: str) -> str:
    """``task_id`` as one path segment of a URL: every reserved character quoted.

    ``.`` and ``..`` alone are dot-segments a URL library resolves away (``tasks/..`` would be
    the parent), so their dots are quoted too.
    """
    segment = quote(task_id, safe="")
    return segment.replace(".", "%2E") if segment in (".", "..") else segment


def shown_task_id(value: object) -> str:
    """A refused id as the artist may see and quote it: one printable line, control characters
    written as escapes (``\\x00``), a backslash doubled, cut after a few hundred characters."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return f"<{type(value).__name__}, not text>"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 1000 else "<a number too large to show>"
    shown = "".join(_escaped(ch) for ch in value[:_SHOWN_CHARS])
    return shown + f"… ({len(value)} characters)" if len(value) > _SHOWN_CHARS else shown


def _refused(ch: str) -> bool:
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) in _REFUSED_CATEGORIES


def _escaped(ch: str) -> str:
    if ch == "\\":
        return "\\\\"
    if ch == " " or (ch.isprintable() and not _refused(ch)):
        return ch
    return ascii(ch)[1:-1]


def _int_text(value: int) -> str | None:
    if value < 0 or value.bit_length() > 128:
        return None
    return str(value)
