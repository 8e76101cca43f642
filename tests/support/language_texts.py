"""What Kiln says in each of Blender's languages, read inside Debian's Blender program (which has
Blender's translations; the bpy module from PyPI has none).

For each state ``sidebar_measure.set_up`` makes (and two more: the image inputs, a marked
placeholder), and for each language, this draws Kiln's Sidebar panels and its preferences with their
real ``draw()`` into the measuring stand-in and keeps every text the artist would read there: labels,
headings, progress bars, button texts (an operator's own name as Blender translates it, in its
translation context), property names and the choices of menus and expanded enums. It measures each
against the real Sidebar region (``sidebar_measure``'s overflow check), says the sentences Kiln's
operators report (refusals and status-bar sentences: every one goes through
``session.messenger.sentence``, which is watched here) and reads the tooltips of Kiln's operators,
panels and properties as Blender shows them (``pgettext_tip`` of their descriptions).

Test tooling, run by the window suite through its agent (``tests/window/test_languages.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import bpy
from recording_layout import Call
from sidebar_measure import (
    PANELS,
    STATES,
    Node,
    addon_module,
    kiln,
    measure_all,
    operator_name,
    set_up,
    states_undone,
)

#: Blender's locale codes of the languages Kiln is translated into.
LANGUAGES = ("ja_JP", "zh_HANS", "ko_KR", "es", "fr_FR", "de_DE", "pt_BR")
ENGLISH = "en_US"
#: The states measured here besides ``sidebar_measure.STATES`` (each builds on the ones before).
MORE_STATES = ("image inputs", "placeholder marked")
PLACEHOLDER_PROMPT = "a wooden crate with rope handles"

Text = dict[str, str]


def set_language(locale: str, *, interface: bool = True, tooltips: bool = True, reports: bool = True) -> None:
    """Blender's language and its Translate switches (Preferences ▸ Interface ▸ Translation)."""
    view = bpy.context.preferences.view
    view.language = locale
    view.use_translate_interface = interface
    view.use_translate_tooltips = tooltips
    view.use_translate_reports = reports


# ------------------------------------------------------------------ what a panel draws


class Drawn(Node):
    """The measuring stand-in, also keeping a column's or row's heading (a text Blender draws)."""

    def _add(self, kind: str, factor: float = 0.5) -> Drawn:
        child = Drawn(self, self.calls, kind, factor)
        self.items.append(child)
        return child

    def _headed(self, kind: str, heading: str) -> Drawn:
        child = self._add(kind)
        if heading:
            child._record("heading", text=heading)
        return child

    def row(self, *_args: Any, heading: str = "", **_kwargs: Any) -> Drawn:
        return self._headed("row", heading)

    def column(self, *_args: Any, heading: str = "", **_kwargs: Any) -> Drawn:
        return self._headed("column", heading)

    grid_flow = column_flow = column


def iface(text: str, context: str | None) -> str:
    """``text`` as Blender draws a name in ``context`` (an empty context is Blender's default)."""
    return str(bpy.app.translations.pgettext_iface(text, context or None))


def _enum_name(data: Any, prop: str, identifier: str) -> str:
    return str(bpy.types.UILayout.enum_item_name(data, prop, identifier))


def call_texts(call: Call) -> Iterator[tuple[str, str]]:
    """(kind, text) of each text Blender draws for one recorded layout call."""
    kind, kwargs = call.kind, call.kwargs
    if kind in ("label", "progress", "heading") and call.text:
        yield kind, call.text
    elif kind == "operator":
        if "text" in kwargs:
            if kwargs["text"]:
                yield "button", str(kwargs["text"])
        else:
            yield "button", operator_name(call.args[0])
    elif kind == "prop":
        yield from _prop_texts(call)


