"""The options as operator arguments (mixins): an import option or a fix-up not given takes its preference.

Each argument is made from the one table (``options.TABLE``), like the preference it falls back to.
What the import options do to a result (height at the cursor, apply scale, origin at the base,
smooth by angle) is ``session.placement``, alike for a fresh import and a library copy reused; the
fix-ups and game outputs travel with the job's request (``JobRequest.game``) to the helper Blender.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from .. import preferences
from ..api.services import OPTION_NAMES, is_registered, service_id
from ..api.words import catalogue as words
from ..options import declare

if TYPE_CHECKING:
    from ..api.features.quality.options import GameOptions
    from ..api.jobs import JobRequest
    from .placement import ImportOptions


def preferred_options(context: bpy.types.Context | None = None) -> ImportOptions:
    """The import options set in the preferences."""
    from .placement import ImportOptions  # loaded with the first job, not when Kiln registers

    prefs = preferences.get(context)
    return ImportOptions(
        origin_at_base=prefs.origin_at_base,
        apply_scale=prefs.apply_scale,
        smooth_angle=prefs.smooth_angle if prefs.smooth_by_angle else None,
        target_height=prefs.target_height,
    )


def preferred_game(context: bpy.types.Context | None = None) -> GameOptions:
    """The fix-ups set in the preferences, for a job no operator's arguments chose (an agent's)."""
    from ..api.features.quality.options import GameOptions  # loaded with the first job

    prefs = preferences.get(context)
    return GameOptions(
        fix_merge=prefs.fix_merge,
        fix_normals=prefs.fix_normals,
        fix_loose=prefs.fix_loose,
        triangles=prefs.triangles,
    )


class ImportOptionProperties:
    """The import options as operator arguments (a mixin); one not given takes its preference."""

    origin_at_base: declare("origin_at_base")  # type: ignore[valid-type]
    apply_scale: declare("apply_scale")  # type: ignore[valid-type]
    smooth_by_angle: declare("smooth_by_angle")  # type: ignore[valid-type]
    smooth_angle: declare("smooth_angle")  # type: ignore[valid-type]
    target_height: declare("target_height")  # type: ignore[valid-type]

    def import_options(self, context: bpy.types.Context) -> ImportOptions:
        from .placement import ImportOptions  # loaded with the first job, not when Kiln registers

        preferred = preferred_options(context)
        props = self.properties  # type: ignore[attr-defined]

        def given(name: str) -> bool:
            return bool(props.is_property_set(name))

        smooth = preferred.smooth_angle
        if given("smooth_by_angle") or given("smooth_angle"):
            on = self.smooth_by_angle if given("smooth_by_angle") else preferred.smooth_angle is not None
            smooth = self.smooth_angle if on else None
        return ImportOptions(
            origin_at_base=self.origin_at_base if given("origin_at_base") else preferred.origin_at_base,
            apply_scale=self.apply_scale if given("apply_scale") else preferred.apply_scale,
            smooth_angle=smooth,
            target_height=self.target_height if given("target_height") else preferred.target_height,
        )


def options_of(op: object, context: bpy.types.Context) -> ImportOptions:
    """The options an operator was called with, or the preferences' for one without these arguments."""
    return (
        op.import_options(context) if isinstance(op, ImportOptionProperties) else preferred_options(context)
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

    fix_merge: declare("fix_merge")  # type: ignore[valid-type]
    fix_normals: declare("fix_normals")  # type: ignore[valid-type]
    fix_loose: declare("fix_loose")  # type: ignore[valid-type]
    triangles: declare("triangles")  # type: ignore[valid-type]
    lods: declare("lods")  # type: ignore[valid-type]
    collision: declare("collision")  # type: ignore[valid-type]
    engine: declare("engine")  # type: ignore[valid-type]
    export_dir: declare("export_dir")  # type: ignore[valid-type]

    def game_options(self, context: bpy.types.Context | None = None) -> GameOptions:
        """The options of this call; raises InputError (a sentence) for unusable LOD ratios."""
        from ..api.features.quality.options import GameOptions, parse_lods  # with the first job

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


def chosen_service(properties: Any, context: bpy.types.Context | None = None) -> str:
    """The service an operator's ``service`` argument gives, or the preferences' choice when not given."""
    if properties.is_property_set("service") and is_registered(properties.service):
        return service_id(properties.service)
    return preferences.chosen_service(context)


class ServiceProperties:
    """Which service a job goes to, its quality tier and its options, as operator arguments (a mixin).

    A service not given is the preferences' choice; an option not given is the service's default, so
    only what a script asks for reaches the service, and an option the service lacks is refused
    before anything is recorded (``api.jobs.JobEngine.record``).
    """

    service: declare("service", options={"SKIP_SAVE"})  # type: ignore[valid-type]
    tier: StringProperty(  # type: ignore[valid-type]
        name=words.OPTION_TIER.name, description=words.OPTION_TIER.tip, options={"SKIP_SAVE"}
    )
    pbr: BoolProperty(name=words.ARG_PBR.name, description=words.ARG_PBR.tip, options={"SKIP_SAVE"})  # type: ignore[valid-type]
    quad: BoolProperty(name=words.ARG_QUAD.name, description=words.ARG_QUAD.tip, options={"SKIP_SAVE"})  # type: ignore[valid-type]
    texture: BoolProperty(  # type: ignore[valid-type]
        name=words.ARG_TEXTURE.name, description=words.ARG_TEXTURE.tip, default=True, options={"SKIP_SAVE"}
    )
    polygons: IntProperty(  # type: ignore[valid-type]
        name=words.ARG_POLYGONS.name, description=words.ARG_POLYGONS.tip, min=0, options={"SKIP_SAVE"}
    )
    style: StringProperty(name=words.ARG_STYLE.name, description=words.ARG_STYLE.tip, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    def chosen_service(self, context: bpy.types.Context | None = None) -> str:
        """The service given, or the preferences' choice."""
        return chosen_service(self.properties, context)  # type: ignore[attr-defined]

    def service_choice(self, context: bpy.types.Context | None = None) -> dict[str, str]:
        """The service, the tier and the options (JSON) this call asks for, as ``to_service`` takes them."""
        props = self.properties  # type: ignore[attr-defined]
        given = {name: getattr(self, name) for name in OPTION_NAMES if props.is_property_set(name)}
        if not given.get("polygons", 1):
            del given["polygons"]  # 0: the service's default
        options = json.dumps(given, sort_keys=True) if given else ""
        return {"service": self.chosen_service(context), "tier": self.tier.strip(), "options": options}

    def with_service(self, request: JobRequest, context: bpy.types.Context | None = None) -> JobRequest:
        """``request`` going to the chosen service, with the tier and the options this call gave."""
        return request.to_service(**self.service_choice(context))

    def given_service_arguments(self) -> dict[str, object]:
        """The service arguments this call was given (to pass on when it calls itself again)."""
        props = self.properties  # type: ignore[attr-defined]
        names = ("service", "tier", *OPTION_NAMES)
        return {name: getattr(self, name) for name in names if props.is_property_set(name)}
