"""Checks of a glTF document's structure: what Blender's importer would trust blindly.

Blender's importer (``io_scene_gltf2``) reads every accessor with ``numpy.frombuffer`` or
``numpy.zeros(count)``, opens any buffer or image ``uri`` as a path next to the file, and
follows node children recursively. So a small hostile file can make it allocate gigabytes
(an accessor count of 2 billion), read a device file (``uri: /dev/zero``) or recurse forever.
These checks refuse such files (the damaged-mesh sentence, the first problem named in its details)
without reading the binary chunk (only image headers are peeked at, through ``peek``).
"""

from __future__ import annotations

import base64
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import InvalidMeshError, UnsupportedMeshError
from ..words import catalogue as words
from ..words import shorten

# What the bundled importers read (``extensions_managed`` in io_imp/gltf2_io_gltf.py): the list of
# Blender 4.2 LTS, which Blender 5.2 extends; the oldest supported Blender decides.
SUPPORTED_EXTENSIONS = frozenset(
    {
        "KHR_materials_pbrSpecularGlossiness",
        "KHR_lights_punctual",
        "KHR_materials_unlit",
        "KHR_texture_transform",
        "KHR_materials_clearcoat",
        "KHR_mesh_quantization",
        "EXT_mesh_gpu_instancing",
        "KHR_draco_mesh_compression",
        "KHR_materials_variants",
        "KHR_materials_emissive_strength",
        "KHR_materials_transmission",
        "KHR_materials_specular",
        "KHR_materials_sheen",
        "KHR_materials_ior",
        "KHR_animation_pointer",
        "KHR_materials_volume",
        "EXT_texture_webp",
        "KHR_materials_anisotropy",
    }
)
#: The sentence for a missing extension an artist would recognise by what it carries.
EXTENSION_SENTENCES = {
    "KHR_texture_basisu": words.MESH_NEEDS_KTX2_TEXTURES,
    "EXT_texture_avif": words.MESH_NEEDS_AVIF_TEXTURES,
    "EXT_meshopt_compression": words.MESH_NEEDS_MESHOPT,
    "KHR_meshopt_compression": words.MESH_NEEDS_MESHOPT,
    "KHR_materials_dispersion": words.MESH_NEEDS_DISPERSION,
    "KHR_materials_iridescence": words.MESH_NEEDS_IRIDESCENCE,
    "KHR_materials_diffuse_transmission": words.MESH_NEEDS_DIFFUSE_TRANSMISSION,
    "KHR_gaussian_splatting": words.MESH_NEEDS_GAUSSIAN_SPLATS,
}

COMPONENT_BYTES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
TYPE_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
MAX_COUNT = 1 << 26  # 67M elements: 20x the vertices of a 1.2M-triangle mesh
#: Accessors without data (zeros, Draco-decoded, sparse bases) may describe at most this many
#: times the file's bytes in total: Draco and morph targets stay well under it.
BUFFERLESS_FACTOR = 32
MAX_PIXELS = 1 << 26  # 8192 x 8192; an image header may claim any size, decoding allocates it
MAX_ITEMS = 1 << 20  # entries in any one top-level list
_HEAD_BYTES = 64 * 1024  # enough of an image to find its size in the header
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")

Peek = Callable[[int, int, int], bytes]  # (buffer index, offset, length) -> bytes


def check_document(doc: Mapping[str, Any], bin_length: int | None, file_size: int, peek: Peek) -> None:
    """Raise InvalidMeshError (or UnsupportedMeshError) for the first structural problem."""
    _check_asset(doc)
    _check_extensions(doc)
    buffers = _buffer_sizes(doc, bin_length)
    views = _check_views(doc, buffers, file_size)
    _check_accessors(doc, views, file_size)
    _check_images(doc, views, buffers, peek)
    _check_meshes(doc)
    _check_nodes(doc)


def _fail(problem: str) -> InvalidMeshError:
    """The mesh is damaged; ``problem`` names the field (for the details, never the sentence)."""
    return InvalidMeshError(problem=problem)


def _list(doc: Mapping[str, Any], name: str) -> Sequence[Any]:
    value = doc.get(name, [])
    if not isinstance(value, list):
        raise _fail(f"'{name}' is not a list")
    if len(value) > MAX_ITEMS:
        raise _fail(f"'{name}' has {len(value):,} entries")
    for i, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise _fail(f"{name}[{i}] is not an object")
    return value


