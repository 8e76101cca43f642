"""The fix-up and game-output arguments of the generate, selection and batch operators (a mixin).

A fix-up not given as an argument takes its preference (all off by default); the outputs (LODs,
collision, engine, export folder) are per call. What is chosen travels with the job's request
(``JobRequest.game``) to the helper Blender, which does the work.
"""

from __future__ import annotations

from dataclasses import replace

import bpy
from bpy.props import EnumProperty, FloatProperty, IntProperty, StringProperty

from .. import preferences
from ..api.features.quality.options import GameOptions, parse_lods
from ..api.jobs import JobRequest

COLLISION_ITEMS = (
    ("NONE", "None", "No collision mesh"),
    ("HULL", "Convex Hull", "A convex hull of the mesh, named for the engine"),
)
ENGINE_ITEMS = (
    ("NONE", "None", "Blender names; an export is a GLB"),
    ("UNREAL", "Unreal", "SM_<Name>, SM_<Name>_LOD1…, UCX_SM_<Name>_00; FBX"),
    ("UNITY", "Unity", "<Name>_LOD0…, <Name>_Collider; FBX with axes and scale baked for Unity"),
    ("GODOT", "Godot", "<Name>, <Name>-convcolonly; GLB"),
)

GAME_ARGUMENTS = (
    "fix_merge",
    "fix_normals",
    "fix_loose",
    "triangles",
    "lods",
    "collision",
    "engine",
    "export_dir",
)


class GameOutputProperties:
    """Fix-ups and game outputs as operator arguments."""

    fix_merge: bpy.props.BoolProperty(  # type: ignore[valid-type]
        name="Merge by Distance", default=False, description="Merge vertices closer than 0.1 mm"
    )
    fix_normals: bpy.props.BoolProperty(  # type: ignore[valid-type]
        name="Faces Out", default=False, description="Make every part wind one way, facing out"
    )
    fix_loose: FloatProperty(  # type: ignore[valid-type]
        name="Delete Loose Parts Below",
        default=0.0,
        min=0.0,
        max=0.99,
        subtype="FACTOR",
        description="Delete parts with less than this share of the triangles (0: keep all)",
    )
    triangles: IntProperty(  # type: ignore[valid-type]
        name="Triangle Budget", default=0, min=0, description="Decimate to this many triangles (0: as made)"
    )
    lods: StringProperty(  # type: ignore[valid-type]
        name="LODs", default="", description="LOD ratios of LOD0's triangles, e.g. 0.5,0.25 (empty: none)"
    )
    collision: EnumProperty(name="Collision", items=COLLISION_ITEMS, default="NONE")  # type: ignore[valid-type]
    engine: EnumProperty(name="Engine", items=ENGINE_ITEMS, default="NONE")  # type: ignore[valid-type]
    export_dir: StringProperty(  # type: ignore[valid-type]
        name="Export Folder", default="", subtype="DIR_PATH", description="Export each result here (optional)"
    )

    def game_options(self, context: bpy.types.Context | None = None) -> GameOptions:
        """The options of this call; raises InputError (a sentence) for unusable LOD ratios."""
        prefs = preferences.get(context)
        props = self.properties  # type: ignore[attr-defined]

        def chosen(name: str) -> object:
            return getattr(self, name) if props.is_property_set(name) else getattr(prefs, name)

        folder = self.export_dir.strip()
        return GameOptions(
            fix_merge=bool(chosen("fix_merge")),
            fix_normals=bool(chosen("fix_normals")),
            fix_loose=float(chosen("fix_loose")),  # type: ignore[arg-type]
            triangles=int(chosen("triangles")),  # type: ignore[call-overload]
            lods=parse_lods(self.lods),
            collision=self.collision,
            engine=self.engine,
            export_dir=bpy.path.abspath(folder) if folder else "",
        )

    def given_game_arguments(self) -> dict[str, object]:
        """The fix-up and output arguments this call was given (to pass on when it calls itself again)."""
        props = self.properties  # type: ignore[attr-defined]
        return {name: getattr(self, name) for name in GAME_ARGUMENTS if props.is_property_set(name)}

    def with_game(self, request: JobRequest, context: bpy.types.Context | None = None) -> JobRequest:
        """``request`` carrying this call's options (unchanged when none are asked)."""
        return replace(request, game=self.game_options(context).to_text())