def _prop_texts(call: Call) -> Iterator[tuple[str, str]]:
    data, prop, kwargs = call.args[0], call.args[1], call.kwargs
    data = getattr(data, "drawn_for", data)  # the preferences, drawn into the stand-in
    rna = data.bl_rna.properties.get(prop)
    if rna is None:
        return
    if rna.type == "ENUM" and kwargs.get("expand"):
        for item in rna.enum_items:
            yield "choice", _enum_name(data, prop, item.identifier)
        return
    if "text" in kwargs:
        if kwargs["text"]:
            yield "property", str(kwargs["text"])
    elif rna.type != "POINTER":
        yield "property", iface(rna.name, rna.translation_context)
    if rna.type == "ENUM" and getattr(data, prop):
        yield "choice", _enum_name(data, prop, getattr(data, prop))
    if rna.type == "STRING" and not getattr(data, prop) and kwargs.get("placeholder"):
        yield "placeholder", str(kwargs["placeholder"])


def panel_texts(panel: type, context: Any) -> list[Text]:
    """Every text of one panel drawn now: its header, then what its ``draw()`` puts in it."""
    root = Drawn(None, [], "column")
    root.context = context
    panel.draw(_WithLayout(root), context)  # type: ignore[attr-defined]
    texts = [{"kind": "header", "text": iface(panel.bl_label, panel.bl_translation_context)}]  # type: ignore[attr-defined]
    texts += [{"kind": kind, "text": text} for call in root.calls for kind, text in call_texts(call)]
    return [{"where": panel.__name__, **text} for text in texts]


class _WithLayout:
    def __init__(self, layout: Drawn) -> None:
        self.layout = layout


class _Preferences:
    """``bpy.context`` as the preferences draw it: no Sidebar region (their sentences wrap at a
    fixed number of characters, as measured elsewhere)."""

    region = None

    def __getattr__(self, name: str) -> Any:
        return getattr(bpy.context, name)


def preferences_texts() -> list[Text]:
    """Every text Kiln's preferences draw now (Preferences ▸ Add-ons ▸ Kiln)."""
    prefs = kiln("preferences")
    real = prefs.get()
    root = Drawn(None, [], "column")

    class Drawing:
        layout = root
        drawn_for = real

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    prefs.KilnPreferences.draw(Drawing(), _Preferences())
    return [
        {"where": "preferences", "kind": kind, "text": text}
        for call in root.calls
        for kind, text in call_texts(call)
    ]


# ------------------------------------------------------------------ what Kiln reports


@contextlib.contextmanager
def said_sentences() -> Iterator[list[str]]:
    """Every sentence Kiln reports (refusals, status-bar sentences) while the block runs."""
    messenger = kiln("session.messenger")
    original = messenger.sentence
    heard: list[str] = []

    def sentence(*args: Any, **kwargs: Any) -> str:
        said = original(*args, **kwargs)
        heard.append(said)
        return str(said)

    messenger.sentence = sentence
    try:
        yield heard
    finally:
        messenger.sentence = original


def _in_sidebar() -> Any:
    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "UI")
    return bpy.context.temp_override(window=window, screen=window.screen, area=area, region=region)


#: Operator calls that refuse, by the state they are made in, each with a name for the report.
REFUSALS: dict[str, tuple[tuple[str, str], ...]] = {
    "no key": (("generate without a key", "bpy.ops.kiln.generate_from_text(prompt=PROMPT)"),),
    "offline": (("generate offline", "bpy.ops.kiln.generate_from_text(prompt=PROMPT)"),),
    "ready": (
        ("empty prompt", "bpy.ops.kiln.generate_from_text(prompt='')"),
        ("no image file", "bpy.ops.kiln.generate_from_image(filepath='')"),
        ("missing image file", "bpy.ops.kiln.generate_from_image(filepath='/nowhere/concept.png')"),
        ("batch without a file", "bpy.ops.kiln.generate_batch()"),
        ("mark without a prompt", "bpy.ops.kiln.mark_placeholder(prompt='')"),
        ("blockout without placeholders", "bpy.ops.kiln.generate_from_selection()"),
        ("cancel an unknown job", "bpy.ops.kiln.cancel_job(job_id='nosuchjob')"),
        ("export an unknown job", "bpy.ops.kiln.export_job(job_id='nosuchjob')"),
        ("variant of no placeholder", "bpy.ops.kiln.variant_keep()"),
    ),
    "placeholder marked": (
        ("mark a placeholder", "bpy.ops.kiln.mark_placeholder(prompt=PLACEHOLDER)"),
        ("keep the only variant", "bpy.ops.kiln.variant_keep()"),
    ),
}


