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


def many_bufferless(n: int) -> bytes:
    doc, binary = triangle_doc()
    doc["accessors"] += [{"componentType": 5126, "count": 1_000_000, "type": "MAT4"} for _ in range(n)]
    return pack(doc, binary)


def cycle() -> bytes:
    return triangle(nodes=[{"mesh": 0, "children": [1]}, {"children": [0]}])


def deep_json() -> bytes:
    body = b'{"asset": {"version": "2.0"}, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    body += b" " * (-len(body) % 4)
    return b"glTF" + struct.pack("<II", 2, 20 + len(body)) + struct.pack("<II", len(body), CHUNK_JSON) + body


def sparse(**fields: Any) -> bytes:
    doc, binary = triangle_doc()
    binary += struct.pack("<HH", 0, 1) + struct.pack("<6f", *([0.5] * 6))
    doc["bufferViews"] += [
        {"buffer": 0, "byteOffset": 36, "byteLength": 4},
        {"buffer": 0, "byteOffset": 40, "byteLength": 24},
    ]
    doc["buffers"][0]["byteLength"] = 64
    accessor = {
        "componentType": 5126,
        "count": 3,
        "type": "VEC3",
        "sparse": {
            "count": 2,
            "indices": {"bufferView": 1, "componentType": 5123},
            "values": {"bufferView": 2},
        },
    }
    accessor["sparse"].update(fields)
    doc["accessors"].append(accessor)
    doc["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": 1}]
    return pack(doc, binary)


HOSTILE: dict[str, tuple[bytes, str]] = {
    "count of 2 billion without data": (with_accessor(bufferView=None, count=2_000_000_000), "2,000,000,000"),
    "count of 2 billion in a view": (with_accessor(count=2_000_000_000), "2,000,000,000"),
    "count that just overflows its view": (with_accessor(count=4), "needs 48 bytes"),
    "offset past its view": (with_accessor(byteOffset=32), "bufferViews[0]"),
    "data-less counts beyond the file": (with_accessor(bufferView=None, count=50_000_000), "without data"),
    "many data-less accessors": (many_bufferless(30), "without data"),
    "buffer from /dev/zero": (triangle(buffers=[{"byteLength": 36, "uri": "/dev/zero"}]), "outside file"),
    "buffer from a relative path": (
        triangle(buffers=[{"byteLength": 36, "uri": "../../secret.bin"}]),
        "outside file",
    ),
    "buffer from a file url": (
        triangle(buffers=[{"byteLength": 36, "uri": "file:///etc/passwd"}]),
        "outside",
    ),
    "buffer from a web url": (
        triangle(buffers=[{"byteLength": 36, "uri": "https://evil.example/b"}]),
        "outside",
    ),
    "data uri without base64": (
        triangle(buffers=[{"byteLength": 36, "uri": "data:application/octet-stream,AAAA"}]),
        "outside file",
    ),
    "damaged base64": (triangle(buffers=[{"byteLength": 36, "uri": "data:x;base64,@@@@"}]), "base64"),
    "data uri shorter than declared": (
        triangle(buffers=[{"byteLength": 360, "uri": data_uri(bytes(36))}]),
        "declares 360 bytes but holds 36",
    ),
    "second buffer in the BIN chunk": (
        triangle(buffers=[{"byteLength": 36}, {"byteLength": 36}]),
        "only the first buffer",
    ),
    "view past its buffer": (triangle(bufferViews=[{"buffer": 0, "byteLength": 3600}]), "runs past"),
    "buffer past the BIN chunk": (
        triangle(buffers=[{"byteLength": 3600}]),
        "declares 3,600 bytes but holds 36",
    ),
    "view of a missing buffer": (triangle(bufferViews=[{"buffer": 7, "byteLength": 36}]), "does not exist"),
    "stride below 4": (triangle(bufferViews=[{"buffer": 0, "byteLength": 36, "byteStride": 2}]), "Stride"),
    "stride times count past the view": (
        triangle(bufferViews=[{"buffer": 0, "byteLength": 36, "byteStride": 252}]),
        "needs",
    ),
    "negative count": (with_accessor(count=-1), "count"),
    "count as text": (with_accessor(count="3"), "count"),
    "unknown component type": (with_accessor(componentType=5130), "componentType"),
    "sparse count beyond the accessor": (sparse(count=5), "replaces 5 of only 3"),
    "sparse indices past their view": (
        sparse(indices={"bufferView": 1, "componentType": 5125, "byteOffset": 2}),
        "sparse.indices",
    ),
    "sparse values past their view": (sparse(values={"bufferView": 2, "byteOffset": 8}), "sparse.values"),
    "image from a local file": (with_image({"uri": "/etc/passwd"}), "outside file"),
    "image from a windows path": (with_image({"uri": "C:\\Windows\\win.ini"}), "outside file"),
    "image from a relative path": (with_image({"uri": "textures/../../x.png"}), "outside file"),
    "image claiming 100k x 100k pixels": (
        with_image({"bufferView": 1, "mimeType": "image/png"}, png_header(100_000, 100_000)),
        "100,000 x 100,000",
    ),
    "embedded image claiming 40k x 40k": (
        with_image({"uri": data_uri(png_header(40_000, 40_000))}),
        "40,000",
    ),
    "node cycle": (cycle(), "cycle"),
    "node with two parents": (
        triangle(nodes=[{"mesh": 0, "children": [2]}, {"children": [2]}, {}]),
        "more than one parent",
    ),
    "node child that does not exist": (triangle(nodes=[{"mesh": 0, "children": [9]}]), "does not exist"),
    "primitive naming a missing accessor": (
        triangle(meshes=[{"primitives": [{"attributes": {"POSITION": 5}}]}]),
        "does not exist",
    ),
    "deeply nested JSON": (deep_json(), "nested too deeply"),
    "NaN in the JSON": (pack({"asset": {"version": "2.0"}, "x": float("nan")}), "NaN"),
    "glTF 1.0": (triangle(asset={"version": "1.0"}), "asset version"),
    "no asset": (triangle(asset=None), "asset"),
    "meshopt view expanding a thousandfold": (
        triangle(
            bufferViews=[
                {
                    "buffer": 0,
                    "byteLength": 36,
                    "extensions": {
                        "EXT_meshopt_compression": {
                            "buffer": 0,
                            "byteLength": 36,
                            "count": 10_000_000,
                            "byteStride": 12,
                        }
                    },
                }
            ]
        ),
        "expand",
    ),
}