def _int(obj: Mapping[str, Any], key: str, where: str, *, default: int | None = None, low: int = 0) -> int:
    value = obj.get(key, default)
    if value is None:
        raise _fail(f"{where} has no {key}")
    if isinstance(value, bool) or not isinstance(value, int) or value < low or value > 1 << 53:
        raise _fail(f"{where}.{key} is not a whole number from {low} up")
    return value


def _index(obj: Mapping[str, Any], key: str, where: str, size: int) -> int:
    value = _int(obj, key, where)
    if value >= size:
        raise _fail(f"{where}.{key} points at entry {value}, which does not exist")
    return value


def _check_asset(doc: Mapping[str, Any]) -> None:
    asset = doc.get("asset")
    if not isinstance(asset, Mapping) or "version" not in asset:
        raise _fail("it has no glTF asset version")
    if asset["version"] != "2.0":  # Blender's importer accepts exactly "2.0"
        raise _fail(f"the glTF asset version is {shorten(str(asset['version']), 20)!r}; Blender reads 2.0")


def _check_extensions(doc: Mapping[str, Any]) -> None:
    required, used = doc.get("extensionsRequired", []), doc.get("extensionsUsed", [])
    for name, value in (("extensionsRequired", required), ("extensionsUsed", used)):
        if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
            raise _fail(f"'{name}' is not a list of names")
    for extension in required:
        if extension not in SUPPORTED_EXTENSIONS:
            shown = (
                extension
                if extension.isprintable() and len(extension) <= 64
                else ascii(shorten(extension, 64))
            )
            raise UnsupportedMeshError(shown, EXTENSION_SENTENCES.get(extension, words.MESH_NEEDS_EXTENSION))
        if extension not in used:
            raise _fail(f"it requires {extension} without listing it as used")


def _buffer_sizes(doc: Mapping[str, Any], bin_length: int | None) -> list[int]:
    """Bytes each buffer really has: the BIN chunk or a base64 ``data:`` URI, never a file."""
    sizes = []
    for i, buffer in enumerate(_list(doc, "buffers")):
        where = f"buffers[{i}]"
        declared = _int(buffer, "byteLength", where, low=1)
        uri = buffer.get("uri")
        if uri is None:
            if i != 0:
                raise _fail(f"{where} has no uri: only the first buffer may live in the BIN chunk")
            if bin_length is None:
                raise _fail(f"{where} has no uri and the file has no BIN chunk right after its JSON")
            available = bin_length
        else:
            available = _data_uri_size(uri, where)
        if available < declared:
            raise _fail(f"{where} declares {declared:,} bytes but holds {available:,}")
        sizes.append(declared)
    return sizes


def _data_uri_size(uri: object, where: str) -> int:
    """Decoded size of an embedded base64 URI; anything else is an outside reference and refused."""
    if not isinstance(uri, str):
        raise _fail(f"{where}.uri is not text")
    head, sep, payload = uri.partition(",")
    # Blender decodes only ";base64," data URIs; any other uri is opened as a path next to the file.
    if not (head.startswith("data:") and sep and head.endswith(";base64")):  # as Blender tests it
        raise _fail(f"{where} refers to an outside file ({_shown(uri)}); Kiln accepts embedded data only")
    if not _BASE64.fullmatch(payload) or len(payload) % 4:
        raise _fail(f"{where} has a damaged base64 data URI")
    return len(payload) // 4 * 3 - payload[-2:].count("=")


def _shown(text: str) -> str:
    """A name from the file, for the details: escaped, shortened when long."""
    return ascii(shorten(text, 60))


def _check_views(doc: Mapping[str, Any], buffers: list[int], file_size: int) -> list[tuple[int, int, int]]:
    """(buffer, byteLength, byteStride or 0) of every buffer view, each checked to fit its buffer."""
    views = []
    for i, view in enumerate(_list(doc, "bufferViews")):
        where = f"bufferViews[{i}]"
        buffer = _index(view, "buffer", where, len(buffers))
        offset = _int(view, "byteOffset", where, default=0)
        length = _int(view, "byteLength", where, low=1)
        if offset + length > buffers[buffer]:
            raise _fail(
                f"{where} runs past the end of buffer {buffer} ({offset + length:,} > {buffers[buffer]:,})"
            )
        stride = _int(view, "byteStride", where, default=0)
        # The spec also asks for a multiple of 4, which Blender does not need: not enforced here.
        if stride and not 4 <= stride <= 252:
            raise _fail(f"{where}.byteStride {stride} is outside 4 to 252")
        _check_meshopt(view, where, buffers, file_size)
        views.append((buffer, length, stride))
    return views