def reports(state: str) -> list[Text]:
    """What Kiln's operators say in ``state``: each reported sentence, and a refused poll's reason
    (the tooltip of a greyed-out button)."""
    from sidebar_measure import PROMPT

    found: list[Text] = []
    names = {"bpy": bpy, "PROMPT": PROMPT, "PLACEHOLDER": PLACEHOLDER_PROMPT}
    for name, code in REFUSALS.get(state, ()):
        with said_sentences() as heard, _in_sidebar():
            try:
                eval(code, names)
                problem = ""
            except RuntimeError as exc:
                problem = str(exc)
        found += [{"where": name, "kind": "report", "text": sentence} for sentence in heard]
        if ".poll()" in problem:  # no report: the reason a greyed-out button gives
            reason = problem.partition(".poll()")[2].strip()
            if reason and "context is incorrect" not in reason:
                found.append({"where": name, "kind": "poll", "text": reason})
    return found


# ------------------------------------------------------------------ tooltips


def _kiln_structs() -> Iterator[tuple[str, Any, Any]]:
    """Every RNA struct Kiln registers whose texts an artist can read (operators, panels, its
    property groups and preferences), each with the Blender type it derives from (whose own
    properties, ``bl_idname`` or a group's ``name``, are Blender's words, not Kiln's)."""
    for name in dir(bpy.ops.kiln):
        yield f"kiln.{name}", getattr(bpy.ops.kiln, name).get_rna_type(), bpy.types.Operator
    for name in dir(bpy.types):
        if name.startswith("KILN_PT_"):
            yield name, getattr(bpy.types, name).bl_rna, bpy.types.Panel
    yield "Scene.kiln", bpy.types.Scene.bl_rna.properties["kiln"].fixed_type, bpy.types.PropertyGroup
    prefs = bpy.context.preferences.addons[addon_module()].preferences
    yield "preferences", prefs.bl_rna, bpy.types.AddonPreferences


def tooltips() -> list[Text]:
    """Each tooltip and each name Kiln's operators, panels and properties show, as Blender shows
    them now: a description through ``pgettext_tip``, a name through ``pgettext_iface`` in its
    translation context. Keyed by where it comes from, so each language's is compared with the
    English of the same place."""
    tip = bpy.app.translations.pgettext_tip
    found: list[Text] = []

    def add(where: str, kind: str, text: str) -> None:
        if text.strip():
            found.append({"where": where, "kind": kind, "text": text})

    def properties(owner: str, props: Any, inherited: set[str]) -> None:
        for prop in props:
            if prop.identifier in inherited or prop.is_hidden:
                continue
            where = f"{owner}.{prop.identifier}"
            if prop.name != prop.identifier:  # a property given no name shows nowhere
                add(where, "name", iface(prop.name, prop.translation_context))
            add(where, "tooltip", str(tip(prop.description)))
            if prop.type == "ENUM":
                for item in prop.enum_items:
                    add(f"{where}:{item.identifier}", "name", iface(item.name, prop.translation_context))
                    add(f"{where}:{item.identifier}", "tooltip", str(tip(item.description)))

    for owner, struct, base in _kiln_structs():
        if base is bpy.types.Operator:
            add(owner, "name", iface(struct.name, struct.translation_context))
            add(owner, "tooltip", str(tip(struct.description)))
        elif base is bpy.types.Panel:
            panel = getattr(bpy.types, owner)
            add(owner, "name", iface(panel.bl_label, panel.bl_translation_context))
            add(owner, "tooltip", str(tip(struct.description)))
        inherited = {"rna_type", *(prop.identifier for prop in base.bl_rna.properties)}
        properties(owner, struct.properties, inherited)
    window_manager = bpy.types.WindowManager.bl_rna.properties
    properties("WindowManager", [p for p in window_manager if p.identifier.startswith("kiln_")], set())
    return found


# ------------------------------------------------------------------ a real redraw, watched


