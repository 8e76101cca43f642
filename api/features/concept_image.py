"""An image job's concept image checked before a credit is spent, and prepared for its service.

The request an operator or an agent built goes through :func:`check_request` on a worker thread
(or inline in background mode): an image given by its address is fetched here first, so Kiln can
look at it, and then sent as the file it looked at; the picture is checked
(:mod:`api.checks.image_preflight`) and, unless the artist turned it off, prepared. The request
that comes back carries the prepared file (``image_sent``) and what was found (``preflight``); the
original stays its provenance.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ..checks import image_preflight
from ..checks.image_preflight import Finding, Preflight, ServiceImage
from ..checks.inputs import MAX_IMAGE_BYTES, read_image_file
from ..errors import KilnError
from ..jobs import JobRequest
from ..services import info
from ..words import catalogue as words

log = logging.getLogger(__name__)

#: Seconds to connect and between bytes when Kiln fetches an image to look at it.
FETCH_TIMEOUT = (10.0, 30.0)
#: Never matches an image's origin: the fetch carries no key of any service.
_NO_SERVICE = "https://image-check.invalid/"
_LOCAL_NO_SERVICE = "http://127.0.0.1:9/"


@dataclass(frozen=True)
class Checked:
    """The request to send (prepared where it could be) and what the check found."""

    request: JobRequest
    preflight: Preflight

    @property
    def refusal(self) -> Finding | None:
        return self.preflight.refusal

    def blocks(self, strict: bool) -> bool:
        """Nothing may be sent: a refusal, or anything said when the caller asked for STRICT."""
        return self.refusal is not None or (strict and bool(self.preflight.said))


def service_image(service: str) -> ServiceImage:
    """What ``service`` takes of an image, from its capabilities."""
    caps = info(service).capabilities
    return ServiceImage(caps.image_min_side, caps.image_max_side, caps.image_alpha, caps.image_formats)


def check_request(request: JobRequest, *, prepare: bool, uploads: Path) -> Checked:
    """Look at the request's image (fetched first when it is an address); prepare it into ``uploads``.

    Never raises: a check that fails for a reason of Kiln's own (a folder it cannot write) sends the
    image as it is, said as not looked at, rather than leave the artist's click without an answer.
    """
    try:
        return _check(request, prepare, uploads)
    except Exception:
        log.exception("The image check of %s failed; the image goes as it is", request.label)
        return Checked(request, Preflight(measured=False))


def _check(request: JobRequest, prepare: bool, uploads: Path) -> Checked:
    name = request.label
    source = request.image_path
    if not source and request.image_url:
        try:
            source = str(fetch(request.image_url, uploads))
        except KilnError as exc:
            log.warning("Image %s not fetched: %s (%s)", request.image_url, exc.user_message, exc.details)
            unread = Finding("url_unreadable", words.IMAGE_URL_UNREADABLE, {"url": request.image_url})
            return Checked(request, Preflight(findings=(unread,)))
    found = image_preflight.check_image(
        source,
        service_image(request.service_id),
        name=name,
        prepare_into=uploads if prepare else None,
    )
    sent = found.prepared_path or ("" if source == request.image_path else source)
    summary = json.dumps(found.summary(), sort_keys=True)
    return Checked(replace(request, image_sent=sent, preflight=summary), found)


def fetch(url: str, folder: Path) -> Path:
    """The image at ``url`` saved in ``folder`` (checked as a picked file is), never with a service's key."""
    from ..http.client import DEFAULT_USER_AGENT
    from ..http.download import stream_to_file
    from ..http.origin import is_local_host
    from ..http.transport import Transport

    host = urlsplit(url).hostname or ""
    base = _LOCAL_NO_SERVICE if is_local_host(host) else _NO_SERVICE
    http = Transport(base, "", timeout=FETCH_TIMEOUT, user_agent=DEFAULT_USER_AGENT)
    suffix = PurePosixPath(urlsplit(url).path).suffix.lower()
    dest = (
        folder / f"fetched-{uuid.uuid4().hex}{suffix if suffix in ('.png', '.jpg', '.jpeg', '.webp') else ''}"
    )
    try:
        return stream_to_file(http, url, dest, None, MAX_IMAGE_BYTES, read_image_file, lambda: None)
    finally:
        http.close()
