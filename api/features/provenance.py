"""Where a result came from, carried into every file Kiln writes: the record, its XMP packet, a GLB stamped.

Stores ask artists to say what was made with AI (Fab's ``CreatedWithAI`` tag, Sketchfab's, the Unity
Asset Store's listing, Steam's content survey: ``docs/provenance.md``). Kiln knows it for every
result, so it says it in the files: a GLB carries an XMP packet (glTF's ratified
``KHR_xmp_json_ld``, https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos/KHR_xmp_json_ld:
packets in the top-level ``extensions.KHR_xmp_json_ld.packets``, the asset's in
``asset.extensions.KHR_xmp_json_ld.packet``, arrays under ``@list``/``@set``, language alternatives
as ``rdf:Alt``); an FBX the same values as custom properties. The packet's digital source type is
IPTC's ``trainedAlgorithmicMedia`` (http://cv.iptc.org/newscodes/digitalsourcetype, "created by
software using a model derived from sampled content"), the term C2PA's actions use too.

Plain Python: the helper Blender, the artist's Blender and the workers build the same record from
plain values (an object's ``kiln_*`` properties), and the GLB is rewritten without Blender.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from .. import fs
from ..services import info, service_id
from ..words import catalogue as words
from ..words import english

EXTENSION = "KHR_xmp_json_ld"
#: IPTC NewsCodes, Digital Source Type: media made by a trained algorithm (generative AI).
DIGITAL_SOURCE_TYPE = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"
#: The tag Fab and Sketchfab ask for on AI-made assets (also set on Kiln's library assets).
AI_TAG = "CreatedWithAI"
#: Kiln's own terms in the packet (no web page behind it: a URN names the vocabulary).
KILN_NAMESPACE = "urn:kiln:provenance:1.0#"
CONTEXT = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "xmp": "http://ns.adobe.com/xap/1.0/",
    # IPTC Photo Metadata, Extension schema: Iptc4xmpExt:DigitalSourceType.
    "Iptc4xmpExt": "http://iptc.org/std/Iptc4xmpExt/2008-02-29/",
    "kiln": KILN_NAMESPACE,
}
#: The object property holding the record as JSON (helper and artist's Blender alike).
PROPERTY = "kiln_provenance"
#: The object property listing what was done to a result since it came (stored messages, JSON).
HISTORY_PROPERTY = "kiln_history"

_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = b"glTF", 0x4E4F534A, 0x004E4942


class NotAGlb(ValueError):
    """The file is not a binary glTF Kiln can stamp (the reason says why, for the console)."""


@dataclass(frozen=True)
class Provenance:
    """What made a result and what was done to it since, in plain values."""

    task_id: str
    #: The service that made it ("": a record older than services, read as ``api.services`` says).
    service_id: str = ""
    prompt: str = ""
    #: The concept image's file name (never its folder: a path says things about the artist's disk).
    image: str = ""
    image_sha256: str = ""
    #: When the job was asked for, ISO 8601 in UTC.
    date: str = ""
    kiln_version: str = ""
    #: The artist's credit line (a preference), "" when not set.
    credit: str = ""
    #: What was done since, in English sentences (fix-ups, LODs, exports).
    history: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "service_id", service_id(self.service_id))

    @property
    def service(self) -> str:
        """The service's own name (a brand: never translated)."""
        return info(self.service_id).name

    @property
    def request(self) -> str:
        """The prompt, or the image's file name and digest."""
        if self.prompt:
            return self.prompt
        return f"{self.image} (SHA-256 {self.image_sha256})" if self.image_sha256 else self.image

    def with_history(self, *done: str) -> Provenance:
        return replace(self, history=(*self.history, *(d for d in done if d)))

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> Provenance:
        """A record from :meth:`to_json`'s text or its dict (unknown keys ignored)."""
        data = json.loads(text) if isinstance(text, str) else dict(text)
        if not isinstance(data, dict) or not str(data.get("task_id") or ""):
            raise ValueError("not a provenance record")
        return cls(
            task_id=str(data["task_id"]),
            service_id=service_id(data.get("service_id")),
            prompt=str(data.get("prompt") or ""),
            image=str(data.get("image") or ""),
            image_sha256=str(data.get("image_sha256") or ""),
            date=str(data.get("date") or ""),
            kiln_version=str(data.get("kiln_version") or ""),
            credit=str(data.get("credit") or ""),
            history=tuple(str(h) for h in data.get("history") or ()),
        )

    def packet(self) -> dict[str, Any]:
        """The XMP packet as KHR_xmp_json_ld's JSON-LD (Dublin Core, XMP basic, IPTC, Kiln's terms)."""
        packet: dict[str, Any] = {
            "@context": dict(CONTEXT),
            "Iptc4xmpExt:DigitalSourceType": DIGITAL_SOURCE_TYPE,
            "dc:description": _alt(self.description()),
            "dc:source": self.service,
            "xmp:CreatorTool": f"Kiln {self.kiln_version}".strip(),
            "kiln:service": self.service,
            "kiln:taskId": self.task_id,
        }
        if self.date:
            packet["dc:date"] = {"@list": [self.date]}
            packet["xmp:CreateDate"] = self.date
        if self.credit:
            packet["dc:creator"] = {"@list": [self.credit]}
            packet["dc:rights"] = _alt(self.credit)
        if self.prompt:
            packet["kiln:prompt"] = self.prompt
        if self.image:
            packet["kiln:image"] = self.image
        if self.image_sha256:
            packet["kiln:imageSha256"] = self.image_sha256
        if self.history:
            packet["kiln:history"] = {"@list": list(self.history)}
        return packet

    def description(self) -> str:
        """One English line a store's reviewer reads (files are for stores: not translated)."""
        if self.prompt:
            return english(
                words.PROVENANCE_FROM_PROMPT, service=self.service, prompt=self.prompt, task=self.task_id
            )
        return english(
            words.PROVENANCE_FROM_IMAGE, service=self.service, image=self.request, task=self.task_id
        )

    def summary(self) -> dict[str, Any]:
        """The record as an agent's tools report it (``api.agents.results.JOB_SCHEMA``)."""
        return {
            "digital_source_type": DIGITAL_SOURCE_TYPE,
            "service": self.service,
            "service_id": self.service_id,
            "request": self.request,
            "task_id": self.task_id,
            "date": self.date,
            "kiln_version": self.kiln_version,
            "credit": self.credit,
            "done_since": list(self.history),
        }

    def properties(self) -> dict[str, str]:
        """The record as flat custom properties (FBX user properties, a library asset's data)."""
        flat = {
            "kiln_digital_source_type": DIGITAL_SOURCE_TYPE,
            "kiln_created_with_ai": AI_TAG,
            "kiln_service": self.service_id,
            "kiln_service_name": self.service,
            "kiln_task_id": self.task_id,
            "kiln_request": self.request,
            "kiln_date": self.date,
            "kiln_version": self.kiln_version,
            "kiln_credit": self.credit,
            "kiln_done_since": "; ".join(self.history),
            PROPERTY: self.to_json(),
        }
        return {key: value for key, value in flat.items() if value}


