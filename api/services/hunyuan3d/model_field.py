"""The model inside Hunyuan3D's status answer, decoded to disk as it streams.

``GET /status/{uid}`` answers ``{"status": "completed", "model_base64": "…"}`` (2.0, 2.1): the GLB
itself, base64 inside JSON, tens of megabytes with texture. Reading it whole would hold it twice in
memory and past any answer cap, so the field is found in the stream and decoded piece by piece: a
body writer for :func:`api.http.download.stream_to_file`, which keeps the envelope (``<dest>.part``,
the size cap, the check, the rename) as for any file.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

import requests

from ...errors import NetworkError, ServiceError
from ...http.download import BodyWriter, Sink
from ...http.origin import host_label
from ...words import catalogue as words

#: Bytes of the answer kept while the field is looked for (2.1 puts ``model_base64`` before
#: ``initial_model_base64``; any order is taken: the rest is let go as it streams past).
WINDOW_BYTES = 64 * 1024
_VALUE_START = re.compile(rb"\s*:\s*\"")


def model_field(field: str) -> BodyWriter:
    """The body writer that decodes the base64 string ``field`` of a JSON answer into the file."""

    def decode(resp: requests.Response, chunks: Iterable[bytes], sink: Sink) -> None:
        _decode(chunks, field, sink)

    return decode


def _decode(chunks: Iterable[bytes], field: str, sink: Sink) -> None:
    marker = b'"' + field.encode("ascii") + b'"'
    head = bytearray()
    carry = b""
    skipped = 0
    found = finished = False
    sink.begin(None)
    for chunk in chunks:
        if not found:
            head += chunk
            start = head.find(marker)
            value = _VALUE_START.match(head, start + len(marker)) if start >= 0 else None
            if value is None:
                skipped += len(chunk)
                if skipped > 2 * sink.max_bytes:
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
        sink.write(decoded)
        if end >= 0:
            finished = True
            break
    if not finished or carry:
        raise NetworkError(
            host_label(sink.url), "the model stopped before its end", sent=True, said=words.NETWORK_CUT_OFF
        )
