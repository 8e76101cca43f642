"""Kiln's add-on preferences: where the service is, the key, and how jobs behave.

The key is not a stored property: it lives in a private file beside the job list
(see ``api.features.secrets``) so it never ends up in a .blend, ``userpref.blend`` included.
``KILN_API_KEY`` and ``KILN_BASE_URL`` win over what is set here.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from . import dependencies
from .api import isolation
from .api.features import secrets
from .api.features.cache import SizeCache
from .api.features.connection_check import CheckState
from .api.features.connection_check import current as connection_check
from .api.jobs import CACHE_DIR, ServiceConfig
from .drawing import wrapped_label
from .registration import classes_factory
from .ui_text import human_size, key_hint

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

log = logging.getLogger(__name__)

ENV_KEY = "KILN_API_KEY"
ENV_BASE_URL = "KILN_BASE_URL"

_cached_key: str | None = None
#: Where the key was last saved, or why it could not be (shown under the key; set by the save thread).
key_status = ""
_key_saves: ThreadPoolExecutor | None = None
#: The test harness's poll interval, below the 2 s floor, so a job test takes a second rather than a
#: poll interval. Only Python code can set it (tests/conftest.py does): no property, preference or
#: environment variable an artist can reach reads or writes it.
_test_poll_interval: float | None = None
#: The cache folder's size, re-measured at most every few seconds while the preferences redraw.
cache_size = SizeCache()


def user_dir() -> Path:
    """Kiln's writable folder: job list, cache, key file."""
    # "" when it cannot be made (a file in the way): keep the real path, so the engine names the problem.
    return Path(
        bpy.utils.extension_path_user(__package__, create=True) or bpy.utils.extension_path_user(__package__)
    )


def cache_dir() -> Path:
    """Where downloaded meshes and previews are kept (the job engine's cache)."""
    return user_dir() / CACHE_DIR


def _get_key(_self: bpy.types.AddonPreferences) -> str:
    global _cached_key
    if _cached_key is None:
        _cached_key = secrets.read_key(user_dir())
    return _cached_key


def _set_key(_self: bpy.types.AddonPreferences, value: str) -> None:
    global _cached_key
    _cached_key = value.strip()
    # Saved on a thread: a system keyring, or a file an antivirus holds for a moment, must not stall
    # the UI. One thread, so saves land in the order they were made.
    global _key_saves
    if _key_saves is None:
        _key_saves = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiln-key-save")
    _key_saves.submit(_save_key, user_dir(), _cached_key)
    connection_check.reset()


def finish_key_saves() -> None:
    """Let a pending save of the key finish (on unregister, and before tests look at the disk)."""
    global _key_saves
    if _key_saves is not None:
        _key_saves.shutdown(wait=True)
        _key_saves = None


def _save_key(directory: Path, key: str) -> None:
    global key_status
    try:
        where = secrets.write_key(directory, key)
    except secrets.KeyStoreError as exc:
        key_status = f"{exc.user_message} It is used until Blender quits."
        log.warning("%s", exc.user_message)
    else:
        key_status = f"Stored in {where}" if key else ""


def _forget_connection_check(_self: KilnPreferences, _context: bpy.types.Context) -> None:
    """A connection answer is about the URL and key it was asked with; a new URL makes it stale."""
    connection_check.reset()


def _apply_log_level(self: KilnPreferences, _context: bpy.types.Context) -> None:
    logging.getLogger(__package__).setLevel(self.log_level)


class KilnPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    api_key: StringProperty(  # type: ignore[valid-type]
        name="API Key",
        description="Secret key from the service's dashboard (API Keys ▸ Create Secret Key). "
        "Stored in the system's keychain (or a private file), never in a .blend",
        subtype="PASSWORD",
        get=_get_key,
        set=_set_key,
    )
    base_url: StringProperty(  # type: ignore[valid-type]
        name="Service URL",
        description="Base URL of the 3D generation service (HTTPS; plain HTTP only for a local sandbox)",
        default="",
        update=_forget_connection_check,
    )
    poll_interval: FloatProperty(  # type: ignore[valid-type]
        name="Poll Interval",
        description="Seconds between status checks of a running job (the service recommends 2–3 s)",
        default=2.5,
        min=2.0,
        max=3.0,
        subtype="TIME_ABSOLUTE",
        unit="TIME_ABSOLUTE",
    )
    max_in_flight: IntProperty(  # type: ignore[valid-type]
        name="Jobs in Flight",
        description="How many jobs may run on the service at once; further jobs wait their turn",
        default=4,
        min=1,
        max=100,
    )
    timeout_minutes: IntProperty(  # type: ignore[valid-type]
        name="Give Up After",
        description="Minutes after which a job stops being tracked (its task id is kept for Resume)",
        default=30,
        min=1,
        max=24 * 60,
    )
    auto_import: BoolProperty(  # type: ignore[valid-type]
        name="Import Automatically",
        description="Put finished meshes into the scene as soon as they arrive",
        default=True,
    )
    placement: EnumProperty(  # type: ignore[valid-type]
        name="Placement",
        items=(
            ("CURSOR", "3D Cursor", "Place new meshes at the 3D cursor"),
            ("ORIGIN", "World Origin", "Place new meshes at the world origin"),
        ),
        default="CURSOR",
    )
    collection_name: StringProperty(  # type: ignore[valid-type]
        name="Collection",
        description="Collection that receives imported meshes",
        default="Kiln",
    )
    import_in_place: BoolProperty(  # type: ignore[valid-type]
        name="Import in this Blender (faster, less safe)",
        description="Import meshes with the glTF importer of this Blender instead of a helper Blender "
        "that saves a .blend this one appends. Faster, but a damaged mesh could crash this Blender "
        "and lose unsaved work. Meshes over the Large Mesh Threshold still use the helper",
        default=False,
    )
    large_import_triangles: IntProperty(  # type: ignore[valid-type]
        name="Large Mesh Threshold",
        description="With Import in this Blender on, meshes with more triangles than this (or files "
        "over 20 MB) are still imported by the helper Blender and appended, so Blender does not freeze",
        default=200_000,
        min=0,
        soft_max=5_000_000,
    )
    origin_at_base: BoolProperty(  # type: ignore[valid-type]
        name="Origin at Base",
        description="Put each imported mesh's origin at the centre of its bottom face",
        default=False,
    )
    apply_scale: BoolProperty(  # type: ignore[valid-type]
        name="Apply Scale",
        description="Bake the scale (a blockout fit included) into the mesh, leaving the object at scale 1",
        default=False,
    )
    smooth_by_angle: BoolProperty(  # type: ignore[valid-type]
        name="Smooth by Angle",
        description="Shade imported meshes smooth, keeping edges sharper than the angle sharp",
        default=False,
    )
    smooth_angle: FloatProperty(  # type: ignore[valid-type]
        name="Angle",
        description="Edges between faces meeting at more than this many degrees stay sharp",
        default=30.0,
        min=0.0,
        max=180.0,
    )
    target_height: FloatProperty(  # type: ignore[valid-type]
        name="Height at Cursor",
        description="Scale meshes placed at the cursor or origin to this height in metres (0: as generated)",
        default=0.0,
        min=0.0,
        soft_max=100.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    fix_merge: BoolProperty(  # type: ignore[valid-type]
        name="Merge by Distance",
        description="Merge each result's vertices closer than 0.1 mm (in the helper Blender)",
        default=False,
    )
    fix_normals: BoolProperty(  # type: ignore[valid-type]
        name="Faces Out",
        description="Turn faces that wind against their neighbours, so every part faces out",
        default=False,
    )
    fix_loose: FloatProperty(  # type: ignore[valid-type]
        name="Delete Loose Parts Below",
        description="Delete parts with less than this share of a result's triangles (0: keep all)",
        default=0.0,
        min=0.0,
        max=0.99,
        subtype="FACTOR",
    )
    triangles: IntProperty(  # type: ignore[valid-type]
        name="Triangle Budget",
        description="Decimate each result to this many triangles (Blender's Decimate, collapse; 0: as made)",
        default=0,
        min=0,
    )
    text_cost: IntProperty(  # type: ignore[valid-type]
        name="Text-to-3D Cost",
        description="Credits one text-to-3D job costs you (the service does not publish it). "
        "0: not set, so estimates list text jobs as unpriced",
        default=0,
        min=0,
    )
    ask_above: IntProperty(  # type: ignore[valid-type]
        name="Ask Before Spending More Than",
        description="Ask for confirmation before sending anything estimated above this many credits "
        "at once (0: never ask). Scripts in background mode are never asked",
        default=0,
        min=0,
    )
    library_dir: StringProperty(  # type: ignore[valid-type]
        name="Library Folder",
        description="Where every imported result is also kept as an asset (the Kiln asset library). "
        "Empty: a folder inside Kiln's user folder",
        subtype="DIR_PATH",
        default="",
    )
    log_level: EnumProperty(  # type: ignore[valid-type]
        name="Log Level",
        items=(
            ("WARNING", "Warnings", ""),
            ("INFO", "Info", ""),
            ("DEBUG", "Debug", "Verbose; the API key is never logged"),
        ),
        default="WARNING",
        update=_apply_log_level,
    )

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        missing = dependencies.notice()
        if missing:
            col = layout.column()
            col.alert = True
            wrapped_label(col, context, missing, icon="ERROR")
            return
        layout.use_property_split = True
        layout.use_property_decorate = False
        self._draw_service(layout.column(), context)
        col = layout.column(heading="Jobs")
        col.prop(self, "poll_interval")
        col.prop(self, "max_in_flight")
        col.prop(self, "timeout_minutes")
        col = layout.column(heading="Import")
        col.prop(self, "auto_import")
        col.prop(self, "placement")
        col.prop(self, "collection_name")
        col.prop(self, "import_in_place")
        threshold = col.row()
        threshold.active = self.import_in_place
        threshold.prop(self, "large_import_triangles")
        col = layout.column(heading="Shape")
        col.prop(self, "origin_at_base")
        col.prop(self, "apply_scale")
        row = col.row(heading="")
        row.prop(self, "smooth_by_angle")
        angle = row.row()
        angle.active = self.smooth_by_angle
        angle.prop(self, "smooth_angle", text="")
        col.prop(self, "target_height")
        col = layout.column(heading="Fix-ups")
        for name in ("fix_merge", "fix_normals", "fix_loose", "triangles"):
            col.prop(self, name)
        col = layout.column(heading="Credits")
        col.prop(self, "text_cost")
        col.prop(self, "ask_above")
        layout.column(heading="Library").prop(self, "library_dir")
        self._draw_cache(layout.column())
        layout.prop(self, "log_level")

    def _draw_service(self, col: bpy.types.UILayout, context: bpy.types.Context) -> None:
        col.prop(self, "api_key")
        if key_status:
            saved = key_status.startswith("Stored")
            status = col.column()
            status.alert = not saved
            wrapped_label(status, context, key_status, icon="LOCKED" if saved else "ERROR")
        if os.environ.get(ENV_KEY):
            col.label(text=f"{ENV_KEY} is set and overrides this key", icon="INFO")
        hint = key_hint(os.environ.get(ENV_KEY) or self.api_key)
        if hint:
            wrapped_label(col, context, hint, icon="INFO")
        col.prop(self, "base_url")
        if os.environ.get(ENV_BASE_URL):
            col.label(text=f"{ENV_BASE_URL} is set and overrides this URL", icon="INFO")
        col.operator("kiln.test_connection", icon="URL")
        state = connection_check.state
        if state is CheckState.IDLE:
            return
        answer = col.column()
        answer.alert = state is CheckState.FAILED
        icons: dict[CheckState, IconItems] = {CheckState.RUNNING: "SORTTIME", CheckState.OK: "CHECKMARK"}
        icon = icons.get(state, "ERROR")
        wrapped_label(answer, context, connection_check.message, icon=icon)

    def _draw_cache(self, col: bpy.types.UILayout) -> None:
        folder = cache_dir()
        col.label(text=f"Cache: {human_size(cache_size.size(folder))} in {folder}", icon="FILE_FOLDER")
        row = col.row(align=True)
        row.operator("kiln.open_cache_folder", icon="FILE_FOLDER")
        row.operator("kiln.clear_cache", icon="TRASH")


def get(context: bpy.types.Context | None = None) -> KilnPreferences:
    """Kiln's preferences from any context (scripts included)."""
    ctx = context or bpy.context
    prefs = ctx.preferences.addons[__package__].preferences
    assert isinstance(prefs, KilnPreferences)
    return prefs


def text_cost(context: bpy.types.Context | None = None) -> int | None:
    """The artist's figure for a text-to-3D job, None while not set."""
    return get(context).text_cost or None


def service_config(context: bpy.types.Context | None = None) -> ServiceConfig:
    """A plain snapshot of what workers need, taken on the main thread (workers never read bpy)."""
    prefs = get(context)
    return ServiceConfig(
        base_url=os.environ.get(ENV_BASE_URL) or prefs.base_url,
        api_key=os.environ.get(ENV_KEY) or prefs.api_key,
        poll_interval=_test_poll_interval or prefs.poll_interval,
        max_in_flight=prefs.max_in_flight,
        timeout_seconds=prefs.timeout_minutes * 60.0,
        import_in_place=prefs.import_in_place,
        large_import_triangles=prefs.large_import_triangles,
        helper_command=isolation.helper_command(bpy.app.binary_path),
        online=bpy.app.online_access,
    )


classes = (KilnPreferences,)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    global _cached_key
    _cached_key = None
    _register_classes()
    logging.getLogger(__package__).setLevel(get().log_level)


def unregister() -> None:
    global _cached_key
    finish_key_saves()
    _cached_key = None
    _unregister_classes()