def _alt(text: str) -> dict[str, Any]:
    """An XMP language alternative with one default-language value."""
    return {"@type": "rdf:Alt", "rdf:_1": {"@language": "x-default", "@value": text}}


def iso_date(seconds: float) -> str:
    """A Unix time as ISO 8601 in UTC, to the second (XMP's Date form)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def file_name(path_or_name: str) -> str:
    """The last part of a path from any system, or a URL's; "" for ""."""
    text = path_or_name.split("?", 1)[0]
    return PureWindowsPath(PurePosixPath(text).name).name if text else ""


def file_sha256(path: str | Path) -> str:
    """The file's SHA-256 in hex; "" when it cannot be read (gone, a URL, a Blender image's name).
    Reads from disk: call it off the UI thread."""
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except (OSError, TypeError, ValueError):
        return ""


def from_properties(
    props: Mapping[str, Any], *, credit: str = "", version: str = "", image_sha256: str = ""
) -> Provenance | None:
    """The record of an object from its ``kiln_*`` properties; None for an object Kiln did not make
    (or whose ``kiln_task_id`` the artist removed). A stored record wins; old objects are read
    from the import's own properties (service: the interface's when not said)."""
    task_id = str(props.get("kiln_task_id") or "")
    if not task_id:
        return None
    stored = props.get(PROPERTY)
    if isinstance(stored, str):
        try:
            record = Provenance.from_json(stored)
        except (ValueError, TypeError):
            record = None
        if record is not None and record.task_id == task_id:
            return record
    image = str(props.get("kiln_image") or "")
    return Provenance(
        task_id=task_id,
        service_id=service_id(props.get("kiln_service")),
        prompt=str(props.get("kiln_prompt") or ""),
        image=file_name(image),
        image_sha256=image_sha256 or str(props.get("kiln_image_sha256") or ""),
        date=str(props.get("kiln_date") or ""),
        kiln_version=version,
        credit=credit,
    )


