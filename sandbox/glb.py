"""GLB export and the true triangle count of the exported bytes (what `result.triangles` reports)."""

from __future__ import annotations

import json
import struct

import trimesh
from trimesh.exchange.gltf import export_glb

GLB_MAGIC = b"glTF"
TRIANGLES_MODE = 4


def to_glb(mesh: trimesh.Trimesh) -> bytes:
    return export_glb(mesh, include_normals=False)


def glb_triangles(data: bytes) -> int:
    """Count triangles from the glTF JSON chunk: indexed triangle primitives, once per node use."""
    magic, _version, _length = struct.unpack_from("<4sII", data, 0)
    if magic != GLB_MAGIC:
        raise ValueError("not a GLB file")
    chunk_length, _chunk_type = struct.unpack_from("<II", data, 12)
    gltf = json.loads(data[20 : 20 + chunk_length])
    accessors = gltf["accessors"]
    per_mesh = []
    for mesh in gltf.get("meshes", []):
        count = 0
        for primitive in mesh["primitives"]:
            if primitive.get("mode", TRIANGLES_MODE) != TRIANGLES_MODE:
                continue
            if "indices" in primitive:
                count += accessors[primitive["indices"]]["count"] // 3
            else:
                count += accessors[primitive["attributes"]["POSITION"]]["count"] // 3
        per_mesh.append(count)
    return sum(per_mesh[node["mesh"]] for node in gltf.get("nodes", []) if "mesh" in node)
