"""The import options as operator arguments (a mixin): one not given takes its preference.

What they do to a result (height at the cursor, apply scale, origin at the base, smooth by angle)
is ``operators.placement``; they apply alike to a fresh import and to a library copy reused.
"""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty, FloatProperty

from .. import preferences
from ..api.features.blockout import ImportOptions


def preferred_options(context: bpy.types.Context | None = None) -> ImportOptions:
    """The import options set in the preferences."""
    prefs = preferences.get(context)
    return ImportOptions(
        origin_at_base=prefs.origin_at_base,
        apply_scale=prefs.apply_scale,
        smooth_angle=prefs.smooth_angle if prefs.smooth_by_angle else None,
        target_height=prefs.target_height,
    )


class ImportOptionProperties:
    """The import options as operator arguments (a mixin); one not given takes its preference."""

    origin_at_base: BoolProperty(name="Origin at Base", default=False)  # type: ignore[valid-type]
    apply_scale: BoolProperty(name="Apply Scale", default=False)  # type: ignore[valid-type]
    smooth_by_angle: BoolProperty(name="Smooth by Angle", default=False)  # type: ignore[valid-type]
    smooth_angle: FloatProperty(name="Angle", default=30.0, min=0.0, max=180.0)  # type: ignore[valid-type]
    target_height: FloatProperty(name="Height at Cursor", default=0.0, min=0.0)  # type: ignore[valid-type]

    def import_options(self, context: bpy.types.Context) -> ImportOptions:
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
