"""Each engine's names for a mesh, its LODs and its collision, and the files an export writes.

- Unreal: ``SM_<Name>``, ``SM_<Name>_LOD1``…, collision ``UCX_SM_<Name>_00`` (Unreal's FBX import
  reads a ``UCX_`` mesh named after the static mesh as its convex collision).
- Unity: ``<Name>_LOD0``, ``<Name>_LOD1``… (Unity's model importer builds an LOD Group from the
  ``_LODn`` suffixes), collision ``<Name>_Collider`` (a mesh for a MeshCollider, convex).
- Godot: ``<Name>``, ``<Name>_LOD1``…, collision ``<Name>-convcolonly`` (Godot's scene importer turns
  a ``-convcolonly`` mesh into a convex collision shape only; ``-colonly`` is the concave one).
- NONE / GLB: ``<Name>``, ``<Name>_LOD1``…, ``<Name>_Collision``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ARTICLES = {"a", "an", "the"}
MAX_NAME = 48


def asset_name(label: str) -> str:
    """A name engines accept from a job's label: "a red wooden chair" → "RedWoodenChair"."""
    words = [w for w in re.findall(r"[A-Za-z0-9]+", label) if w.lower() not in _ARTICLES]
    name = "".join(w[:1].upper() + w[1:] for w in words)[:MAX_NAME]
    if not name:
        return "Asset"
    return f"Asset{name}" if name[0].isdigit() else name


@dataclass(frozen=True)
class EngineNames:
    """The objects' names for one result: LOD0, then one per LOD ratio, then the collision."""

    lods: tuple[str, ...]
    collision: str
    #: File name of the export, without folder.
    file: str


def engine_names(engine: str, name: str, lod_count: int) -> EngineNames:
    """Names for LOD0 and ``lod_count`` further LODs, the collision mesh, and the export file."""
    if engine == "UNREAL":
        base = f"SM_{name}"
        return EngineNames(
            lods=(base, *(f"{base}_LOD{i}" for i in range(1, lod_count + 1))),
            collision=f"UCX_{base}_00",
            file=f"{base}.fbx",
        )
    if engine == "UNITY":
        return EngineNames(
            lods=tuple(f"{name}_LOD{i}" for i in range(lod_count + 1)) if lod_count else (name,),
            collision=f"{name}_Collider",
            file=f"{name}.fbx",
        )
    lods = (name, *(f"{name}_LOD{i}" for i in range(1, lod_count + 1)))
    if engine == "GODOT":
        return EngineNames(lods=lods, collision=f"{name}-convcolonly", file=f"{name}.glb")
    return EngineNames(lods=lods, collision=f"{name}_Collision", file=f"{name}.glb")
