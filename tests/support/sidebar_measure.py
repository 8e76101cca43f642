"""Does every text Kiln draws fit the Sidebar? Measured with Blender's own text metrics.

Kiln's panels are drawn with their real ``draw()`` into a stand-in layout that keeps the shape
of the layout (rows, columns, boxes, splits, the job list's rows), so each label, progress bar
and property label gets the width Blender would give it: the region's width less the panel's
margins (``drawing``'s geometry constants, taken from Blender's source), then divided the way
Blender divides rows and splits. Each text is measured with ``blf`` in the UI font at the UI
scale; one wider than its room is an overflow (Blender would cut it with "…").

Used twice: by ``test_ui_sidebar_width.py`` in the bpy module (a chosen width and scale), and by
``blender_scripts/measure_sidebar.py`` inside the Blender program with a window (the Kiln tab's
real Sidebar region). ``set_up`` puts Kiln into each state it measures without any network:
finished and failed jobs are written to the job store as another Kiln would, a waiting job is
sent to a closed port on this machine, and the library's copy is an index entry.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from recording_layout import Call, Recorder

PANELS = ("KILN_PT_generate", "KILN_PT_generate_advanced", "KILN_PT_blockout", "KILN_PT_jobs")
#: Each state Kiln is measured in, in order (each builds on the one before).
STATES = (
    "no service",
    "no key",
    "offline",
    "ready",
    "job waiting",
    "job failed",
    "job imported",
    "reuse offer",
)
PROMPT = "a weathered oak armchair with carved lion-paw legs and a faded red velvet seat cushion"
LONG_ERROR = (
    "The service could not make a mesh from this prompt: the content filter refused it "
    "(code content_policy_violation). Change the prompt and press Retry; nothing was charged."
)
JOB_NAMES = (
    "a weathered oak armchair with carved legs, variant with armrests",
    "a weathered oak armchair with carved legs, variant without armrests",
)
FAKE_KEY = "kiln_live_" + "m" * 24


def addon_module() -> str:
    """The enabled Kiln's module: ``bl_ext.kiln_dev.kiln`` in the tests, ``bl_ext.<repo>.kiln`` installed."""
    import bpy

    addons = bpy.context.preferences.addons
    names = [addon.module for addon in addons if addon.module.rpartition(".")[2] == "kiln"]
    if not names:
        raise RuntimeError("Kiln is not enabled")
    return names[0]


def kiln(name: str) -> Any:
    """A module of the enabled add-on."""
    import importlib

    return importlib.import_module(f"{addon_module()}.{name}")


# ------------------------------------------------------------------ the measuring stand-in


class Node(Recorder):
    """A layout that remembers its shape: what kind it is and, in order, what was put in it."""

    def __init__(self, parent: Node | None, calls: list[Call], kind: str, factor: float = 0.5) -> None:
        super().__init__(parent, calls)
        self.kind, self.factor = kind, factor
        self.items: list[Node | Call] = []
        self.context: Any = parent.context if parent is not None else None

    def _add(self, kind: str, factor: float = 0.5) -> Node:
        child = Node(self, self.calls, kind, factor)
        self.items.append(child)
        return child

    def row(self, *_args: Any, **_kwargs: Any) -> Node:
        return self._add("row")

    def column(self, *_args: Any, **_kwargs: Any) -> Node:
        return self._add("column")

    def box(self, *_args: Any, **_kwargs: Any) -> Node:
        return self._add("box")

    def split(self, *_args: Any, factor: float = 0.5, **_kwargs: Any) -> Node:
        return self._add("split", factor)

    grid_flow = column_flow = column

    def _record(self, kind: str, *args: Any, **kwargs: Any) -> Call:
        call = super()._record(kind, *args, **kwargs)
        call.layout = self
        self.items.append(call)
        return call

    def operator_menu_enum(self, idname: str, prop: str, **kwargs: Any) -> None:
        self._record("operator", idname, **kwargs)

    def template_list(
        self, list_type: str, _list_id: str, data: Any, prop: str, *_args: Any, **kwargs: Any
    ) -> None:
        """Draws the list's rows for real with the UIList's own ``draw_item`` (as many as it shows)."""
        import bpy

        self._record("template_list", list_type, data, prop)
        ui_list = getattr(bpy.types, list_type)
        stand_in = SimpleNamespace(layout_type="DEFAULT", filter_name="", bitflag_filter_item=1 << 30)
        rows = self._add("list")
        for index, item in enumerate(list(getattr(data, prop))[: kwargs.get("rows", 5)]):
            ui_list.draw_item(stand_in, self.context, rows._add("row"), data, item, 0, data, "", index, 0)


