"""Hostile GLBs: check_glb refuses each with one sentence (the files are made in ``hostile_glb``).

A child Blender reading them on Kiln's path is in ``tests/system/hostile/test_hostile_glb_in_blender.py``.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hostile_glb import (
    CHUNK_BIN,
    CHUNK_JSON,
    HOSTILE,
    data_uri,
    good_glb,
    pack,
    png_header,
    sparse,
    triangle,
    triangle_doc,
    with_accessor,
    with_image,
)
from hostile_kit import assert_sentence

from api.checks.glb import check_glb
from api.errors import InvalidMeshError, UnsupportedMeshError


@pytest.mark.parametrize("name", HOSTILE)
def test_check_glb_refuses_a_hostile_file_in_one_sentence(tmp_path: Path, name: str) -> None:
    data, words = HOSTILE[name]
    path = tmp_path / "m.glb"
    path.write_bytes(data)
    with pytest.raises(InvalidMeshError) as caught:
        check_glb(path)
    sentence = assert_sentence(caught.value)
    assert words in caught.value.problem, caught.value.problem
    assert sentence.count(". ") <= 2  # one sentence naming the problem, one saying what to do


@pytest.mark.parametrize(
    ("extension", "words"),
    [
        ("KHR_texture_basisu", "this mesh has KTX2 textures, which Blender's glTF importer cannot read"),
        ("EXT_meshopt_compression", "this mesh is compressed with meshopt"),
        ("KHR_future_thing", "needs a glTF feature that Blender's importer cannot read"),
    ],
)
def test_a_required_extension_blender_lacks_is_named_not_called_damage(
    tmp_path: Path, extension: str, words: str
) -> None:
    path = tmp_path / "m.glb"
    path.write_bytes(triangle(extensionsUsed=[extension], extensionsRequired=[extension]))
    with pytest.raises(UnsupportedMeshError) as caught:
        check_glb(path)
    sentence = assert_sentence(caught.value)
    assert words.lower() in sentence.lower() and "damaged" not in sentence and "Retry" not in sentence
    assert extension in caught.value.details and extension not in caught.value.user_message


def test_required_extensions_blender_reads_pass(tmp_path: Path) -> None:
    path = tmp_path / "m.glb"
    used = ["KHR_materials_unlit", "KHR_texture_transform", "KHR_mesh_quantization"]
    path.write_bytes(triangle(extensionsUsed=used, extensionsRequired=used))
    assert check_glb(path).meshes == 1


GOOD: dict[str, bytes] = {
    "trimesh box": good_glb(),
    "one triangle": triangle(),
    "sparse morph target": sparse(),
    "embedded png image": with_image({"bufferView": 1, "mimeType": "image/png"}, png_header(512, 512)),
    "data uri buffer": pack(
        {**triangle_doc(buffers=[{"byteLength": 36, "uri": data_uri(triangle_doc()[1])}])[0]}
    ),
    "draco-style data-less accessors": with_accessor(bufferView=None, count=300),
}


@pytest.mark.parametrize("name", GOOD)
def test_well_formed_files_pass(tmp_path: Path, name: str) -> None:
    path = tmp_path / "m.glb"
    path.write_bytes(GOOD[name])
    check_glb(path)


def test_unpadded_chunks_as_trimesh_writes_them_pass(tmp_path: Path) -> None:
    doc, binary = triangle_doc()
    body = json.dumps(doc).encode() + b" "  # odd lengths, no padding, as Blender accepts
    body += b" " * (2 - len(body) % 4 if len(body) % 4 < 2 else 1)
    chunks = (
        struct.pack("<II", len(body), CHUNK_JSON) + body + struct.pack("<II", 37, CHUNK_BIN) + binary + b"\0"
    )
    path = tmp_path / "m.glb"
    path.write_bytes(b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks)
    assert len(body) % 4 and check_glb(path).bin_length == 37


def test_check_glb_streams_a_large_file(tmp_path: Path) -> None:
    """500 MB of BIN chunk (sparse on disk): checked without reading it."""
    doc, binary = triangle_doc(buffers=[{"byteLength": 500 * 1024 * 1024}])
    head = json.dumps(doc).encode()
    head += b" " * (-len(head) % 4)
    size = 12 + 8 + len(head) + 8 + 500 * 1024 * 1024
    path = tmp_path / "big.glb"
    with path.open("wb") as f:
        f.write(b"glTF" + struct.pack("<II", 2, size) + struct.pack("<II", len(head), CHUNK_JSON) + head)
        f.write(struct.pack("<II", 500 * 1024 * 1024, CHUNK_BIN) + binary)
        f.truncate(size)
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert check_glb(path).bin_length == 500 * 1024 * 1024
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # KB on Linux: < 50 MB
