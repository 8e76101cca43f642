"""One download streamed to disk: capped, cut when too slow (by the active guard), renamed when whole.

The envelope is written once here (``<dest>.part``, the size cap, a cancel between pieces, fsync,
the check, the atomic rename, the leftover removed on any failure); what turns the answer's body
into the file's bytes is a :data:`BodyWriter`: the body as it is (:func:`copy_body`), or a
service's own reading of it (Hunyuan3D's model inside a JSON answer).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import requests

from .. import fs
from ..errors import InvalidMeshError, NetworkError, StorageError
from ..words import catalogue as words
from .origin import host_label, loggable
from .transport import Transport

logger = logging.getLogger(__name__)

DOWNLOAD_CHUNK = 64 * 1024  # the throughput floor sees progress at least every 64 KB


class Sink:
    """The ``.part`` file as a body writer fills it: every write counted against the cap and reported."""

    def __init__(
        self,
        file: BinaryIO,
        url: str,
        max_bytes: int,
        progress: Callable[[int, int | None], object] | None,
    ) -> None:
        self._file = file
        self.url = url
        self.max_bytes = max_bytes
        self._progress = progress
        self.total: int | None = None
        self.done = 0

    def begin(self, total: int | None) -> None:
        """The size the answer announced (None: unknown), refused at once when over the cap."""
        if total is not None and total > self.max_bytes:
            raise self._too_large()
        self.total = total
        if self._progress is not None:
            self._progress(0, total)

    def write(self, data: bytes) -> None:
        """Bytes of the file, in order; past the cap the download ends before they are written."""
        self.done += len(data)
        if self.done > self.max_bytes:
            raise self._too_large()
        self._file.write(data)
        if self._progress is not None:
            self._progress(self.done, self.total)

    def _too_large(self) -> InvalidMeshError:
        limit = round(self.max_bytes / (1024 * 1024))
        return InvalidMeshError(
            words.MESH_TOO_LARGE,
            problem=f"the file from {host_label(self.url)} is larger than {limit} MB",
            limit=limit,
        )


#: Turns a 2xx answer's body (its pieces, a cancel checked before each) into the file through the
#: sink; an answer it cannot use raises a Kiln error.
BodyWriter = Callable[[requests.Response, Iterable[bytes], Sink], None]


def copy_body(resp: requests.Response, chunks: Iterable[bytes], sink: Sink) -> None:
    """The body as it is; a transfer that stops short of its Content-Length is a network error."""
    length = resp.headers.get("Content-Length", "")
    # identity was asked for: Content-Length then counts the bytes stored, for progress and the cap.
    total = (
        int(length)
        if length.isdigit() and len(length) < 20 and "Content-Encoding" not in resp.headers
        else None
    )
    sink.begin(total)
    for chunk in chunks:
        sink.write(chunk)
    # urllib3 1.x (which an older Blender may bundle) does not enforce Content-Length itself.
    if total is not None and sink.done != total:
        raise NetworkError(
            host_label(sink.url),
            f"the transfer stopped after {sink.done} of {total} bytes",
            sent=True,
            said=words.NETWORK_CUT_OFF,
        )


def stream_to_file(
    http: Transport,
    url: str,
    dest: Path,
    progress: Callable[[int, int | None], object] | None,
    max_bytes: int,
    check: Callable[[Path], object] | None,
    check_cancel: Callable[[], None],
    body: BodyWriter = copy_body,
) -> Path:
    """Download ``url`` to ``dest`` through ``<dest>.part``: ``body`` writes it, fsync, ``check(part)``,
    atomic rename. ``progress(done, total)`` gets the bytes written and the total when known."""
    part = dest.with_name(dest.name + ".part")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(dest.parent, exc) from None
    try:
        _stream(http, url, part, progress, max_bytes, check_cancel, body)
        if check is not None:
            check(part)
        fs.replace(part, dest)
    except OSError as exc:  # the check reading the part file, say: a sentence, never a bare OSError
        fs.discard(part)
        raise StorageError(part, exc) from None
    except BaseException:
        fs.discard(part)
        raise
    _fsync_dir(dest.parent)
    return dest


def _stream(
    http: Transport,
    url: str,
    part: Path,
    progress: Callable[[int, int | None], object] | None,
    max_bytes: int,
    check_cancel: Callable[[], None],
    body: BodyWriter,
) -> None:
    # identity: the bytes sent are the bytes stored, so the cap and Content-Length count them.
    with http.get(url, headers={"Accept-Encoding": "identity"}) as resp:
        if not 200 <= resp.status_code < 300:
            raise http.error_for(resp, download=True)
        with part.open("wb") as f:
            sink = Sink(f, url, max_bytes, progress)
            body(resp, _cancellable(http.chunks(resp, DOWNLOAD_CHUNK), check_cancel), sink)
            f.flush()
            os.fsync(f.fileno())
    logger.debug("Downloaded %d bytes from %s", sink.done, loggable(url))


def _cancellable(chunks: Iterable[bytes], check_cancel: Callable[[], None]) -> Iterator[bytes]:
    for chunk in chunks:
        check_cancel()
        yield chunk


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable; directories cannot be opened for fsync on Windows, so best effort."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        logger.debug("fsync of %s not supported", directory)
    finally:
        os.close(fd)