def draw_panel(panel: type, context: Any) -> Node:
    """Run a panel's real ``draw()`` into a measuring stand-in."""
    root = Node(None, [], "column")
    root.context = context
    panel.draw(SimpleNamespace(layout=root), context)
    return root


def _fixed_units(item: Node | Call) -> float | None:
    """Items Blender gives a fixed width in a row: an icon without text (one unit)."""
    if not isinstance(item, Call) or not _has_icon(item):
        return None
    # An operator given no text shows its own name; one given text="" only its icon.
    icon_only = item.kwargs.get("text") == "" if item.kind == "operator" else not item.text
    return 1.0 if item.kind in ("label", "operator") and icon_only else None


def _has_icon(call: Call) -> bool:
    return call.kwargs.get("icon", "NONE") != "NONE" or bool(call.kwargs.get("icon_value"))


def _widths(node: Node, width: float, unit: float, drawing: Any, out: dict[int, float]) -> None:
    """The width of every call below ``node`` (by ``id``), given the node's own width."""
    inner = width - drawing.BOX_INSET_UNITS * unit if node.kind == "box" else width
    if node.kind == "list":
        inner = width - drawing.LIST_INSET_UNITS * unit
    shares: list[float]
    count = len(node.items)
    if node.kind == "row" and count:
        fixed = [_fixed_units(item) for item in node.items]
        flexible = sum(f is None for f in fixed)
        left = inner - sum(f * unit for f in fixed if f is not None)
        shares = [f * unit if f is not None else left / max(flexible, 1) for f in fixed]
    elif node.kind == "split" and count:
        rest = inner * (1 - node.factor) / max(count - 1, 1)
        shares = [inner * node.factor] + [rest] * (count - 1)
    else:
        shares = [inner] * count
    for item, share in zip(node.items, shares, strict=True):
        if isinstance(item, Node):
            _widths(item, share, unit, drawing, out)
        else:
            out[id(item)] = share


@dataclass(frozen=True)
class Measured:
    panel: str
    kind: str  # label, progress, prop label, button
    text: str
    width: float  # the text's width in pixels
    room: float  # the pixels Blender gives it

    @property
    def overflows(self) -> bool:
        return self.width > self.room + 0.5


def measure(panel: type, context: Any) -> list[Measured]:
    """Every text the panel draws, with its width and its room, for the context's region and scale."""
    drawing = kiln("drawing")
    root = draw_panel(panel, context)
    unit, font_px = drawing.unit(context), drawing.font_pixels(context)
    width = drawing.layout_width(context)
    assert width is not None, "measuring needs a region"
    widths: dict[int, float] = {}
    _widths(root, width, unit, drawing, widths)
    margin, icon = drawing.TEXT_MARGIN_UNITS * unit, drawing.ICON_UNITS * unit
    found = []
    for call in root.calls:
        text, room, kind = call.text, widths.get(id(call)), call.kind
        if kind == "operator" and "text" not in call.kwargs:
            text = operator_name(call.args[0])
        if room is None:
            continue
        if kind == "label" and text:
            room -= margin + (icon if _has_icon(call) else 0.0)
        elif kind == "progress" and text:
            room -= margin
        elif kind == "prop":
            labelled = _prop_label(call)
            if labelled is None:
                continue
            text, share = labelled
            kind, room = "prop label", room * share - margin
        elif kind == "operator" and text:
            kind, room = "button", room - margin - (icon if _has_icon(call) else 0.0)
        else:
            continue
        found.append(Measured(panel.__name__, kind, text, drawing.text_width(text, font_px), room))
    return found


def operator_name(idname: str) -> str:
    """An operator's name as Blender draws it on a button given no text: in the artist's language,
    looked up in the operator's translation context."""
    import bpy

    group, _, name = idname.partition(".")
    rna = getattr(getattr(bpy.ops, group), name).get_rna_type()
    return str(bpy.app.translations.pgettext_iface(rna.name, rna.translation_context or None))


#: Share of the width Blender gives a property's own label beside its field (``ui_item_with_label``),
#: as seen on a screenshot of Blender 5.2 ("Resoluti…" beside a menu): about a quarter.
BLENDER_PROP_LABEL_SHARE = 0.24


