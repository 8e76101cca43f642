"""One download streamed to disk: capped, cut when too slow (by the active guard), renamed when whole."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from .. import fs
from ..errors import InvalidMeshError, NetworkError, StorageError
from ..words import catalogue as words
from .origin import host_label, loggable
from .transport import Transport

logger = logging.getLogger(__name__)

DOWNLOAD_CHUNK = 64 * 1024  # the throughput floor sees progress at least every 64 KB


def stream_to_file(
    http: Transport,
    url: str,
    dest: Path,
    progress: Callable[[int, int | None], object] | None,
    max_bytes: int,
    check: Callable[[Path], object] | None,
    check_cancel: Callable[[], None],
) -> Path:
    """Download ``url`` to ``dest`` through ``<dest>.part``: fsync, ``check(part)``, atomic rename."""
    part = dest.with_name(dest.name + ".part")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(dest.parent, exc) from None
    try:
        _stream(http, url, part, progress, max_bytes, check_cancel)
        if check is not None:
            check(part)
        fs.replace(part, dest)
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
) -> None:
    # identity: Content-Length then counts the bytes we store, for progress and the size cap.
    with http.get(url, headers={"Accept-Encoding": "identity"}) as resp:
        if not 200 <= resp.status_code < 300:
            raise http.error_for(resp, download=True)
        length = resp.headers.get("Content-Length", "")
        total = (
            int(length)
            if length.isdigit() and len(length) < 20 and "Content-Encoding" not in resp.headers
            else None
        )
        if total is not None and total > max_bytes:
            raise _too_large(url, max_bytes)
        done = 0
        if progress is not None:
            progress(0, total)
        try:
            with part.open("wb") as f:
                for chunk in http.chunks(resp, DOWNLOAD_CHUNK):
                    check_cancel()
                    done += len(chunk)
                    if done > max_bytes:
                        raise _too_large(url, max_bytes)
                    f.write(chunk)
                    if progress is not None:
                        progress(done, total)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise StorageError(part, exc) from None
        # urllib3 1.x (which an older Blender may bundle) does not enforce Content-Length itself.
        if total is not None and done != total:
            raise NetworkError(
                host_label(url),
                f"the transfer stopped after {done} of {total} bytes",
                sent=True,
                said=words.NETWORK_CUT_OFF,
            )
    logger.debug("Downloaded %d bytes from %s", done, loggable(url))


def _too_large(url: str, max_bytes: int) -> InvalidMeshError:
    limit = round(max_bytes / (1024 * 1024))
    return InvalidMeshError(
        words.MESH_TOO_LARGE,
        problem=f"the file from {host_label(url)} is larger than {limit} MB",
        limit=limit,
    )


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