def _check_meshopt(view: Mapping[str, Any], where: str, buffers: list[int], file_size: int) -> None:
    """Blender 5 decodes meshopt views even when the extension is only used: bound what they expand to."""
    extensions = view.get("extensions")
    if not isinstance(extensions, Mapping):
        return
    for name in ("EXT_meshopt_compression", "KHR_meshopt_compression"):
        ext = extensions.get(name)
        if ext is None:
            continue
        if not isinstance(ext, Mapping):
            raise _fail(f"{where}.{name} is not an object")
        buffer = _index(ext, "buffer", f"{where}.{name}", len(buffers))
        end = _int(ext, "byteOffset", where, default=0) + _int(ext, "byteLength", where, low=1)
        if end > buffers[buffer]:
            raise _fail(f"{where}.{name} runs past the end of buffer {buffer}")
        expanded = _int(ext, "count", where, low=1) * _int(ext, "byteStride", where, low=1)
        if expanded > BUFFERLESS_FACTOR * file_size:
            raise _fail(f"{where}.{name} would expand to {expanded:,} bytes, far more than the file holds")


def _element_size(accessor: Mapping[str, Any], where: str) -> tuple[int, int]:
    """(bytes of one element, bytes of one component), after checking both type fields."""
    component = accessor.get("componentType")
    kind = accessor.get("type")
    if component not in COMPONENT_BYTES or isinstance(component, bool):
        raise _fail(f"{where}.componentType is not a glTF component type")
    if kind not in TYPE_COMPONENTS:
        raise _fail(f"{where}.type is not a glTF element type")
    size = COMPONENT_BYTES[component]
    if kind in ("MAT2", "MAT3") and size < 4:
        columns = 2 if kind == "MAT2" else 3
        return columns * (-(-columns * size // 4) * 4), size  # columns padded to 4 bytes
    return TYPE_COMPONENTS[kind] * size, size


def _check_accessors(doc: Mapping[str, Any], views: list[tuple[int, int, int]], file_size: int) -> None:
    bufferless = 0
    for i, accessor in enumerate(_list(doc, "accessors")):
        where = f"accessors[{i}]"
        element, _ = _element_size(accessor, where)
        count = _int(accessor, "count", where, low=1)
        if count > MAX_COUNT:
            raise _fail(f"{where} claims {count:,} elements (at most {MAX_COUNT:,} are accepted)")
        if "bufferView" in accessor:
            view = _index(accessor, "bufferView", where, len(views))
            _fits(where, view, views[view], _int(accessor, "byteOffset", where, default=0), count, element)
        else:
            bufferless += count * element
            if bufferless > BUFFERLESS_FACTOR * file_size:
                raise _fail(
                    f"{where} claims {count:,} elements without data: more than a "
                    f"{file_size:,}-byte file can describe"
                )
        sparse = accessor.get("sparse")
        if sparse is not None:
            _check_sparse(sparse, f"{where}.sparse", count, element, views)


def _fits(where: str, index: int, view: tuple[int, int, int], offset: int, count: int, element: int) -> None:
    """byteOffset + stride * (count - 1) + element size must lie inside the buffer view."""
    _, length, stride = view
    end = offset + (stride or element) * (count - 1) + element
    if end > length:
        raise _fail(f"{where} needs {end:,} bytes but bufferViews[{index}] has {length:,}")


def _check_sparse(
    sparse: object, where: str, count: int, element: int, views: list[tuple[int, int, int]]
) -> None:
    if not isinstance(sparse, Mapping):
        raise _fail(f"{where} is not an object")
    entries = _int(sparse, "count", where, low=1)
    if entries > count:
        raise _fail(f"{where} replaces {entries:,} of only {count:,} elements")
    indices, values = sparse.get("indices"), sparse.get("values")
    if not isinstance(indices, Mapping) or not isinstance(values, Mapping):
        raise _fail(f"{where} lacks its indices or values")
    index_type = indices.get("componentType")
    if index_type not in (5121, 5123, 5125) or isinstance(index_type, bool):
        raise _fail(f"{where}.indices.componentType is not an unsigned integer type")
    for part, obj, size in (("indices", indices, COMPONENT_BYTES[index_type]), ("values", values, element)):
        view = _index(obj, "bufferView", f"{where}.{part}", len(views))
        offset = _int(obj, "byteOffset", f"{where}.{part}", default=0)
        _fits(f"{where}.{part}", view, (0, views[view][1], 0), offset, entries, size)


def _check_images(
    doc: Mapping[str, Any], views: list[tuple[int, int, int]], buffers: list[int], peek: Peek
) -> None:
    for i, image in enumerate(_list(doc, "images")):
        where = f"images[{i}]"
        if "uri" in image:
            _data_uri_size(image["uri"], where)
            head = base64.b64decode(image["uri"].partition(",")[2][: _HEAD_BYTES // 3 * 4])
        elif "bufferView" in image:
            view = _index(image, "bufferView", where, len(views))
            raw = doc["bufferViews"][view]
            head = peek(views[view][0], raw.get("byteOffset", 0), min(views[view][1], _HEAD_BYTES))
        else:
            continue
        size = image_size(head)
        if size is not None and (size[0] * size[1] > MAX_PIXELS or max(size) > 16384):
            raise _fail(
                f"{where} claims {size[0]:,} x {size[1]:,} pixels, more than Kiln lets Blender decode"
            )


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, JPEG or WebP header; None when the header does not say."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR" and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return width, height
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        kind = head[12:16]
        if kind == b"VP8X":
            return 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
        if kind == b"VP8L":
            bits = int.from_bytes(head[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        if kind == b"VP8 ":
            width, height = struct.unpack("<HH", head[26:30])
            return width & 0x3FFF, height & 0x3FFF
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    """Walk the JPEG segments to the first start-of-frame marker."""
    offset = 2
    while offset + 9 <= len(head):
        if head[offset] != 0xFF:
            return None
        marker = head[offset + 1]
        if marker == 0xFF:
            offset += 1
            continue
        length = struct.unpack(">H", head[offset + 2 : offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", head[offset + 5 : offset + 9])
            return width, height
        offset += 2 + length
    return None


def _check_meshes(doc: Mapping[str, Any]) -> None:
    accessors = len(_list(doc, "accessors"))
    materials = len(_list(doc, "materials"))
    for i, mesh in enumerate(_list(doc, "meshes")):
        primitives = mesh.get("primitives", [])
        if not isinstance(primitives, list):
            raise _fail(f"meshes[{i}].primitives is not a list")
        for j, primitive in enumerate(primitives):
            where = f"meshes[{i}].primitives[{j}]"
            if not isinstance(primitive, Mapping):
                raise _fail(f"{where} is not an object")
            attributes = primitive.get("attributes", {})
            targets = primitive.get("targets", [])
            if not isinstance(attributes, Mapping) or not isinstance(targets, list):
                raise _fail(f"{where} has malformed attributes")
            for k, group in enumerate([attributes, *targets]):
                if not isinstance(group, Mapping):
                    raise _fail(f"{where}.targets[{k - 1}] is not an object")
                for name in group:
                    _index(group, name, f"{where}.attributes", accessors)
            if "indices" in primitive:
                _index(primitive, "indices", where, accessors)
            if "material" in primitive:
                _index(primitive, "material", where, materials)


def _check_nodes(doc: Mapping[str, Any]) -> None:
    """Valid children, no node with two parents, no cycle: Blender follows children recursively."""
    nodes = _list(doc, "nodes")
    meshes = len(_list(doc, "meshes"))
    parent: dict[int, int] = {}
    for i, node in enumerate(nodes):
        children = node.get("children", [])
        if not isinstance(children, list):
            raise _fail(f"nodes[{i}].children is not a list")
        for child in children:
            if isinstance(child, bool) or not isinstance(child, int) or not 0 <= child < len(nodes):
                raise _fail(f"nodes[{i}] has a child that does not exist")
            if child in parent or child == i:
                raise _fail(f"nodes[{child}] has more than one parent")
            parent[child] = i
        if "mesh" in node:
            _index(node, "mesh", f"nodes[{i}]", meshes)
    rooted: set[int] = set()  # nodes whose chain of parents ends at a root
    for start in parent:
        path, node = [start], start
        while node in parent and node not in rooted:
            node = parent[node]
            path.append(node)
            if node == start or len(path) > len(nodes):
                raise _fail(f"nodes[{start}] is its own ancestor (a cycle)")
        rooted.update(path)
    for i, scene in enumerate(_list(doc, "scenes")):
        roots = scene.get("nodes", [])
        if not isinstance(roots, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and 0 <= n < len(nodes) for n in roots
        ):
            raise _fail(f"scenes[{i}] lists a node that does not exist")
