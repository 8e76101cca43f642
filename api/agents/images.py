"""An image an agent gives: as base64 data, as an https address, or as a file in an allowed folder.

* **Data** is measured before it is decoded (its length says its size), so a huge string costs no
  decoding; once decoded, the bytes must be a PNG, JPEG or WebP by their content, within the
  Sidebar's size limit (``api.checks.inputs.check_image_bytes``).
* **An address** must be https and pass the Sidebar's web-address rules (``check_web_url``); the
  service fetches it, Kiln never does.
* **A file** is read only inside a folder the artist allowed (none by default). The path must be
  absolute; symbolic links and ``..`` are resolved before it is compared with each allowed folder
  (also resolved), so no spelling of a path leads outside. A file that stops being the one that was
  judged while it is read is refused. The bytes then pass the same check as a picked file
  (``read_image_file``). Whether a file outside the folders exists is never said.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Sequence
from pathlib import Path

from ..checks.inputs import MAX_IMAGE_BYTES, check_image_bytes, check_web_url, read_image_file
from ..errors import InputError
from . import words

#: Base64 of the largest image Kiln sends, with room for a data: prefix and line breaks.
MAX_BASE64_CHARS = 4 * -(-MAX_IMAGE_BYTES // 3) + MAX_IMAGE_BYTES // 48 + 256
MAX_PATH_CHARS = 4096
_DATA_URL = re.compile(r"data:[\w.+/-]{0,100};base64,", re.ASCII)
WHAT = "The image"


def from_base64(text: str) -> bytes:
    """The image's bytes from base64 (a data: address is fine too); InputError when unusable."""
    text = text.strip()
    if len(text) > MAX_BASE64_CHARS:
        raise InputError(
            words.IMAGE_DATA_TOO_LARGE.format(size=len(text) * 3 / 4 / 1e6, limit=MAX_IMAGE_BYTES / 1e6)
        )
    prefix = _DATA_URL.match(text)
    if prefix:
        text = text[prefix.end() :]
    text = "".join(text.split())
    if len(text) * 3 // 4 > MAX_IMAGE_BYTES + 2:
        raise InputError(
            words.IMAGE_DATA_TOO_LARGE.format(size=len(text) * 3 / 4 / 1e6, limit=MAX_IMAGE_BYTES / 1e6)
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(words.IMAGE_DATA_NOT_BASE64) from None
    return check_image_bytes(data, WHAT)


def from_url(url: str) -> str:
    """The https address, checked as the Sidebar checks one; InputError otherwise."""
    url = check_web_url(url, "image address")
    if not url.lower().startswith("https://"):
        raise InputError(words.IMAGE_URL_NOT_HTTPS)
    return url


def from_file(path_text: str, allowed: Sequence[Path]) -> bytes:
    """The image file's checked bytes, when it lies inside one of the ``allowed`` folders."""
    if not allowed:
        raise InputError(words.NO_FOLDERS_ALLOWED)
    try:
        given = Path(path_text)
        if not given.is_absolute():
            raise InputError(words.PATH_NOT_ABSOLUTE)
        real = os.path.realpath(given)
        roots = [os.path.realpath(folder) for folder in allowed]
    except (OSError, ValueError) as exc:  # NUL in the path, a path the system cannot even spell
        raise InputError(words.PATH_UNUSABLE.format(reason=_reason(exc))) from None
    if not any(_inside(real, root) for root in roots):
        shown = ascii(path_text[:200]) if not path_text.isprintable() else path_text[:200]
        raise InputError(words.PATH_OUTSIDE.format(path=shown, folders=", ".join(str(f) for f in allowed)))
    data = read_image_file(Path(real))
    if os.path.realpath(given) != real:
        raise InputError(words.PATH_CHANGED)
    return data


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.normcase(path), os.path.normcase(folder)
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives on Windows
        return False


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or "it contains characters no path can hold"
