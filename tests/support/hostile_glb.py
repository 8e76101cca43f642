"""GLB files made here: one good mesh, and documents with one hostile defect each."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import trimesh

CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942


def good_glb() -> bytes:
    """A real mesh (trimesh's box): what a well-behaved service sends."""
    return bytes(trimesh.creation.box().export(file_type="glb"))


def pack(doc: dict[str, Any], binary: bytes | None = None) -> bytes:
    """A GLB container around ``doc`` (and ``binary`` as its BIN chunk), padded as the spec asks."""
    body = json.dumps(doc).encode()
    body += b" " * (-len(body) % 4)
    chunks = struct.pack("<II", len(body), CHUNK_JSON) + body
    if binary is not None:
        binary += b"\0" * (-len(binary) % 4)
        chunks += struct.pack("<II", len(binary), CHUNK_BIN) + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


def triangle_doc(**overrides: Any) -> tuple[dict[str, Any], bytes]:
    """A one-triangle document (positions in a 36-byte BIN chunk); ``overrides`` replace top-level keys."""
    positions = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    doc: dict[str, Any] = {
        "asset": {"version": "2.0", "generator": "kiln hostile tests"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [
            {
                "bufferView": 0,
                "componentType": 5126,
                "count": 3,
                "type": "VEC3",
                "min": [0, 0, 0],
                "max": [1, 1, 0],
            }
        ],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36}],
    }
    doc.update(overrides)
    return doc, positions


def triangle(**overrides: Any) -> bytes:
    doc, binary = triangle_doc(**overrides)
    return pack(doc, binary)


def with_accessor(**fields: Any) -> bytes:
    doc, binary = triangle_doc()
    doc["accessors"][0].update(fields)
    for key in [k for k, v in fields.items() if v is None]:
        del doc["accessors"][0][key]
    return pack(doc, binary)


def data_uri(data: bytes, mime: str = "application/octet-stream") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def png_header(width: int, height: int) -> bytes:
    """The first bytes of a PNG claiming ``width`` x ``height`` (enough for a size check, no pixels)."""
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + ihdr
        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    )


def with_image(image: dict[str, Any], image_bytes: bytes = b"") -> bytes:
    """The triangle plus one textured material whose image is ``image`` (its view holds ``image_bytes``)."""
    doc, binary = triangle_doc()
    if image_bytes:
        padded = binary + image_bytes
        doc["bufferViews"].append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(image_bytes)})
        doc["buffers"][0]["byteLength"] = len(padded)
        binary = padded
    doc.update(
        images=[image],
        textures=[{"source": 0}],
        materials=[{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    )
    doc["meshes"][0]["primitives"][0]["material"] = 0
    return pack(doc, binary)