def _prop_label(call: Call) -> tuple[str, float] | None:
    """The label Blender draws beside a property's field, and the share of the row it gets."""
    data, prop = call.args[0], call.args[1]
    rna = data.bl_rna.properties.get(prop)
    import bpy

    # Blender draws a property's name in the artist's language, looked up in its translation context.
    name = bpy.app.translations.pgettext_iface(rna.name, rna.translation_context or None) if rna else prop
    text = str(call.kwargs.get("text", name))
    if rna is None or not text or call.kwargs.get("expand"):
        return None
    if call.layout.effective("use_property_split", any) or rna.type in ("ENUM", "STRING", "POINTER"):
        return text, BLENDER_PROP_LABEL_SHARE
    return None  # numbers and checkboxes carry their name inside the field


def measure_all(context: Any) -> list[Measured]:
    import bpy

    return [m for name in PANELS for m in measure(getattr(bpy.types, name), context)]


# ------------------------------------------------------------------ a context of a chosen width


class SizedContext:
    """``bpy.context`` as a Sidebar region of ``width`` pixels would see it (for the bpy module)."""

    def __init__(self, width: float) -> None:
        self.region = SimpleNamespace(width=width, type="UI")

    def __getattr__(self, name: str) -> Any:
        import bpy

        return getattr(bpy.context, name)


@contextmanager
def ui_scale(scale: float) -> Iterator[None]:
    """The UI scale preference (background mode has no system scale, so this one is used)."""
    import bpy

    view = bpy.context.preferences.view
    before = view.ui_scale
    view.ui_scale = scale
    try:
        yield
    finally:
        view.ui_scale = before


# ------------------------------------------------------------------ the states, without a network


def closed_port_url() -> str:
    """An address on this machine where nothing listens: every send is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _service_unset(prefs: Any) -> Callable[[], None]:
    """The preferences' service as a fresh Kiln has it (never set); returns what puts it back."""
    was = prefs.service if prefs.is_property_set("service") else None
    prefs.property_unset("service")

    def put_back() -> None:
        if was is None:
            prefs.property_unset("service")
        else:
            prefs.service = was

    return put_back


def set_up(state: str, bpy: Any) -> Callable[[], None]:
    """Put Kiln into ``state``; returns what undoes the parts that outlive the state."""
    settings = bpy.context.scene.kiln
    settings.mode, settings.prompt = "TEXT", PROMPT
    runtime, preferences = kiln("session.runtime"), kiln("preferences")
    os.environ["KILN_BASE_URL"] = "https://kiln.example.invalid"
    if state == "no service":  # a fresh Kiln: the services listed, none chosen, no pipeline's variables
        for name in ("KILN_BASE_URL", "KILN_API_KEY"):
            os.environ.pop(name, None)
        return _service_unset(preferences.get())
    if state == "no key":
        preferences.get().service = "INTERFACE"  # the custom service, as KILN_BASE_URL at start chooses it
        os.environ.pop("KILN_API_KEY", None)
        preferences.get().api_key = ""
        preferences.finish_key_saves()
        bpy.context.preferences.system.use_online_access = True
    elif state == "offline":
        os.environ["KILN_API_KEY"] = FAKE_KEY
        bpy.context.preferences.system.use_online_access = False
    elif state == "ready":
        os.environ["KILN_API_KEY"] = FAKE_KEY
        bpy.context.preferences.system.use_online_access = True
    elif state == "job waiting":
        _jobs(bpy, runtime, preferences)
    elif state in ("job failed", "job imported"):
        _select_job(bpy, "measurefail1" if state == "job failed" else "measuredone1")
    elif state == "reuse offer":
        return _library_copy(bpy)
    return lambda: None


