"""Checks a downloaded file before Blender ever sees it.

Blender's glTF importer reports a damaged GLB with a traceback or, worse, half a scene; checking
the container here lets Kiln name what is wrong in a sentence. Only the container is checked
(header, chunk layout, JSON parseable), not the meshes. Previews are checked by their bytes
without Pillow, which Blender does not bundle.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .errors import InvalidMeshError, InvalidPreviewError

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A  # "JSON" little-endian
CHUNK_BIN = 0x004E4942  # "BIN\0" little-endian
_HEADER = struct.Struct("<4sII")
_CHUNK_HEADER = struct.Struct("<II")
MAX_PREVIEW_BYTES = 64 * 1024 * 1024

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
IMAGE_MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}


@dataclass(frozen=True)
class GlbInfo:
    """What the container check learned; enough for a log line or a sanity assertion."""

    size: int
    json_length: int
    bin_length: int | None
    asset_version: str | None
    generator: str | None
    meshes: int


def check_glb(path: str | Path) -> GlbInfo:
    """Verify a binary glTF 2.0 container; raise InvalidMeshError naming the first problem."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(0)
            return _check_glb_stream(f, size)
    except OSError as exc:
        raise InvalidMeshError(f"the file could not be read: {exc.strerror or exc}") from exc


def _check_glb_stream(f: BinaryIO, size: int) -> GlbInfo:
    if size < _HEADER.size + _CHUNK_HEADER.size:
        raise InvalidMeshError(f"the file is only {size} bytes, too short to be a GLB")
    magic, version, length = _HEADER.unpack(f.read(_HEADER.size))
    if magic != GLB_MAGIC:
        raise InvalidMeshError(f"it does not start with the GLB magic 'glTF' (found {magic!r})")
    if version != 2:
        raise InvalidMeshError(f"it is GLB version {version}; Blender needs version 2")
    if length != size:
        raise InvalidMeshError(
            f"the header says {length} bytes but the file has {size} (truncated or padded)"
        )

    offset = _HEADER.size
    index = 0
    json_length = 0
    bin_length: int | None = None
    document: dict[str, object] = {}
    while offset < size:
        if size - offset < _CHUNK_HEADER.size:
            raise InvalidMeshError(f"chunk {index} at byte {offset} has an incomplete header")
        f.seek(offset)
        chunk_length, chunk_type = _CHUNK_HEADER.unpack(f.read(_CHUNK_HEADER.size))
        start = offset + _CHUNK_HEADER.size
        if chunk_length % 4:
            raise InvalidMeshError(f"chunk {index} length {chunk_length} is not a multiple of 4")
        if start + chunk_length > size:
            raise InvalidMeshError(
                f"chunk {index} claims {chunk_length} bytes but only {size - start} remain in the file"
            )
        if index == 0:
            if chunk_type != CHUNK_JSON:
                raise InvalidMeshError(f"the first chunk is type 0x{chunk_type:08x}, not JSON")
            json_length = chunk_length
            document = _parse_json_chunk(f.read(chunk_length))
        elif chunk_type == CHUNK_JSON:
            raise InvalidMeshError(f"chunk {index} is a second JSON chunk")
        elif chunk_type == CHUNK_BIN:
            if index != 1:
                raise InvalidMeshError(f"the BIN chunk is chunk {index}; it must directly follow the JSON")
            bin_length = chunk_length
        # Other chunk types are allowed by the glTF spec and ignored by readers.
        offset = start + chunk_length
        index += 1

    _check_embedded_buffer(document, bin_length)
    asset = document.get("asset")
    asset_version = _string_field(asset, "version")
    if asset_version is not None and not asset_version.startswith("2."):
        raise InvalidMeshError(f"the glTF asset version is {asset_version}; Blender needs 2.x")
    meshes = document.get("meshes")
    return GlbInfo(
        size=size,
        json_length=json_length,
        bin_length=bin_length,
        asset_version=asset_version,
        generator=_string_field(asset, "generator"),
        meshes=len(meshes) if isinstance(meshes, list) else 0,
    )


