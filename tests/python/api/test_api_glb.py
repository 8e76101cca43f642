"""The GLB container check and the preview check, on bytes crafted here (each defect by hand)."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import pytest
import trimesh
from PIL import Image

from api.checks.glb import CHUNK_BIN, CHUNK_JSON, check_glb, check_preview, image_kind
from api.errors import InvalidMeshError, InvalidPreviewError


def chunk(kind: int, body: bytes, pad: bytes = b" ") -> bytes:
    body += pad * (-len(body) % 4)
    return struct.pack("<II", len(body), kind) + body


def glb(*chunks: bytes, version: int = 2, length: int | None = None) -> bytes:
    body = b"".join(chunks)
    total = 12 + len(body) if length is None else length
    return b"glTF" + struct.pack("<II", version, total) + body


DOC = {"asset": {"version": "2.0", "generator": "test"}, "meshes": [{}], "buffers": [{"byteLength": 8}]}


def good_glb() -> bytes:
    return glb(chunk(CHUNK_JSON, json.dumps(DOC).encode()), chunk(CHUNK_BIN, bytes(8), b"\0"))


def write(tmp_path: Path, data: bytes, name: str = "m.glb") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_well_formed_glb_passes(tmp_path: Path) -> None:
    data = good_glb()
    info = check_glb(write(tmp_path, data))
    assert info.size == len(data)
    assert info.bin_length == 8
    assert info.asset_version == "2.0" and info.generator == "test" and info.meshes == 1


def test_a_real_trimesh_glb_passes(tmp_path: Path) -> None:
    data = trimesh.creation.box().export(file_type="glb")
    info = check_glb(write(tmp_path, data))
    assert info.size == len(data) and info.meshes == 1 and info.bin_length


def test_json_only_glb_and_unknown_trailing_chunks_are_allowed(tmp_path: Path) -> None:
    doc = json.dumps({"asset": {"version": "2.0"}}).encode()
    assert check_glb(write(tmp_path, glb(chunk(CHUNK_JSON, doc)))).bin_length is None
    extra = glb(
        chunk(CHUNK_JSON, json.dumps(DOC).encode()), chunk(CHUNK_BIN, bytes(8)), chunk(0x12345678, b"ext!")
    )
    assert check_glb(write(tmp_path, extra)).bin_length == 8


def test_chunk_lengths_need_not_be_multiples_of_4_as_for_blender(tmp_path: Path) -> None:
    """trimesh writes such files and Blender reads them; so are stray bytes after the chunks Blender reads."""
    doc = json.dumps(DOC).encode()
    json_part = chunk(CHUNK_JSON, doc + b" " * (-len(doc) % 4 + 1), pad=b"")
    unpadded = glb(json_part, chunk(CHUNK_BIN, bytes(9), b""))
    assert check_glb(write(tmp_path, unpadded)).bin_length == 9
    trailing = glb(chunk(CHUNK_JSON, doc), chunk(CHUNK_BIN, bytes(8)), b"\0\0\0\0")
    assert check_glb(write(tmp_path, trailing)).bin_length == 8


DOC_BYTES = json.dumps(DOC).encode()
DEFECTS = {
    "too short": (b"glTF\x02\x00", "too short"),
    "wrong magic": (b"GLTF" + good_glb()[4:], "magic"),
    "html page": (b"<html><body>502 Bad Gateway</body></html>", "magic"),
    "version 1": (glb(chunk(CHUNK_JSON, DOC_BYTES), chunk(CHUNK_BIN, bytes(8)), version=1), "version 1"),
    "truncated": (good_glb()[:-4], "header says"),
    "padded": (good_glb() + b"\0\0\0\0", "header says"),
    "bin first": (glb(chunk(CHUNK_BIN, bytes(8)), chunk(CHUNK_JSON, DOC_BYTES)), "not JSON"),
    "bad json": (glb(chunk(CHUNK_JSON, b'{"asset": {')), "does not parse"),
    "json array": (glb(chunk(CHUNK_JSON, b"[1, 2]  ")), "not a JSON object"),
    "not utf8": (glb(chunk(CHUNK_JSON, b'{"a":"\xff\xfe"}')), "not UTF-8"),
    "chunk past end": (glb(struct.pack("<II", 400, CHUNK_JSON) + DOC_BYTES[:40]), "only"),
    "broken chunk header": (glb(struct.pack("<II", 3, CHUNK_JSON) + b"{}  "), "incomplete"),
    "missing bin": (glb(chunk(CHUNK_JSON, DOC_BYTES)), "no BIN chunk"),
    "short bin": (
        glb(chunk(CHUNK_JSON, DOC_BYTES), chunk(CHUNK_BIN, bytes(4))),
        "declares 8 bytes but holds",
    ),
    # Blender reads a BIN chunk only as the second chunk: a later one leaves buffer 0 without data.
    "two json": (glb(chunk(CHUNK_JSON, DOC_BYTES), chunk(CHUNK_JSON, DOC_BYTES)), "no BIN chunk"),
    "late bin": (
        glb(chunk(CHUNK_JSON, DOC_BYTES), chunk(0x1, b"xxxx"), chunk(CHUNK_BIN, bytes(8))),
        "no BIN chunk",
    ),
    "gltf 1 asset": (glb(chunk(CHUNK_JSON, b'{"asset": {"version": "1.0"}}')), "asset version is '1.0'"),
}


@pytest.mark.parametrize("name", DEFECTS)
def test_each_defect_is_named(tmp_path: Path, name: str) -> None:
    data, words = DEFECTS[name]
    with pytest.raises(InvalidMeshError) as caught:
        check_glb(write(tmp_path, data))
    assert words in caught.value.problem
    # The artist reads that the file is damaged; which field is wrong goes to the details only.
    assert caught.value.message.name == "MESH_DAMAGED"
    assert caught.value.problem in caught.value.details
    assert caught.value.problem not in caught.value.user_message
    assert str(caught.value) == caught.value.user_message


def test_missing_glb_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidMeshError) as caught:
        check_glb(tmp_path / "nope.glb")
    assert "could not be read" in caught.value.details


def png_bytes(size: tuple[int, int] = (4, 3)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, (200, 10, 10, 255)).save(out, "PNG")
    return out.getvalue()


def image_bytes(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out, fmt)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "kind"), [("PNG", "png"), ("JPEG", "jpeg"), ("WEBP", "webp")])
def test_real_images_pass_the_preview_check(tmp_path: Path, fmt: str, kind: str) -> None:
    data = image_bytes(fmt)
    assert image_kind(data[:16]) == kind
    assert check_preview(write(tmp_path, data, f"p.{kind}")) == kind


def png_with_bad_crc() -> bytes:
    data = bytearray(png_bytes())
    data[-5] ^= 0xFF  # inside IEND's CRC
    return bytes(data)


def png_without_idat() -> bytes:
    def c(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return b"\x89PNG\r\n\x1a\n" + c(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + c(b"IEND", b"")


PREVIEW_DEFECTS = {
    "not an image": (b"<html>oops</html>", "not a PNG"),
    "empty": (b"", "not a PNG"),
    "png truncated": (png_bytes()[:-12], "IEND"),
    "png cut mid-chunk": (png_bytes()[:-16], "past the end"),
    "png cut in a chunk header": (png_bytes()[:36], "chunk header"),
    "png bad crc": (png_with_bad_crc(), "checksum"),
    "png no idat": (png_without_idat(), "no image data"),
    "png trailing junk": (png_bytes() + b"junk", "stray bytes"),
    "png zero width": (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + bytes(13)
        + struct.pack(">I", zlib.crc32(b"IHDR" + bytes(13))),
        "IHDR",
    ),
    "jpeg truncated": (image_bytes("JPEG")[:-10], "end marker"),
    "webp truncated": (image_bytes("WEBP")[:-6], "WebP"),
}


@pytest.mark.parametrize("name", PREVIEW_DEFECTS)
def test_each_preview_defect_is_named(tmp_path: Path, name: str) -> None:
    data, words = PREVIEW_DEFECTS[name]
    with pytest.raises(InvalidPreviewError) as caught:
        check_preview(write(tmp_path, data, "p.png"))
    assert words in caught.value.problem


def test_image_kind_judges_content_not_names() -> None:
    assert image_kind(b"GIF89a....") is None
    assert image_kind(b"RIFF\x00\x00\x00\x00WAVE") is None
    assert image_kind(b"\xff\xd8\xff\xe0") == "jpeg"