def _jobs(bpy: Any, runtime: Any, preferences: Any) -> None:
    """A failed and an imported job from an earlier session, and one of this session waiting to resend."""
    jobs, store_module, words = kiln("api.jobs"), kiln("api.jobs.store"), kiln("api.words")
    runtime.shutdown()
    now = time.time()
    mesh = Path(tempfile.mkdtemp(prefix="kiln-measure-mesh-")) / "armchair.glb"
    mesh.write_bytes(b"glTF")
    earlier = [
        jobs.Job(
            id="measurefail1",
            request=jobs.JobRequest(kind="text", prompt=JOB_NAMES[0]),
            state=jobs.JobState.FAILED,
            task_id="task_" + "0123456789abcdef" * 2,
            error=LONG_ERROR,
            # What this Kiln keeps beside the English: the sentence to say in the artist's language.
            error_message=words.message(kiln("api.words.catalogue").TASK_FAILED, details=LONG_ERROR),
            created_at=now - 60,
            finished_at=now - 50,
        ),
        jobs.Job(
            id="measuredone1",
            request=jobs.JobRequest(kind="text", prompt=JOB_NAMES[1]),
            state=jobs.JobState.IMPORTED,
            task_id="task_" + "fedcba9876543210" * 2,
            triangles=123_456,
            objects=["Armchair"],
            mesh_path=str(mesh),  # its mesh still in the cache: Import Again and Export are offered
            created_at=now - 40,
            finished_at=now - 30,
        ),
    ]
    store = store_module.JobStore(preferences.user_dir())
    store.open()
    try:
        store.insert_records(job.to_json() for job in earlier)
    finally:
        store.close()
    os.environ["KILN_BASE_URL"] = closed_port_url()
    os.environ["KILN_API_KEY"] = FAKE_KEY
    bpy.context.preferences.system.use_online_access = True
    engine = runtime.engine(bpy.context)
    waiting = engine.submit(jobs.JobRequest(kind="text", prompt=PROMPT), origin=runtime.current_origin())
    earlier_ids = {job.id for job in earlier}
    _wait(
        lambda: earlier_ids <= {job.id for job in engine.jobs()}, "the earlier jobs to be read from the store"
    )
    _wait(lambda: "again in" in engine.get(waiting.id).note, "the waiting job's retry sentence")
    wm = bpy.context.window_manager
    kiln("session.job_rows").sync_now(wm)
    wm.kiln_job_index = 0  # the waiting job, newest first: its details show the sentence


def _select_job(bpy: Any, job_id: str) -> None:
    """Make a job the list's active row, so the details below the list show it."""
    wm = bpy.context.window_manager
    wm.kiln_job_index = [row.job_id for row in wm.kiln_jobs].index(job_id)


def _library_copy(bpy: Any) -> Callable[[], None]:
    """The panel's prompt is in the Kiln library (an index entry and its file), in a folder of its own."""
    library_index, api_jobs = kiln("api.features.library_index"), kiln("api.jobs")
    prefs = kiln("preferences").get()
    before = prefs.library_dir
    folder = Path(tempfile.mkdtemp(prefix="kiln-measure-library-"))
    prefs.library_dir = str(folder)
    request = api_jobs.JobRequest(kind="text", prompt=PROMPT)
    entry = library_index.Entry(
        key=library_index.request_key(request),
        blend="armchair.blend",
        label=PROMPT,
        task_id="task_measure",
        created=time.time(),
    )
    (folder / entry.blend).write_bytes(b"")
    library_index.LibraryIndex(folder).add(entry)

    def undo() -> None:
        prefs.library_dir = before

    return undo


def _wait(predicate: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def states_undone(bpy: Any) -> Iterator[list[Callable[[], None]]]:
    """A list for each state's undo step (``set_up`` returns it); on leaving, every step is undone and
    the key, the service address and online access are as they were."""
    environment = {name: os.environ.get(name) for name in ("KILN_API_KEY", "KILN_BASE_URL")}
    online = bpy.context.preferences.system.use_online_access
    undo: list[Callable[[], None]] = []
    try:
        yield undo
    finally:
        for step in reversed(undo):
            step()
        for name, value in environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        bpy.context.preferences.system.use_online_access = online


def report(context: Any, bpy: Any) -> dict[str, Any]:
    """Measure every panel in every state; the JSON report of measure_sidebar.py."""
    region = context.region
    overflows, clipped_buttons, counted = [], [], 0
    with states_undone(bpy) as undo:
        for state in STATES:
            undo.append(set_up(state, bpy))
            for item in measure_all(context):
                counted += 1
                if not item.overflows:
                    continue
                entry = {
                    "state": state,
                    **item.__dict__,
                    "width": round(item.width),
                    "room": round(item.room),
                }
                (clipped_buttons if item.kind == "button" else overflows).append(entry)
    drawing = kiln("drawing")
    return {
        "blender": bpy.app.version_string,
        "region_width": region.width,
        "ui_scale": drawing.ui_scale(context),
        "font_px": drawing.font_pixels(context),
        "states": list(STATES),
        "texts_measured": counted,
        "overflows": overflows,
        # Buttons are reported, not failed on: Blender shortens a button's text itself.
        "clipped_buttons": clipped_buttons,
    }
