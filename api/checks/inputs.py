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
from ..words import Entry, english, shorten
from ..words import catalogue as words

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
        raise InputError(words.PROMPT_EMPTY)
    prompt = prompt.strip()
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InputError(words.PROMPT_TOO_LONG, length=len(prompt), limit=MAX_PROMPT_CHARS)
    bad = next((c for c in prompt if _is_hidden_control(c)), None)
    if bad is not None:
        raise InputError(words.PROMPT_HIDDEN_CHARACTER, code=f"U+{ord(bad):04X}")
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


def url_problem(url: str, *, plain_http: bool = False) -> Entry | None:
    """Why a web address is refused before any connection (a catalogue sentence whose ``url`` names
    it); None when it is usable.

    Refused: anything but http(s), plain http beyond this computer (allowed with ``plain_http``: a
    server of the studio's own that is sent no key, ``ServiceInfo.needs_key``), user info (``user@``),
    backslashes, white space or control characters (parsers disagree on such addresses, which
    can send a request, and the key, to a host other than the one Kiln judged).
    """
    if len(url) > MAX_URL_CHARS:
        return words.ADDRESS_TOO_LONG
    if "\\" in url:
        return words.ADDRESS_HAS_BACKSLASH
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in url):
        return words.ADDRESS_HAS_SPACES
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return words.ADDRESS_NOT_WEB
    if "@" in parts.netloc:
        return words.ADDRESS_HAS_USER
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return words.ADDRESS_BAD_PORT
    if not parts.hostname:
        return words.ADDRESS_NO_HOST
    if scheme == "http" and not plain_http and not is_loopback_host(parts.hostname):
        return words.ADDRESS_NOT_HTTPS
    return None


def shown_url(url: str) -> str:
    """An address as a sentence shows it: one printable line, shortened when long."""
    return shorten(url if url.isprintable() else ascii(url)[1:-1], 200)


def problem_words(problem: Entry, url: str) -> str:
    """What :func:`url_problem` found, in English, for the details of an error about ``url``."""
    return english(problem, url=shown_url(url), length=len(url), limit=MAX_URL_CHARS)


#: The sentence for an empty address, by what the address is for (any other: an image's).
_EMPTY = {"service URL": words.SERVICE_ADDRESS_MISSING, "webhook URL": words.WEBHOOK_ADDRESS_EMPTY}


def check_web_url(url: object, what: str, *, plain_http: bool = False) -> str:
    """Return ``url`` stripped if :func:`url_problem` finds nothing; else raise InputError.

    ``what`` says what the address is for ("service URL", "image URL", "webhook URL"): it picks the
    sentence for an empty one, and goes to the details.
    """
    if not isinstance(url, str) or not url.strip():
        raise InputError(_EMPTY.get(what, words.IMAGE_ADDRESS_EMPTY))
    url = url.strip()
    problem = url_problem(url, plain_http=plain_http)
    if problem is not None:
        raise InputError(
            problem, details=f"the {what}", url=shown_url(url), length=len(url), limit=MAX_URL_CHARS
        )
    return url


def check_image_bytes(data: object, what: str = "the image data") -> bytes:
    """The image's bytes, or InputError: not bytes, empty, too large, or not a PNG, JPEG or WebP
    picture by its content. ``what`` goes to the details."""
    return _checked_image(data, None, what)


def read_image_file(path: Path) -> bytes:
    """Read and check the image before anything is sent, so a bad file never costs a request.

    The artist chose the file, so the sentences name it.
    """
    shown = str(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(words.IMAGE_FILE_NOT_A_FILE, path=shown)
        if size > MAX_IMAGE_BYTES:
            limit = MAX_IMAGE_BYTES / 1e6
            raise InputError(words.IMAGE_FILE_TOO_LARGE, path=shown, size=size / 1e6, limit=limit)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(words.IMAGE_FILE_MISSING, path=shown) from None
    except OSError as exc:
        raise InputError(words.IMAGE_FILE_UNREADABLE, details=str(exc.strerror or exc), path=shown) from None
    return _checked_image(data, path, "the image file")


def _checked_image(data: object, path: Path | None, what: str) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InputError(words.IMAGE_DATA_NOT_BYTES, details=f"{what} is {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise InputError(words.IMAGE_DATA_EMPTY, details=what)
    if len(data) > MAX_IMAGE_BYTES:
        size, limit = len(data) / 1e6, MAX_IMAGE_BYTES / 1e6
        if path is not None:
            raise InputError(words.IMAGE_FILE_TOO_LARGE, path=str(path), size=size, limit=limit)
        raise InputError(words.IMAGE_DATA_TOO_LARGE, details=what, size=size, limit=limit)
    from .glb import image_kind  # the GLB checks load with the first image, not at registration

    if image_kind(data[:16]) is None:
        if path is not None:
            raise InputError(words.IMAGE_FILE_NOT_AN_IMAGE, path=str(path))
        raise InputError(words.IMAGE_DATA_NOT_AN_IMAGE, details=what)
    return data
