"""Checks of what the artist typed or picked, made before anything is sent.

Shared by the client (the last line of defence) and the operators (an instant answer in
the UI, before a job is even created), so both say the same sentence.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import InputError
from .glb import image_kind

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # the spec shows no limit; 20 MB is generous for a concept image
#: The spec shows no prompt limit. 4,000 characters keeps long prompts from a Text block usable
#: while a pasted megabyte is refused before it is sent (docs/trust.md, "Prompts").
MAX_PROMPT_CHARS = 4000
MAX_URL_CHARS = 4096
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_prompt(prompt: object) -> str:
    """The prompt stripped, or InputError: empty, too long, or holding invisible control characters.

    Control characters (NUL included) are refused rather than stripped so what is sent is exactly
    what the artist sees; tab and line breaks are ordinary text and pass.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError("The prompt is empty. Describe the object you want, for example 'a red chair'.")
    prompt = prompt.strip()
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InputError(
            f"The prompt is {len(prompt):,} characters long; Kiln sends at most {MAX_PROMPT_CHARS:,}. "
            "Shorten it to the object's main features."
        )
    bad = next((c for c in prompt if _is_hidden_control(c)), None)
    if bad is not None:
        raise InputError(
            f"The prompt contains an invisible control character (U+{ord(bad):04X}). "
            "Retype it or paste it as plain text."
        )
    return prompt


def _is_hidden_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    category = unicodedata.category(char)
    # Cc: C0/C1 controls incl. NUL; Cs: lone surrogates (not encodable); bidi overrides reorder text.
    return category in ("Cc", "Cs") or char in _BIDI_CONTROLS


def is_loopback_host(host: str | None) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 — the only hosts plain http may be used with."""
    if not host:
        return False
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str | None:
    """Why a web address is refused before any connection, in a few words; None when it is usable.

    Refused: anything but http(s), plain http beyond this computer, user info (``user@``),
    backslashes, white space or control characters (parsers disagree on such addresses, which
    can send a request, and the key, to a host other than the one Kiln judged).
    """
    if len(url) > MAX_URL_CHARS:
        return f"it is {len(url):,} characters long (at most {MAX_URL_CHARS:,})"
    if "\\" in url:
        return "it contains a backslash"
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in url):
        return "it contains spaces or control characters"
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return "it is not a web address starting with https://"
    if "@" in parts.netloc:
        return "it carries a user name or password before '@'"
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return "it has an invalid port"
    if not parts.hostname:
        return "it names no host"
    if scheme == "http" and not is_loopback_host(parts.hostname):
        return "it must start with https:// (plain http is only allowed to this computer)"
    return None


def check_web_url(url: object, what: str) -> str:
    """Return ``url`` stripped if :func:`url_problem` finds nothing; else raise InputError."""
    if not isinstance(url, str) or not url.strip():
        raise InputError(f"The {what} is empty.")
    url = url.strip()
    problem = url_problem(url)
    if problem is not None:
        shown = url if len(url) <= 200 and url.isprintable() else ascii(url[:200])
        raise InputError(f"The {what} cannot be used: {problem} ({shown}).")
    return url


def check_image_bytes(data: object, what: str) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InputError(f"{what} must be bytes.")
    data = bytes(data)
    if not data:
        raise InputError(f"{what} is empty.")
    if len(data) > MAX_IMAGE_BYTES:
        raise InputError(f"{what} is {len(data) / 1e6:.1f} MB; the limit is {MAX_IMAGE_BYTES / 1e6:.0f} MB.")
    if image_kind(data[:16]) is None:
        raise InputError(f"{what} is not a PNG, JPEG or WebP image (judged by its content).")
    return data


def read_image_file(path: Path) -> bytes:
    """Read and check the image before anything is sent, so a bad file never costs a request."""
    what = f"The image file {path}"
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{what} is not a file.")
        if size > MAX_IMAGE_BYTES:
            raise InputError(f"{what} is {size / 1e6:.1f} MB; the limit is {MAX_IMAGE_BYTES / 1e6:.0f} MB.")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} does not exist.") from None
    except OSError as exc:
        raise InputError(f"{what} cannot be read: {exc.strerror or exc}.") from None
    return check_image_bytes(data, what)
