"""Kiln's add-on preferences: where the service is, the key, and how jobs behave.

Every property is declared once, in ``options.TABLE`` (the operators' arguments are made from the
same table). The key is not a stored property: ``api.features.secrets.KeyHome`` keeps it in the
system's secret store (or a private file), never in a .blend, ``userpref.blend`` included.
:func:`credentials` is the one place that says where the key and the service address come from
(the environment over these preferences), asked by the service config, the panels and the setup
check alike. The Agents section's settings are read by the agents room (``agents.settings``);
:func:`agent_folders` is the one reading of the folders agents may name images in.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

from . import dependencies, language
from .api.features import service_access
from .api.features.cache import SizeCache
from .api.features.connection_check import CheckState
from .api.features.connection_check import current as connection_check
from .api.services import NOT_CHOSEN, info, is_registered, old_records_service, service_id, service_ids
from .api.words import catalogue as words
from .drawing import wrapped_label
from .options import AGENT_FOLDERS, declare
from .registration import classes_factory

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

    from .api.features import secrets
    from .api.jobs import ServiceConfig

log = logging.getLogger(__name__)

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
    from .api.jobs import CACHE_DIR  # loaded by the first job or draw, not at registration

    return user_dir() / CACHE_DIR


#: Each service's API key, at home on this side: read once, saved off the UI thread (a service
#: registered later gets its home when first asked).
key_homes: dict[str, secrets.KeyHome] = {}


def key_home(service: str) -> secrets.KeyHome:
    """Where ``service``'s key is kept on this side."""
    sid = service_id(service)
    home = key_homes.get(sid)
    if home is None:
        from .api.features import secrets  # loaded by the first key read, not at registration

        home = key_homes[sid] = secrets.KeyHome(user_dir, secrets.service_secret(sid))
    return home


def _get_key(self: KilnPreferences) -> str:
    """The API Key field shows the chosen service's key: one field, a key kept per service."""
    return key_home(self.service).read()


def _set_key(self: KilnPreferences, value: str) -> None:
    key_home(self.service).write(value)
    connection_check.reset()


def address_of(prefs: KilnPreferences, service: str) -> str:
    """The address the artist gave ``service``: its own entry; the old records' service's is the one
    Service Address Kiln always kept (``base_url``)."""
    sid = service_id(service)
    if sid == old_records_service():
        return str(prefs.base_url)
    return next((str(kept.address) for kept in prefs.addresses if kept.service == sid), "")


def _get_address(self: KilnPreferences) -> str:
    """The Service Address field shows the chosen service's address: one field, one address a service."""
    return address_of(self, self.service)


def _set_address(self: KilnPreferences, value: str) -> None:
    sid = service_id(self.service)
    if sid == old_records_service():
        self.base_url = value
    else:
        kept = next((kept for kept in self.addresses if kept.service == sid), None)
        if kept is None:
            kept = self.addresses.add()
            kept.service = sid
        kept.address = value
    connection_check.reset()


def finish_key_saves() -> None:
    """Let pending saves of the keys finish (on unregister, and before tests look at the disk)."""
    for home in key_homes.values():
        home.finish()


def _forget_connection_check(_self: KilnPreferences, _context: bpy.types.Context) -> None:
    """A connection answer is about the URL and key it was asked with; a new URL makes it stale."""
    connection_check.reset()


def _apply_log_level(self: KilnPreferences, _context: bpy.types.Context) -> None:
    logging.getLogger(__package__).setLevel(self.log_level)


class KilnServiceAddress(bpy.types.PropertyGroup):
    """The address the artist gave one service that needs one (kept by its id)."""

    service: bpy.props.StringProperty()  # type: ignore[valid-type]
    address: bpy.props.StringProperty()  # type: ignore[valid-type]


class KilnPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    service: declare("service", update=_forget_connection_check)  # type: ignore[valid-type]
    api_key: bpy.props.StringProperty(  # type: ignore[valid-type]
        name=words.OPTION_API_KEY.name,
        description=words.OPTION_API_KEY.tip,
        subtype="PASSWORD",
        get=_get_key,
        set=_set_key,
    )
    base_url: declare("base_url", update=_forget_connection_check)  # type: ignore[valid-type]
    addresses: bpy.props.CollectionProperty(type=KilnServiceAddress)  # type: ignore[valid-type]
    service_address: bpy.props.StringProperty(  # type: ignore[valid-type]
        name=words.OPTION_BASE_URL.name,
        description=words.OPTION_BASE_URL.tip,
        get=_get_address,
        set=_set_address,
    )
    poll_interval: declare("poll_interval")  # type: ignore[valid-type]
    max_in_flight: declare("max_in_flight")  # type: ignore[valid-type]
    timeout_minutes: declare("timeout_minutes")  # type: ignore[valid-type]
    auto_import: declare("auto_import")  # type: ignore[valid-type]
    placement: declare("placement")  # type: ignore[valid-type]
    collection_name: declare("collection_name")  # type: ignore[valid-type]
    import_in_place: declare("import_in_place")  # type: ignore[valid-type]
    large_import_triangles: declare("large_import_triangles")  # type: ignore[valid-type]
    origin_at_base: declare("origin_at_base")  # type: ignore[valid-type]
    apply_scale: declare("apply_scale")  # type: ignore[valid-type]
    smooth_by_angle: declare("smooth_by_angle")  # type: ignore[valid-type]
    smooth_angle: declare("smooth_angle")  # type: ignore[valid-type]
    target_height: declare("target_height")  # type: ignore[valid-type]
    fix_merge: declare("fix_merge")  # type: ignore[valid-type]
    fix_normals: declare("fix_normals")  # type: ignore[valid-type]
    fix_loose: declare("fix_loose")  # type: ignore[valid-type]
    triangles: declare("triangles")  # type: ignore[valid-type]
    text_cost: declare("text_cost")  # type: ignore[valid-type]
    ask_above: declare("ask_above")  # type: ignore[valid-type]
    ask_unknown_price: declare("ask_unknown_price")  # type: ignore[valid-type]
    library_dir: declare("library_dir")  # type: ignore[valid-type]
    credit_line: declare("credit_line")  # type: ignore[valid-type]
    log_level: declare("log_level", update=_apply_log_level)  # type: ignore[valid-type]
    allow_agents: declare("allow_agents")  # type: ignore[valid-type]
    agent_port: declare("agent_port")  # type: ignore[valid-type]
    agent_credits: declare("agent_credits")  # type: ignore[valid-type]
    agent_jobs: declare("agent_jobs")  # type: ignore[valid-type]
    agent_folder_1: declare("agent_folder_1")  # type: ignore[valid-type]
    agent_folder_2: declare("agent_folder_2")  # type: ignore[valid-type]
    agent_folder_3: declare("agent_folder_3")  # type: ignore[valid-type]

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
        sections = (
            ("service", words.PREFS_SERVICE, self._draw_service),
            ("jobs", words.PREFS_JOBS, self._draw_jobs),
            ("credits", words.PREFS_CREDITS, self._draw_credits),
            ("import", words.PREFS_IMPORT, self._draw_import),
            ("agents", words.AGENTS_HEADING, self._draw_agents),
        )
        for name, heading, draw_section in sections:
            body = section(layout, name, language.text(heading), closed=name in CLOSED_SECTIONS)
            if body is not None:
                draw_section(body, context)

    def _draw_jobs(self, col: bpy.types.UILayout, context: bpy.types.Context) -> None:
        """How Kiln follows jobs, where it keeps their downloads, and how much it writes down."""
        col.prop(self, "poll_interval")
        col.prop(self, "max_in_flight")
        col.prop(self, "timeout_minutes")
        self._draw_cache(col.column())
        col.prop(self, "log_level")

    def _draw_credits(self, col: bpy.types.UILayout, context: bpy.types.Context) -> None:
        """The text job's price (only where the chosen service does not publish it: the custom
        service's), when to ask before spending, and what 0 means, said in words."""
        from .api.features.credits import takes_text_cost  # loaded by the first draw, not at registration

        if takes_text_cost(service_id(self.service)):
            col.prop(self, "text_cost")
        col.prop(self, "ask_above")
        limit = self.ask_above
        said = language.text(words.ASK_ABOVE_ON, n=limit) if limit else language.text(words.ASK_ABOVE_OFF)
        wrapped_label(col, context, said, icon="INFO")
        col.prop(self, "ask_unknown_price")

    def _draw_import(self, layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
        """Where a result lands and how it is opened, shaped and fixed, kept and credited."""
        col = layout.column()
        col.prop(self, "auto_import")
        col.prop(self, "placement")
        col.prop(self, "collection_name")
        col.prop(self, "import_in_place")
        threshold = col.row()
        threshold.active = self.import_in_place
        threshold.prop(self, "large_import_triangles")
        col = layout.column(heading=language.text(words.PREFS_SHAPE))
        col.prop(self, "origin_at_base")
        col.prop(self, "apply_scale")
        row = col.row(heading="")
        row.prop(self, "smooth_by_angle")
        angle = row.row()
        angle.active = self.smooth_by_angle
        angle.prop(self, "smooth_angle", text="")
        col.prop(self, "target_height")
        col = layout.column(heading=language.text(words.PREFS_FIXUPS))
        for name in ("fix_merge", "fix_normals", "fix_loose", "triangles"):
            col.prop(self, name)
        layout.column(heading=language.text(words.PREFS_LIBRARY)).prop(self, "library_dir")
        layout.column(heading=language.text(words.PREFS_PROVENANCE)).prop(self, "credit_line")

    def credentials(self, service: str = "") -> service_access.Credentials:
        """A service's key and address (the chosen service's by default): the environment's over
        these preferences', a known service's own API origin where neither gives one."""
        sid = service_id(service or self.service)
        address = address_of(self, sid) if info(sid).needs_address else ""
        return service_access.credentials(key_home(sid).read(), address, service=sid)

    def _draw_service(self, col: bpy.types.UILayout, context: bpy.types.Context) -> None:
        """Which service first, then its key (and its address where Kiln does not know it), with what
        to do while either is missing."""
        from .api.http.origin import host_label  # loaded by the first draw, not at registration

        col.prop(self, "service")
        if not is_registered(self.service):  # none chosen yet: no key or address of a service not chosen
            return
        chosen = self.credentials()
        service = info(chosen.service)
        if service.local:  # a studio's own server: no key asked, where its jobs run said
            host = host_label(chosen.base_url)
            wrapped_label(col, context, language.text(words.LOCAL_RUNS_ON_SERVER, host=host), icon="DESKTOP")
        elif not ((chosen.api_key or not service.needs_key) and chosen.base_url):
            if not service.needs_key:  # a server of the studio's own: its address alone
                guide = language.text(words.PREFS_CONNECT_GUIDE_ADDRESS, service=service.name)
            elif service.needs_address:
                guide = language.text(words.PREFS_CONNECT_GUIDE)
            else:  # Kiln knows the address: the key alone, from the page Get a … API Key opens
                guide = language.text(words.PREFS_CONNECT_GUIDE_KEY, service=service.name)
            wrapped_label(col, context, guide, icon="INFO")
        if service.needs_key:
            self._draw_key(col, context, chosen)
        if service.needs_address:
            address = col.row()
            address.alert = not chosen.base_url
            address.prop(self, "service_address")
        if chosen.url_from_environment and service.needs_address:  # a known service's is never shown
            said = language.text(words.PREFS_ADDRESS_FROM_ENVIRONMENT, name=chosen.url_env)
            wrapped_label(col, context, said, icon="INFO")
        col.operator("kiln.test_connection", icon="URL")
        state = connection_check.state
        if state is CheckState.IDLE:
            return
        answer = col.column()
        answer.alert = state is CheckState.FAILED
        icons: dict[CheckState, IconItems] = {CheckState.RUNNING: "SORTTIME", CheckState.OK: "CHECKMARK"}
        icon = icons.get(state, "ERROR")
        wrapped_label(answer, context, language.said(connection_check.message), icon=icon)

    def _draw_key(
        self, col: bpy.types.UILayout, context: bpy.types.Context, chosen: service_access.Credentials
    ) -> None:
        """Where the chosen service's keys are made, its key, where the key is kept or came from."""
        from .ui_text import key_hint  # loaded by the first draw, not at registration

        service = info(chosen.service)
        if service.keys_page:
            link = col.operator(
                "wm.url_open", text=language.text(words.GET_SERVICE_KEY, service=service.name)
            )
            link.url = service.keys_page
        key = col.row()
        key.alert = not chosen.api_key
        key.prop(self, "api_key")
        home = key_home(chosen.service)
        if home.status:
            status = col.column()
            status.alert = not home.saved
            wrapped_label(
                status, context, language.said(home.status), icon="LOCKED" if home.saved else "ERROR"
            )
        if chosen.key_from_environment:
            said = language.text(words.PREFS_KEY_FROM_ENVIRONMENT, name=chosen.key_env)
            wrapped_label(col, context, said, icon="INFO")
        hint = key_hint(chosen.api_key) if service.needs_address else None
        if hint:
            wrapped_label(col, context, language.text(hint), icon="INFO")

    def _draw_agents(self, layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
        """Allow Agents, where agents reach Kiln (or why not), the budget, the folders, the buttons."""
        # Loaded by the first draw, not at registration.
        from .api.agents import status as agent_status
        from .api.agents.environment import PORT_VARIABLE, TOKEN_VARIABLE

        shown = agent_status.current
        col = layout.column()
        col.prop(self, "allow_agents")
        if shown.from_environment:
            said = language.text(words.AGENTS_FROM_ENVIRONMENT, port=PORT_VARIABLE, token=TOKEN_VARIABLE)
            wrapped_label(col, context, said, icon="INFO")
        if shown.running:
            wrapped_label(col, context, language.text(words.AGENTS_LISTENING, url=shown.url), icon="LINKED")
        elif shown.problem is not None:
            problem = col.column()
            problem.alert = True
            wrapped_label(problem, context, language.said(shown.problem), icon="ERROR")
        settings = col.column()
        settings.active = self.allow_agents or shown.from_environment
        for name in ("agent_port", "agent_credits", "agent_jobs"):
            settings.prop(self, name)
        folders = settings.column(heading=language.text(words.AGENTS_FOLDERS_HEADING), align=True)
        for name in AGENT_FOLDERS:
            folders.prop(self, name, text="")
            chosen = getattr(self, name).strip()
            if chosen and not agent_folder(chosen).is_dir():
                said = language.text(words.AGENTS_FOLDER_MISSING, folder=chosen)
                wrapped_label(folders, context, said, icon="ERROR")
        row = settings.row(align=True)
        copy = language.text(words.OP_COPY_AGENT_CONFIG.name)
        row.operator_menu_enum("kiln.copy_agent_config", "client", text=copy, icon="COPYDOWN")
        row.operator("kiln.new_agent_token", icon="FILE_REFRESH")

    def _draw_cache(self, col: bpy.types.UILayout) -> None:
        from .ui_text import human_size  # loaded by the first draw, not at registration

        size = human_size(cache_size.size(cache_dir()))
        col.label(text=language.text(words.PREFS_CACHE_SIZE, size=size), icon="FILE_FOLDER")
        row = col.row(align=True)
        row.operator("kiln.open_cache_folder", icon="FILE_FOLDER")
        row.operator("kiln.clear_cache", icon="TRASH")


#: The sections a new artist does not need first start closed (Blender remembers each one's state).
CLOSED_SECTIONS = frozenset({"jobs", "import", "agents"})


def section(
    layout: bpy.types.UILayout, name: str, heading: str, *, closed: bool
) -> bpy.types.UILayout | None:
    """A collapsible section of the preferences (``layout.panel``, Blender 4.2 and newer): its body,
    or None while it is closed."""
    # fake-bpy-module-4.2's stubs say panel() returns None; Blender returns (header, body or None).
    opened: tuple[bpy.types.UILayout, bpy.types.UILayout | None]
    opened = layout.panel(f"kiln_prefs_{name}", default_closed=closed)  # type: ignore[func-returns-value,assignment]
    opened[0].label(text=heading)
    return opened[1]


def get(context: bpy.types.Context | None = None) -> KilnPreferences:
    """Kiln's preferences from any context (scripts included)."""
    ctx = context or bpy.context
    prefs = ctx.preferences.addons[__package__].preferences
    assert isinstance(prefs, KilnPreferences)
    return prefs


def text_cost(context: bpy.types.Context | None = None) -> int | None:
    """The artist's figure for a text-to-3D job, None while not set."""
    return get(context).text_cost or None


def credentials(context: bpy.types.Context | None = None, service: str = "") -> service_access.Credentials:
    """A service's key and address (the chosen service's by default): the environment's over the
    preferences'."""
    return get(context).credentials(service)


def chosen_service(context: bpy.types.Context | None = None) -> str:
    """The service the artist chose in the preferences (where jobs go unless told otherwise); while
    none is chosen, a pipeline's (``service_access.service_for_jobs``), else "": Kiln asks which."""
    return service_access.service_for_jobs(get(context).service)


def agent_folder(chosen: str) -> Path:
    """An allowed folder as the artist chose it, made absolute (a path relative to the .blend, ``//…``,
    as Blender's folder picker may write it, is read against the open file)."""
    return Path(bpy.path.abspath(chosen.strip()))


def agent_folders(context: bpy.types.Context | None = None) -> tuple[Path, ...]:
    """The folders agents may name images in (none by default); a relative one that cannot be made
    absolute (no file is open) is left out."""
    prefs = get(context)
    chosen = (getattr(prefs, name).strip() for name in AGENT_FOLDERS)
    return tuple(folder for folder in map(agent_folder, filter(None, chosen)) if folder.is_absolute())


def service_config(context: bpy.types.Context | None = None) -> ServiceConfig:
    """A plain snapshot of what workers need, taken on the main thread (workers never read bpy).

    Asked at every watcher beat and every submit: what it is made from is read here (a quarter of
    making it), and ``service_access.snapshot`` makes it again only when any of that changed."""
    prefs = get(context)
    services = service_ids()
    kept = tuple(
        (info(sid), key_home(sid).read(), address_of(prefs, sid) if info(sid).needs_address else "")
        for sid in services
    )
    return service_access.snapshot(
        service_id(prefs.service),
        kept,
        service_access.variables(services),
        (prefs.poll_interval, prefs.max_in_flight, prefs.timeout_minutes * 60.0),
        (prefs.import_in_place, prefs.large_import_triangles, _helper_command()),
        bpy.app.online_access,
    )


def _helper_command() -> tuple[str, ...]:
    """How to start the helper Blender; its room is loaded by the first job, not by registering."""
    from .api import isolation

    return isolation.helper_command(bpy.app.binary_path)


classes = (KilnServiceAddress, KilnPreferences)
_register_classes, _unregister_classes = classes_factory(classes)


def keep_an_earlier_setup(prefs: KilnPreferences) -> None:
    """A fresh Kiln chooses no service, but a setup made before services were chosen keeps its one:
    with no service stored, the one Service Address an earlier Kiln kept (``base_url``) or a
    pipeline's variables (``service_access.service_for_jobs``) make the old records' service chosen,
    so the Sidebar's menu names where jobs go (a service stored is kept as it is)."""
    if prefs.is_property_set("service"):
        return
    # Nothing stored means "none chosen". Reading prefs.service would ask the menu's items, whose
    # translated names would read the languages' files while Blender waits for register.
    pipelines = service_access.service_for_jobs(NOT_CHOSEN)
    earlier = old_records_service() if prefs.base_url.strip() else pipelines
    if earlier:
        prefs.service = earlier


def register() -> None:
    for home in key_homes.values():
        home.forget()
    _register_classes()
    keep_an_earlier_setup(get())
    logging.getLogger(__package__).setLevel(get().log_level)


def unregister() -> None:
    finish_key_saves()
    for home in key_homes.values():
        home.forget()
    _unregister_classes()