# ------------------------------------------------------------------------------------- GLB files


def read_glb_json(path: Path) -> dict[str, Any]:
    """The JSON chunk of a GLB file."""
    document, _chunks = _split(path.read_bytes())
    return document


def packet_of(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """The asset's XMP packet of a glTF document, or None."""
    try:
        index = document["asset"]["extensions"][EXTENSION]["packet"]
        packet = document["extensions"][EXTENSION]["packets"][index]
    except (KeyError, IndexError, TypeError):
        return None
    return packet if isinstance(packet, dict) else None


def stamp_glb(path: Path, record: Provenance) -> None:
    """Rewrite the GLB at ``path`` with ``record``'s packet on its asset (an earlier asset packet
    is replaced, others kept), the binary chunks untouched; written whole beside it, then renamed.
    Raises NotAGlb or OSError."""
    document, chunks = _split(path.read_bytes())
    used = document.setdefault("extensionsUsed", [])
    if EXTENSION not in used:
        used.append(EXTENSION)
    packets = document.setdefault("extensions", {}).setdefault(EXTENSION, {}).setdefault("packets", [])
    asset = document.setdefault("asset", {"version": "2.0"})
    at = asset.setdefault("extensions", {}).get(EXTENSION, {}).get("packet")
    if isinstance(at, int) and 0 <= at < len(packets):
        packets[at] = record.packet()
    else:
        packets.append(record.packet())
        asset["extensions"][EXTENSION] = {"packet": len(packets) - 1}
    _write_atomically(path, _join(document, chunks))


def _split(data: bytes) -> tuple[dict[str, Any], list[tuple[int, bytes]]]:
    """A GLB's JSON document and its other chunks (type, payload) in order (glTF 2.0, "GLB File Format")."""
    if len(data) < 20 or data[:4] != _GLB_MAGIC:
        raise NotAGlb("no glTF binary header")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2 or length > len(data):
        raise NotAGlb(f"glTF binary version {version}, {length} bytes declared of {len(data)}")
    chunks: list[tuple[int, bytes]] = []
    offset = 12
    while offset + 8 <= length:
        size, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + size > length:
            raise NotAGlb("a chunk runs past the end of the file")
        chunks.append((kind, data[offset + 8 : offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _JSON_CHUNK:
        raise NotAGlb("the first chunk is not JSON")
    try:
        document = json.loads(chunks[0][1].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotAGlb(f"the JSON chunk does not parse ({exc})") from exc
    if not isinstance(document, dict):
        raise NotAGlb("the JSON chunk is not an object")
    return document, chunks[1:]


def _join(document: dict[str, Any], chunks: list[tuple[int, bytes]]) -> bytes:
    """A GLB of ``document`` and ``chunks``: JSON padded with spaces, binary with zeros, to 4 bytes."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    parts = [_chunk(_JSON_CHUNK, text, b" ")]
    parts += [_chunk(kind, payload, b"\0") for kind, payload in chunks]
    body = b"".join(parts)
    return _GLB_MAGIC + struct.pack("<II", 2, 12 + len(body)) + body


def _chunk(kind: int, payload: bytes, pad: bytes) -> bytes:
    payload += pad * (-len(payload) % 4)
    return struct.pack("<II", len(payload), kind) + payload


def _write_atomically(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        fs.replace(Path(temp), path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
