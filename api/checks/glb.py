"""Checks a downloaded file before Blender ever sees it.

Blender's glTF importer reports a damaged GLB with a traceback or, worse, half a scene, and
trusts the file's structure (sizes, counts, references) blindly; checking here lets Kiln say so
in a sentence (what is wrong goes to its details) before any importer sees the bytes. The container
is checked here, the document's structure in :mod:`api.checks.gltf_checks`. Previews are checked
by their bytes without Pillow, which Blender does not bundle.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import InvalidMeshError, InvalidPreviewError
from ..words import shorten
from .gltf_checks import check_document

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A  # "JSON" little-endian
CHUNK_BIN = 0x004E4942  # "BIN\0" little-endian
_HEADER = struct.Struct("<4sII")
_CHUNK_HEADER = struct.Struct("<II")
MAX_PREVIEW_BYTES = 64 * 1024 * 1024
MAX_JSON_BYTES = 64 * 1024 * 1024  # exporters write a few MB at most; Blender would read it whole

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
    #: Triangles the meshes draw, read from the accessors' counts (None where the file does not say).
    triangles: int | None = None


def check_glb(path: str | Path) -> GlbInfo:
    """Verify a binary glTF 2.0 file; raise InvalidMeshError naming the first problem.

    The container (header, chunks) is checked as Blender's importer reads it, then the JSON's
    structure (:mod:`api.checks.gltf_checks`); the binary chunk is never read whole, so this stays fast
    and small for a file of hundreds of megabytes.
    """
    path = Path(path)
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(0)
            return _check_glb_stream(f, size)
    except OSError as exc:
        raise InvalidMeshError(problem=f"the file could not be read: {exc.strerror or exc}") from exc
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError) as exc:
        # Belt and braces: the checks below raise InvalidMeshError themselves.
        raise InvalidMeshError(problem=f"its structure could not be read ({type(exc).__name__})") from None


def _check_glb_stream(f: BinaryIO, size: int) -> GlbInfo:
    _check_header(f, size)
    json_length, document, bin_start, bin_length = _read_chunks(f, size)

    def peek(buffer: int, at: int, count: int) -> bytes:
        return _peek(f, document, bin_start, buffer, at, count)

    check_document(document, bin_length, size, peek)
    asset = document.get("asset")
    meshes = document.get("meshes")
    return GlbInfo(
        size=size,
        json_length=json_length,
        bin_length=bin_length,
        asset_version=_string_field(asset, "version"),
        generator=_string_field(asset, "generator"),
        meshes=len(meshes) if isinstance(meshes, list) else 0,
        triangles=_triangles(document),
    )


#: Triangles drawn by ``count`` vertices in each primitive mode that draws triangles (glTF 2.0
#: ``mesh.primitive.mode``: 4 triangles, the default; 5 a strip; 6 a fan).
_TRIANGLES_IN_MODE = {
    4: lambda count: count // 3,
    5: lambda count: max(count - 2, 0),
    6: lambda count: max(count - 2, 0),
}


def _triangles(document: dict[str, object]) -> int | None:
    """The triangles a checked document's meshes draw (instances counted once), from accessor counts
    (indices, else positions): what a service that does not say its count made. None when unsure."""
    meshes, accessors = document.get("meshes"), document.get("accessors")
    if not isinstance(meshes, list) or not isinstance(accessors, list):
        return None
    total = 0
    for mesh in meshes:
        primitives = mesh.get("primitives") if isinstance(mesh, dict) else None
        for primitive in primitives if isinstance(primitives, list) else []:
            if not isinstance(primitive, dict):
                return None
            mode = primitive.get("mode", 4)
            attributes = primitive.get("attributes")
            index = primitive.get(
                "indices", attributes.get("POSITION") if isinstance(attributes, dict) else None
            )
            if mode not in _TRIANGLES_IN_MODE:
                continue
            accessor = accessors[index] if isinstance(index, int) and 0 <= index < len(accessors) else None
            count = accessor.get("count") if isinstance(accessor, dict) else None
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                return None
            total += _TRIANGLES_IN_MODE[mode](count)
    return total


def _check_header(f: BinaryIO, size: int) -> None:
    if size < _HEADER.size + _CHUNK_HEADER.size:
        raise InvalidMeshError(problem=f"the file is only {size} bytes, too short to be a GLB")
    magic, version, length = _HEADER.unpack(f.read(_HEADER.size))
    if magic != GLB_MAGIC:
        raise InvalidMeshError(problem=f"it does not start with the GLB magic 'glTF' (found {magic!r})")
    if version != 2:
        raise InvalidMeshError(problem=f"it is GLB version {version}; Blender needs version 2")
    if length != size:
        raise InvalidMeshError(
            problem=f"the header says {length} bytes but the file has {size} (truncated or padded)"
        )


def _read_chunks(f: BinaryIO, size: int) -> tuple[int, dict[str, object], int | None, int | None]:
    """The JSON chunk's length and document, and where the BIN chunk starts and how long it is.

    Blender reads the JSON chunk, then a BIN chunk only as the second chunk, and ignores the
    rest; chunk lengths need not be multiples of 4 for it (trimesh writes such files).
    """
    offset = _HEADER.size
    index = 0
    json_length = 0
    bin_start: int | None = None
    bin_length: int | None = None
    document: dict[str, object] = {}
    while offset < size:
        if size - offset < _CHUNK_HEADER.size:
            if index >= 2:
                break  # trailing bytes after the chunks Blender reads: ignored, like Blender does
            raise InvalidMeshError(problem=f"chunk {index} at byte {offset} has an incomplete header")
        f.seek(offset)
        chunk_length, chunk_type = _CHUNK_HEADER.unpack(f.read(_CHUNK_HEADER.size))
        start = offset + _CHUNK_HEADER.size
        if start + chunk_length > size:
            raise InvalidMeshError(
                problem=f"chunk {index} claims {chunk_length} bytes but only {size - start} remain"
            )
        if index == 0:
            if chunk_type != CHUNK_JSON:
                raise InvalidMeshError(problem=f"the first chunk is type 0x{chunk_type:08x}, not JSON")
            if chunk_length > MAX_JSON_BYTES:
                raise InvalidMeshError(
                    problem=f"its JSON part is {chunk_length / 1e6:.0f} MB; Kiln reads at most "
                    f"{MAX_JSON_BYTES / 1e6:.0f} MB"
                )
            json_length = chunk_length
            document = _parse_json_chunk(f.read(chunk_length))
        elif index == 1 and chunk_type == CHUNK_BIN:
            bin_start, bin_length = start, chunk_length
        offset = start + chunk_length
        index += 1
    return json_length, document, bin_start, bin_length


def _peek(
    f: BinaryIO, document: Mapping[str, object], bin_start: int | None, buffer: int, at: int, count: int
) -> bytes:
    """``count`` bytes at ``at`` in a buffer already checked to hold them (BIN chunk or data URI)."""
    buffers = document.get("buffers")
    entry = buffers[buffer] if isinstance(buffers, list) else None
    uri = entry.get("uri") if isinstance(entry, Mapping) else None
    if isinstance(uri, str):
        payload = uri.partition(",")[2]
        first = at // 3 * 4
        raw = base64.b64decode(payload[first : first + (count // 3 + 2) * 4])
        return raw[at % 3 : at % 3 + count]
    if bin_start is None:
        return b""
    f.seek(bin_start + at)
    return f.read(count)


def _parse_json_chunk(raw: bytes) -> dict[str, object]:
    try:
        # The spec pads the JSON chunk with spaces, which json.loads accepts; Blender refuses
        # NaN and Infinity, so Kiln does too.
        document = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise InvalidMeshError(problem=f"the JSON chunk is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        problem = f"the JSON chunk does not parse: {exc.msg} at character {exc.pos}"
        raise InvalidMeshError(problem=problem) from None
    except RecursionError:
        raise InvalidMeshError(problem="the JSON chunk is nested too deeply") from None
    except ValueError as exc:
        raise InvalidMeshError(problem=f"the JSON chunk does not parse: {shorten(str(exc), 80)}") from None
    if not isinstance(document, dict):
        raise InvalidMeshError(problem="the JSON chunk is not a JSON object")
    return document


def _refuse_constant(name: str) -> object:
    raise ValueError(f"it contains {name}, which JSON does not allow")


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
            raise InvalidPreviewError(problem=f"it is {size} bytes, more than a preview should be")
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidPreviewError(problem=f"the file could not be read: {exc.strerror or exc}") from exc
    kind = image_kind(data[:16])
    if kind == "png":
        _check_png(data)
    elif kind == "jpeg":
        if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
            raise InvalidPreviewError(problem="the JPEG has no end marker (truncated)")
    elif kind == "webp":
        riff_size = struct.unpack("<I", data[4:8])[0]
        if riff_size + 8 not in (len(data), len(data) - 1) or data[12:16] not in (b"VP8 ", b"VP8L", b"VP8X"):
            raise InvalidPreviewError(problem="the WebP container is inconsistent (truncated or damaged)")
    else:
        raise InvalidPreviewError(problem="it is not a PNG, JPEG or WebP image")
    return kind


def _check_png(data: bytes) -> None:
    offset = len(_PNG_SIGNATURE)
    seen: list[bytes] = []
    while offset < len(data):
        if len(data) - offset < 12:
            raise InvalidPreviewError(problem="the PNG ends inside a chunk header (truncated)")
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        ctype = data[offset + 4 : offset + 8]
        end = offset + 12 + length
        if end > len(data):
            raise InvalidPreviewError(
                problem=f"the PNG chunk {ctype!r} runs past the end of the file (truncated)"
            )
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(ctype + body) != crc:
            raise InvalidPreviewError(problem=f"the PNG chunk {ctype!r} fails its checksum")
        if not seen and (ctype != b"IHDR" or length != 13 or b"\x00\x00\x00\x00" in (body[:4], body[4:8])):
            raise InvalidPreviewError(problem="the PNG does not start with a valid IHDR header")
        seen.append(ctype)
        offset = end
        if ctype == b"IEND":
            break
    if not seen or seen[-1] != b"IEND":
        raise InvalidPreviewError(problem="the PNG has no IEND chunk (truncated)")
    if b"IDAT" not in seen:
        raise InvalidPreviewError(problem="the PNG has no image data")
    if offset != len(data):
        raise InvalidPreviewError(problem=f"the PNG has {len(data) - offset} stray bytes after IEND")
