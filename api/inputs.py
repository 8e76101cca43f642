"""Checks of what the artist typed or picked, made before anything is sent.

Shared by the client (the last line of defence) and the operators (an instant answer in
the UI, before a job is even created), so both say the same sentence.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

from .errors import InputError
from .glb import image_kind

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # the spec shows no limit; 20 MB is generous for a concept image


def check_prompt(prompt: object) -> str:
    """The prompt stripped, or InputError when there is nothing to describe."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError("The prompt is empty. Describe the object you want, for example 'a red chair'.")
    return prompt.strip()


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


def check_web_url(url: object, what: str) -> str:
    """Return ``url`` stripped if it is https (or http to loopback); else raise InputError."""
    if not isinstance(url, str) or not url.strip():
        raise InputError(f"The {what} is empty.")
    url = url.strip()
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise InputError(f"The {what} has an invalid port: {url}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"The {what} is not a web address starting with https:// ({url}).")
    if scheme == "http" and not is_loopback_host(parts.hostname):
        raise InputError(
            f"The {what} must start with https:// — plain http is only allowed to this computer ({url})."
        )
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