class _Heard:
    """A real ``UILayout`` that passes every call on and keeps the texts given to Blender."""

    def __init__(self, real: Any, heard: list[str]) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_heard", heard)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name in ("row", "column", "box", "split", "grid_flow", "column_flow"):
            return lambda *args, **kwargs: _Heard(attr(*args, **kwargs), self._heard)
        if name not in ("label", "operator", "prop", "progress", "operator_menu_enum"):
            return attr

        def heard(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get("text"):
                self._heard.append(str(kwargs["text"]))
            elif name == "operator" and "text" not in kwargs:
                self._heard.append(operator_name(args[0]))
            return attr(*args, **kwargs)

        return heard

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._real, name, value)


class _PanelHeard:
    def __init__(self, panel: Any, heard: list[str]) -> None:
        self.layout = _Heard(panel.layout, heard)
        self._panel = panel

    def __getattr__(self, name: str) -> Any:
        return getattr(self._panel, name)


_watched: dict[str, Callable[..., None]] = {}
_armed: set[str] = set()
_heard_at_draw: dict[str, list[str]] = {}


def _watch(panel: Any) -> None:
    """Wrap the registered panel's ``draw``: Blender looks it up on the class at each redraw."""
    name = panel.__name__
    if name in _watched:
        return
    original = panel.draw
    _watched[name] = original

    def draw(self: Any, context: Any) -> None:
        heard: list[str] = []
        original(_PanelHeard(self, heard), context)
        if name in _armed:
            _heard_at_draw[name] = heard

    panel.draw = draw


def next_drawn(panel: Any) -> list[str] | None:
    """The texts ``panel`` gave Blender at its first real redraw after the first call (which asks
    for that redraw and gives None, as later calls do until the panel has drawn)."""
    name = panel.__name__
    _watch(panel)
    if name not in _armed:
        _armed.add(name)
        _heard_at_draw.pop(name, None)
        for window in bpy.context.window_manager.windows:
            for area in window.screen.areas:
                if area.type == "VIEW_3D":
                    area.tag_redraw()
        return None
    if name in _heard_at_draw:
        _armed.discard(name)
        return _heard_at_draw.pop(name)
    return None


# ------------------------------------------------------------------ the states, all languages


def _more_states(state: str) -> None:
    settings = bpy.context.scene.kiln
    if state == "image inputs":
        settings.mode = "IMAGE"
    elif state == "placeholder marked":
        settings.mode = "TEXT"
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj.name == "Cube")
        bpy.context.view_layer.objects.active = bpy.data.objects.get("Cube")


def _image_sources(context: Any) -> list[Text]:
    """The Generate panel with each source of an image (file, Blender image, web address)."""
    settings = bpy.context.scene.kiln
    texts: list[Text] = []
    for source in ("FILE", "BLENDER", "URL"):
        settings.image_source = source
        texts += panel_texts(bpy.types.KILN_PT_generate, context)
    settings.image_source = "FILE"
    return texts


def collect(context: Any, languages: tuple[str, ...] = (ENGLISH, *LANGUAGES)) -> dict[str, Any]:
    """For each state and language: the texts drawn, said and shown as tooltips, and the Sidebar
    texts wider than their room. ``context``: the Sidebar region's (its real width).

    Blender's language is left at English with every Translate switch on.
    """
    states: dict[str, dict[str, Any]] = {}
    with states_undone(bpy) as undo:
        try:
            for state in (*STATES, *MORE_STATES):
                if state in STATES:
                    undo.append(set_up(state, bpy))
                else:
                    _more_states(state)
                by_language: dict[str, Any] = {}
                for locale in languages:
                    set_language(locale)
                    said = reports(state)
                    drawn = [t for name in PANELS for t in panel_texts(getattr(bpy.types, name), context)]
                    if state == "image inputs":
                        drawn += _image_sources(context)
                    drawn += preferences_texts()
                    cut = [
                        {**item.__dict__, "width": round(item.width), "room": round(item.room)}
                        for item in measure_all(context)
                        if item.overflows  # a button too: Blender would end its text in "…"
                    ]
                    by_language[locale] = {"drawn": drawn, "said": said, "cut": cut}
                states[state] = by_language
            tips = {}
            for locale in languages:
                set_language(locale)
                tips[locale] = tooltips()
        finally:
            set_language(ENGLISH)
    return {"states": states, "tooltips": tips, "region_width": context.region.width}
