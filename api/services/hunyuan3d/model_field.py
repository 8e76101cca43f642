"""The model inside Hunyuan3D's status answer, decoded to disk as it streams.

``GET /status/{uid}`` answers ``{"status": "completed", "model_base64": "…"}`` (2.0, 2.1): the GLB
itself, base64 inside JSON, tens of megabytes with texture. Reading it whole would hold it twice in
memory and past any answer cap, so the field is found in the stream and decoded piece by piece into
``<dest>.part``, capped, checked, then renamed (as :mod:`api.http.download` does for a file).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from ... import fs
from ...errors import InvalidMeshError, NetworkError, ServiceError, StorageError
from ...http.download import DOWNLOAD_CHUNK
from ...http.origin import host_label
from ...http.transport import Transport
from ...words import catalogue as words

#: Bytes of the answer kept while the field is looked for (2.1 puts ``model_base64`` before
#: ``initial_model_base64``; any order is taken: the rest is let go as it streams past).
WINDOW_BYTES = 64 * 1024
_VALUE_START = re.compile(rb"\s*:\s*\"")


def save_model_field(
    http: Transport,
    url: str,
    dest: Path,
    field: str,
    progress: Callable[[int, int | None], object] | None,
    max_bytes: int,
    check: Callable[[Path], object] | None,
    check_cancel: Callable[[], None],
) -> Path:
    """Decode the base64 string ``field`` of the JSON answer at ``url`` into ``dest`` (via ``.part``)."""
    part = dest.with_name(dest.name + ".part")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(dest.parent, exc) from None
    try:
        with http.get(url, headers={"Accept-Encoding": "identity"}) as resp:
            if not 200 <= resp.status_code < 300:
                raise http.error_for(resp, download=True)
            with part.open("wb") as out:
                _decode(http.chunks(resp, DOWNLOAD_CHUNK), field, out, progress, max_bytes, check_cancel, url)
                out.flush()
                os.fsync(out.fileno())
        if check is not None:
            check(part)
        fs.replace(part, dest)
    except OSError as exc:
        fs.discard(part)
        raise StorageError(part, exc) from None
    except BaseException:
        fs.discard(part)
        raise
    return dest


def _decode(
    chunks: Iterable[bytes],
    field: str,
    out: BinaryIO,
    progress: Callable[[int, int | None], object] | None,
    max_bytes: int,
    check_cancel: Callable[[], None],
    url: str,
) -> None:
    marker = b'"' + field.encode("ascii") + b'"'
    head = bytearray()
    carry = b""
    done = skipped = 0
    found = finished = False
    if progress is not None:
        progress(0, None)
    for chunk in chunks:
        check_cancel()
        if not found:
            head += chunk
            start = head.find(marker)
            value = _VALUE_START.match(head, start + len(marker)) if start >= 0 else None
            if value is None:
                skipped += len(chunk)
                if skipped > 2 * max_bytes:
                    raise ServiceError(200, f"the answer holds no {field}")
                if start < 0 and len(head) > WINDOW_BYTES:
                    del head[: len(head) - len(marker) - 16]  # keep what may begin the marker
                continue
            found, chunk = True, bytes(head[value.end() :])
        end = chunk.find(b'"')
        piece = carry + (chunk if end < 0 else chunk[:end])
        usable = len(piece) - len(piece) % 4
        try:
            decoded = base64.b64decode(piece[:usable], validate=True)
        except (binascii.Error, ValueError):
            raise ServiceError(200, f"the {field} is not base64") from None
        carry = piece[usable:]
        done += len(decoded)
        if done > max_bytes:
            limit = round(max_bytes / (1024 * 1024))
            raise InvalidMeshError(
                words.MESH_TOO_LARGE,
                problem=f"the model from {host_label(url)} is larger than {limit} MB",
                limit=limit,
            )
        out.write(decoded)
        if progress is not None:
            progress(done, None)
        if end >= 0:
            finished = True
            break
    if not finished or carry:
        raise NetworkError(
            host_label(url), "the model stopped before its end", sent=True, said=words.NETWORK_CUT_OFF
        )
