"""Every option declared once: the table the preferences and the operators' arguments are made from.

An option that is both a preference and an operator argument (a fix-up, an import option) must read
the same in both places: same name, type, range, unit, tooltip and default, so an argument not given
takes its preference and means the same thing. Each is declared here, its words in the catalogue
(``api.words.catalogue``), and made into a property with :func:`declare` wherever it appears.
``tests/blender/ui/test_options_table.py`` compares every preference and argument with this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from .api.agents.limits import DEFAULT_CREDITS, DEFAULT_JOBS
from .api.jobs.defaults import LARGE_IMPORT_TRIANGLES, MAX_IN_FLIGHT, POLL_INTERVAL, TIMEOUT_SECONDS
from .api.services import info, old_records_service
from .api.words import Label
from .api.words import catalogue as words
from .service_choices import NOT_CHOSEN_NUMBER, service_items

Value = bool | int | float | str


@dataclass(frozen=True, eq=False, repr=False)
class Option:
    """One option: its words, its default (whose type is the property's), its range and its choices.

    Known by its name in the table, never compared as a value: no generated ``__eq__`` or ``__repr__``
    (``dataclass`` compiles each from source while Kiln registers)."""

    label: Label
    default: Value
    minimum: float | None = None
    maximum: float | None = None
    soft_maximum: float | None = None
    subtype: str = "NONE"
    unit: str = "NONE"
    #: For a choice: (value, words) for each.
    choices: tuple[tuple[str, Label], ...] = ()
    #: For a choice whose choices are read when shown (Blender's items function): the services.
    choices_now: Callable[[Any, Any], list[tuple[str, str, str, int]]] | None = None

    def enum_items(self) -> list[tuple[str, str, str]]:
        if self.choices_now is not None:
            return [item[:3] for item in self.choices_now(None, None)]
        return [(value, label.name, label.tip) for value, label in self.choices]

    def property(self, **behaviour: Any) -> Any:
        """The bpy property; ``behaviour`` adds what is not a declaration (update, get, set, options)."""
        given: dict[str, Any] = {"name": self.label.name, "description": self.label.tip, **behaviour}
        if self.choices_now is not None:  # none chosen for the artist; a function's enum takes a number
            return EnumProperty(items=self.choices_now, default=NOT_CHOSEN_NUMBER, **given)
        if self.choices:
            return EnumProperty(items=self.enum_items(), default=str(self.default), **given)
        given["default"] = self.default
        if isinstance(self.default, bool):
            return BoolProperty(**given)
        number = int if isinstance(self.default, int) else float
        for key, value in (("min", self.minimum), ("max", self.maximum), ("soft_max", self.soft_maximum)):
            if value is not None:
                given[key] = number(value)
        given["subtype"] = self.subtype
        if isinstance(self.default, int):
            return IntProperty(**given)
        if isinstance(self.default, float):
            given["unit"] = self.unit
            return FloatProperty(**given)
        return StringProperty(**given)


#: The value of the resolution choice that lets the service decide (no resolution in the request).
AUTO = "AUTO"
#: The most variants of one image a click sends (each costs a job).
MAX_VARIANTS = 8
#: The port agents reach Kiln on unless the artist chooses another.
AGENT_PORT = 8790
#: Folders agents may name images in: a few path fields, each with Blender's folder picker (a list
#: in one text field would need a separator that a folder's name may hold, and no picker).
AGENT_FOLDERS = ("agent_folder_1", "agent_folder_2", "agent_folder_3")


def _resolutions(kind: str) -> tuple[tuple[str, Label], ...]:
    """The ``resolution`` arguments' choices: the tiers of the service whose stored tier is its
    resolution (the old records' service, ``api.services.old_records_service``), written in its package."""
    return tuple((tier.id, tier.label) for tier in info(old_records_service()).capabilities.tiers(kind))


TABLE: dict[str, Option] = {
    # Which service, where it is, and how jobs behave.
    "service": Option(words.OPTION_SERVICE, "", choices_now=service_items),
    "base_url": Option(words.OPTION_BASE_URL, ""),
    "poll_interval": Option(
        words.OPTION_POLL_INTERVAL,
        POLL_INTERVAL,
        2.0,
        3.0,
        subtype="TIME_ABSOLUTE",
        unit="TIME_ABSOLUTE",
    ),
    # The engine's own defaults (what a script's ServiceConfig takes), so both mean the same.
    "max_in_flight": Option(words.OPTION_MAX_IN_FLIGHT, MAX_IN_FLIGHT, 1, 100),
    "timeout_minutes": Option(words.OPTION_TIMEOUT_MINUTES, int(TIMEOUT_SECONDS // 60), 1, 24 * 60),
    # Where a result goes, and how it is opened.
    "auto_import": Option(words.OPTION_AUTO_IMPORT, True),
    "placement": Option(
        words.OPTION_PLACEMENT,
        "CURSOR",
        choices=(("CURSOR", words.OPTION_PLACEMENT_CURSOR), ("ORIGIN", words.OPTION_PLACEMENT_ORIGIN)),
    ),
    "collection_name": Option(words.OPTION_COLLECTION_NAME, "Kiln"),
    "import_in_place": Option(words.OPTION_IMPORT_IN_PLACE, False),
    "large_import_triangles": Option(
        words.OPTION_LARGE_IMPORT_TRIANGLES, LARGE_IMPORT_TRIANGLES, 0, soft_maximum=5_000_000
    ),
    # Import options: a preference, and an argument of the generate operators.
    "origin_at_base": Option(words.OPTION_ORIGIN_AT_BASE, False),
    "apply_scale": Option(words.OPTION_APPLY_SCALE, False),
    "smooth_by_angle": Option(words.OPTION_SMOOTH_BY_ANGLE, False),
    "smooth_angle": Option(words.OPTION_SMOOTH_ANGLE, 30.0, 0.0, 180.0),
    "target_height": Option(
        words.OPTION_TARGET_HEIGHT, 0.0, 0.0, soft_maximum=100.0, subtype="DISTANCE", unit="LENGTH"
    ),
    # Fix-ups: a preference, and an argument of the generate, selection and batch operators.
    "fix_merge": Option(words.OPTION_FIX_MERGE, False),
    "fix_normals": Option(words.OPTION_FIX_NORMALS, False),
    "fix_loose": Option(words.OPTION_FIX_LOOSE, 0.0, 0.0, 0.99, subtype="FACTOR"),
    "triangles": Option(words.OPTION_TRIANGLES, 0, 0),
    # Game outputs: arguments only (per call).
    "lods": Option(words.OPTION_LODS, ""),
    "collision": Option(
        words.OPTION_COLLISION,
        "NONE",
        choices=(("NONE", words.OPTION_COLLISION_NONE), ("HULL", words.OPTION_COLLISION_HULL)),
    ),
    "engine": Option(
        words.OPTION_ENGINE,
        "NONE",
        choices=(
            ("NONE", words.OPTION_ENGINE_NONE),
            ("UNREAL", words.OPTION_ENGINE_UNREAL),
            ("UNITY", words.OPTION_ENGINE_UNITY),
            ("GODOT", words.OPTION_ENGINE_GODOT),
        ),
    ),
    "export_engine": Option(
        words.OPTION_EXPORT_ENGINE,
        "GLB",
        choices=(
            ("UNREAL", words.OPTION_EXPORT_ENGINE_UNREAL),
            ("UNITY", words.OPTION_EXPORT_ENGINE_UNITY),
            ("GODOT", words.OPTION_EXPORT_ENGINE_GODOT),
            ("GLB", words.OPTION_EXPORT_ENGINE_GLB),
        ),
    ),
    "export_dir": Option(words.OPTION_EXPORT_DIR, "", subtype="DIR_PATH"),
    # Credits, the library and the console.
    "text_cost": Option(words.OPTION_TEXT_COST, 0, 0),
    "ask_above": Option(words.OPTION_ASK_ABOVE, 0, 0),
    "ask_unknown_price": Option(words.OPTION_ASK_UNKNOWN_PRICE, True),
    "library_dir": Option(words.OPTION_LIBRARY_DIR, "", subtype="DIR_PATH"),
    "credit_line": Option(words.OPTION_CREDIT_LINE, ""),
    "log_level": Option(
        words.OPTION_LOG_LEVEL,
        "WARNING",
        choices=(
            ("WARNING", words.OPTION_LOG_LEVEL_WARNING),
            ("INFO", words.OPTION_LOG_LEVEL_INFO),
            ("DEBUG", words.OPTION_LOG_LEVEL_DEBUG),
        ),
    ),
    # Arguments the generate, selection and batch operators share.
    "resolution": Option(
        words.OPTION_RESOLUTION,
        info(old_records_service()).capabilities.default_tier("text"),
        choices=_resolutions("text"),
    ),
    "image_resolution": Option(
        words.OPTION_IMAGE_RESOLUTION,
        info(old_records_service()).capabilities.default_tier("image"),
        choices=_resolutions("image"),
    ),
    "reuse": Option(
        words.OPTION_REUSE,
        "ASK",
        choices=(
            ("ASK", words.OPTION_REUSE_ASK),
            ("ALWAYS", words.OPTION_REUSE_ALWAYS),
            ("NEVER", words.OPTION_REUSE_NEVER),
        ),
    ),
    "wait": Option(words.OPTION_WAIT, True),
    "max_credits": Option(words.OPTION_MAX_CREDITS, -1, -1),
    "fit": Option(
        words.OPTION_FIT,
        "CONTAIN",
        choices=(
            ("CONTAIN", words.OPTION_FIT_CONTAIN),
            ("HEIGHT", words.OPTION_FIT_HEIGHT),
            ("NONE", words.OPTION_FIT_NONE),
        ),
    ),
    # An image job's variants: an argument of the image operator, and the panel's setting.
    "variants": Option(words.ARG_VARIANTS, 1, 1, MAX_VARIANTS),
    # Agents (Kiln's MCP server): preferences only.
    "allow_agents": Option(words.OPTION_ALLOW_AGENTS, False),
    "agent_port": Option(words.OPTION_AGENT_PORT, AGENT_PORT, 0, 65535),
    "agent_credits": Option(words.OPTION_AGENT_CREDITS, DEFAULT_CREDITS, 0, soft_maximum=1000),
    "agent_jobs": Option(words.OPTION_AGENT_JOBS, DEFAULT_JOBS, 0, soft_maximum=100),
    **{name: Option(words.OPTION_AGENT_FOLDER, "", subtype="DIR_PATH") for name in AGENT_FOLDERS},
}


def declare(name: str, **behaviour: Any) -> Any:
    """The property for option ``name``, as a preference or an operator argument declares it."""
    return TABLE[name].property(**behaviour)
