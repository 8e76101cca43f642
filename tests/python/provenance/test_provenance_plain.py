"""The provenance record, its XMP packet, a GLB stamped with it, and the disclosure report's rows."""

from __future__ import annotations

import csv
import io
import json
import struct
from pathlib import Path

import pytest
import trimesh

from api.checks.glb import check_glb
from api.features import disclosure, provenance
from api.features.provenance import Provenance

TEXT = Provenance(
    task_id="t-42",
    service_id="TRIPO",
    prompt="a <b>brass</b> lamp & shade",
    date="2026-11-27T02:42:00Z",
    kiln_version="0.1.0",
    credit="Ada Artist",
)


def glb(tmp_path: Path) -> Path:
    path = tmp_path / "box.glb"
    path.write_bytes(bytes(trimesh.creation.box().export(file_type="glb")))
    return path


def test_the_packet_names_the_source_type_service_request_and_task() -> None:
    packet = TEXT.packet()
    assert packet["Iptc4xmpExt:DigitalSourceType"] == provenance.DIGITAL_SOURCE_TYPE
    assert packet["Iptc4xmpExt:DigitalSourceType"].endswith("/trainedAlgorithmicMedia")
    assert packet["kiln:service"] == "Tripo" == TEXT.service
    assert packet["kiln:prompt"] == TEXT.prompt
    assert packet["kiln:taskId"] == "t-42"
    assert packet["dc:creator"] == {"@list": ["Ada Artist"]}
    assert packet["dc:date"] == {"@list": ["2026-11-27T02:42:00Z"]}
    # Every prefix used is declared in the packet's own context (KHR_xmp_json_ld: no local contexts).
    prefixes = {key.split(":")[0] for key in packet if ":" in key}
    assert prefixes <= set(packet["@context"])


def test_an_image_request_is_its_file_name_and_digest(tmp_path: Path) -> None:
    image = tmp_path / "concept.png"
    image.write_bytes(b"not really a png")
    digest = provenance.file_sha256(image)
    record = provenance.from_properties(
        {"kiln_task_id": "t-1", "kiln_image": str(image)}, image_sha256=digest
    )
    assert record is not None
    assert record.service_id == "INTERFACE"  # an object from before services were named
    assert record.image == "concept.png" and str(tmp_path) not in record.request
    assert digest in record.request and record.packet()["kiln:imageSha256"] == digest
    assert provenance.file_sha256(tmp_path / "gone.png") == ""


def test_an_object_without_a_task_id_has_no_record() -> None:
    assert provenance.from_properties({"kiln_prompt": "a lamp"}) is None


def test_a_stored_record_and_its_history_survive_the_round_trip() -> None:
    done = TEXT.with_history("Fix-ups merged 3 vertices.", "")
    assert done.history == ("Fix-ups merged 3 vertices.",)
    back = provenance.from_properties({"kiln_task_id": "t-42", provenance.PROPERTY: done.to_json()})
    assert back == done
    assert done.packet()["kiln:history"] == {"@list": ["Fix-ups merged 3 vertices."]}
    assert done.properties()["kiln_created_with_ai"] == "CreatedWithAI"
    # The flat properties never overwrite an object's own list of what was done to it.
    assert provenance.HISTORY_PROPERTY not in done.properties()
    assert done.properties()["kiln_done_since"] == "Fix-ups merged 3 vertices."


def test_a_stamped_glb_declares_the_extension_and_carries_the_packet(tmp_path: Path) -> None:
    path = glb(tmp_path)
    before = provenance.read_glb_json(path)
    provenance.stamp_glb(path, TEXT)
    document = provenance.read_glb_json(path)
    assert provenance.EXTENSION in document["extensionsUsed"]
    assert document["asset"]["extensions"][provenance.EXTENSION] == {"packet": 0}
    assert provenance.packet_of(document) == json.loads(json.dumps(TEXT.packet()))
    assert document["meshes"] == before["meshes"] and document["accessors"] == before["accessors"]
    data = path.read_bytes()
    assert len(data) % 4 == 0 and struct.unpack_from("<I", data, 8)[0] == len(data)
    json_length = struct.unpack_from("<I", data, 12)[0]
    assert json_length % 4 == 0
    check_glb(path)  # Kiln's own structure check still passes
    loaded = trimesh.load(path, force="mesh")
    assert len(loaded.faces) == 12
    assert not list(tmp_path.glob("*.part"))


def test_stamping_again_replaces_the_asset_packet_only(tmp_path: Path) -> None:
    path = glb(tmp_path)
    provenance.stamp_glb(path, TEXT)
    provenance.stamp_glb(path, TEXT.with_history("Exported for Unreal."))
    document = provenance.read_glb_json(path)
    assert len(document["extensions"][provenance.EXTENSION]["packets"]) == 1
    assert document["extensionsUsed"].count(provenance.EXTENSION) == 1
    assert provenance.packet_of(document)["kiln:history"] == {"@list": ["Exported for Unreal."]}


def test_what_is_not_a_glb_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "x.glb"
    path.write_bytes(b"glTF\x01\x00\x00\x00" + b"\x00" * 16)
    with pytest.raises(provenance.NotAGlb):
        provenance.stamp_glb(path, TEXT)
    assert path.read_bytes() == b"glTF\x01\x00\x00\x00" + b"\x00" * 16


def test_the_report_rows_as_csv_and_escaped_html() -> None:
    rows = [
        disclosure.Row("Lamp", "file", TEXT.with_history("Fix-ups merged 3 vertices.")),
        disclosure.Row("=cmd", "library", Provenance(task_id="t-2", image="a.png", image_sha256="ab")),
    ]
    table = list(csv.reader(io.StringIO(disclosure.to_csv(rows))))
    assert table[0] == list(disclosure.COLUMNS)
    assert table[1][:5] == ["Lamp", "file", "Tripo", TEXT.prompt, "t-42"]
    assert table[1][7] == "Fix-ups merged 3 vertices."
    assert table[2][0] == "'=cmd"  # never a formula in a spreadsheet
    assert table[2][3] == "a.png (SHA-256 ab)"
    page = disclosure.to_html(rows, "Report", "Made with AI.", list(disclosure.COLUMNS), "None")
    assert "<b>brass</b>" not in page and "&lt;b&gt;brass&lt;/b&gt; lamp &amp; shade" in page
    assert page.count("<tr>") == 3
    assert "None" in disclosure.to_html([], "Report", "", list(disclosure.COLUMNS), "None")