def _parse_json_chunk(raw: bytes) -> dict[str, object]:
    try:
        # The spec pads the JSON chunk with spaces, which json.loads accepts.
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidMeshError(f"the JSON chunk is not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise InvalidMeshError(f"the JSON chunk does not parse: {exc.msg} at character {exc.pos}") from exc
    if not isinstance(document, dict):
        raise InvalidMeshError("the JSON chunk is not a JSON object")
    return document


def _check_embedded_buffer(document: Mapping[str, object], bin_length: int | None) -> None:
    """buffers[0] without a uri lives in the BIN chunk, which must be big enough to hold it."""
    buffers = document.get("buffers")
    if not isinstance(buffers, list) or not buffers or not isinstance(buffers[0], Mapping):
        return
    first = buffers[0]
    wanted = first.get("byteLength")
    if "uri" in first or not isinstance(wanted, int):
        return
    if bin_length is None:
        raise InvalidMeshError("the JSON refers to an embedded buffer but the file has no BIN chunk")
    if bin_length < wanted:
        raise InvalidMeshError(f"the BIN chunk has {bin_length} bytes but the JSON needs {wanted}")


def _string_field(obj: object, key: str) -> str | None:
    value = obj.get(key) if isinstance(obj, Mapping) else None
    return value if isinstance(value, str) else None


def image_kind(head: bytes) -> str | None:
    """'png', 'jpeg' or 'webp' from the first bytes of a file, or None; content, not name, decides."""
    if head.startswith(_PNG_SIGNATURE):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


def check_preview(path: str | Path) -> str:
    """Verify a preview is a plausible PNG/JPEG/WebP; return its kind or raise InvalidPreviewError.

    PNG is walked chunk by chunk (lengths and CRCs, IHDR first, IDAT present, IEND last); JPEG
    must start with SOI and end with EOI; WebP's RIFF size must match the file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_PREVIEW_BYTES:
            raise InvalidPreviewError(f"it is {size} bytes, more than a preview should be")
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidPreviewError(f"the file could not be read: {exc.strerror or exc}") from exc
    kind = image_kind(data[:16])
    if kind == "png":
        _check_png(data)
    elif kind == "jpeg":
        if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
            raise InvalidPreviewError("the JPEG has no end marker (truncated)")
    elif kind == "webp":
        riff_size = struct.unpack("<I", data[4:8])[0]
        if riff_size + 8 not in (len(data), len(data) - 1) or data[12:16] not in (b"VP8 ", b"VP8L", b"VP8X"):
            raise InvalidPreviewError("the WebP container is inconsistent (truncated or damaged)")
    else:
        raise InvalidPreviewError("it is not a PNG, JPEG or WebP image")
    return kind


def _check_png(data: bytes) -> None:
    offset = len(_PNG_SIGNATURE)
    seen: list[bytes] = []
    while offset < len(data):
        if len(data) - offset < 12:
            raise InvalidPreviewError("the PNG ends inside a chunk header (truncated)")
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        ctype = data[offset + 4 : offset + 8]
        end = offset + 12 + length
        if end > len(data):
            raise InvalidPreviewError(f"the PNG chunk {ctype!r} runs past the end of the file (truncated)")
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(ctype + body) != crc:
            raise InvalidPreviewError(f"the PNG chunk {ctype!r} fails its checksum")
        if not seen and (ctype != b"IHDR" or length != 13 or b"\x00\x00\x00\x00" in (body[:4], body[4:8])):
            raise InvalidPreviewError("the PNG does not start with a valid IHDR header")
        seen.append(ctype)
        offset = end
        if ctype == b"IEND":
            break
    if not seen or seen[-1] != b"IEND":
        raise InvalidPreviewError("the PNG has no IEND chunk (truncated)")
    if b"IDAT" not in seen:
        raise InvalidPreviewError("the PNG has no image data")
    if offset != len(data):
        raise InvalidPreviewError(f"the PNG has {len(data) - offset} stray bytes after IEND")
