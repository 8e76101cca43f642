"""Hostile GLBs: check_glb refuses each with one sentence; a child Blender on Kiln's path stays small.

Acceptance 2 of the issue: no hostile GLB makes a Blender process grow past 1 GB. A few files
go through ``import_child.py`` (check_glb, then Blender's own importer only if it passes) in a
child Python with bpy, its resident memory watched and the child killed past the ceiling; the
exit status shows a crash. One run without the check shows the watch can see a blow-up.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_glb import (
    CHUNK_BIN,
    CHUNK_JSON,
    data_uri,
    good_glb,
    pack,
    png_header,
    triangle,
    triangle_doc,
    with_accessor,
    with_image,
)
from hostile_kit import assert_sentence

from api.errors import InvalidMeshError, UnsupportedMeshError
from api.glb import check_glb

CHILD = Path(__file__).with_name("import_child.py")
CEILING = 1024**3  # acceptance 2: 1 GB


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
        (
            "KHR_texture_basisu",
            "this mesh needs KTX2 textures (KHR_texture_basisu), which Blender's glTF importer",
        ),
        ("EXT_meshopt_compression", "meshopt compression (EXT_meshopt_compression)"),
        ("KHR_future_thing", "the glTF extension KHR_future_thing"),
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


# --------------------------------------------------------------------------- a child Blender on Kiln's path


def run_child(path: Path, *flags: str, ceiling: int = CEILING) -> tuple[str, int, int, bool]:
    """(last line, exit status, peak RSS in bytes, killed) of import_child.py, killed past ``ceiling``."""
    out = path.with_suffix(".out")
    with out.open("w+") as log:
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(path), *flags], stdout=log, stderr=subprocess.STDOUT
        )
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if _rss(proc.pid) > ceiling:
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
    lines = out.read_text(errors="replace").strip().splitlines()
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return (lines[-1] if lines else ""), os.waitstatus_to_exitcode(status), peak, killed


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


needs_proc = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the RSS watch reads /proc")


@needs_proc
@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "count of 2 billion without data",
        "count of 2 billion in a view",
        "buffer from /dev/zero",
        "image claiming 100k x 100k pixels",
        "node cycle",
    ],
)
def test_a_hostile_file_on_kilns_path_keeps_blender_small(tmp_path: Path, name: str) -> None:
    path = tmp_path / "m.glb"
    path.write_bytes(HOSTILE[name][0])
    line, code, peak, killed = run_child(path)
    assert not killed and code == 0, f"the child Blender crashed or grew past 1 GB: {line}"
    assert peak < CEILING and line.startswith("REFUSED"), line


@needs_proc
@pytest.mark.slow
def test_a_good_file_on_kilns_path_is_imported_by_blender(tmp_path: Path) -> None:
    path = tmp_path / "m.glb"
    path.write_bytes(good_glb())
    line, code, peak, killed = run_child(path)
    assert (line, code, killed) == ("IMPORTED 1", 0, False)
    assert peak < CEILING


@needs_proc
@pytest.mark.slow
def test_the_watch_sees_an_unchecked_bomb_grow(tmp_path: Path) -> None:
    """Without check_glb, Blender's importer starts allocating for 2 billion vertices: killed early here."""
    path = tmp_path / "m.glb"
    path.write_bytes(HOSTILE["count of 2 billion without data"][0])
    line, code, _, killed = run_child(path, "--unchecked", ceiling=700 * 1024**2)
    assert killed or code != 0 or line.startswith("FAILED"), line
