"""Every text Kiln draws or says, in each state an artist meets, is a catalogue sentence without internals.

Each state is made for real (the sandbox over HTTP, a job it fails, a submit whose answer is lost, a
damaged job list), then every panel Kiln registers in the 3D View's Sidebar is drawn (each job made
active in turn, so its details show, and each row of the list) with the preferences, every Kiln button
drawn is pressed through ``bpy.ops`` (its reports and refusals kept), the watcher beats (the status
bar's sentences), and everything is drawn again. Drawn in a region far wider than any sentence, so
each sentence is one label. Each text must be a rendering of a catalogue entry (or a value the test
gave: a prompt, an object's name), and carry no internal word, no task or job id, no HTTP status and
none of Kiln's own paths (``catalogue_match``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from catalogue_match import Catalogue
from recording_layout import Recorder, run_pending_sync, sync_asked, wait_for

#: Room enough for any sentence on one line (``drawing.text_room`` reads the region's width).
WIDE = SimpleNamespace(width=100_000)
#: Buttons not pressed: they open a file browser, change the agents' setup, or are a menu.
NOT_PRESSED = {"kiln.open_cache_folder", "kiln.new_agent_token", "kiln.copy_agent_config", "kiln.announce"}
#: Buttons pressed last, in this order: they change or remove the state's jobs.
PRESSED_LAST = (
    "kiln.retry_job",
    "kiln.cancel_job",
    "kiln.clear_cache",
    "kiln.clear_finished",
    "kiln.remove_job",
)
#: What Blender prints for an operator's report in background mode (and a RuntimeError's lines).
REPORT_LINE = re.compile(r"^(Info|Warning|Error): (.*)$", re.MULTILINE)
#: A greyed-out button's reason (its tooltip), as a script calling it reads it.
POLL_LINE = re.compile(r"^Operator bpy\.ops\.[\w.]+\.poll\(\) (.*)$", re.MULTILINE)
#: What Blender says of a greyed-out button that gives no reason.
NO_REASON = "failed, context is incorrect"
ROW = SimpleNamespace(layout_type="DEFAULT")


class WideContext:
    """The real context, drawn into a region wide enough for any sentence."""

    region = WIDE

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class WordsRecorder(Recorder):
    """A recorder that also keeps a column's heading (Blender draws it beside the first property)."""

    def _child(self, *_args: Any, **kwargs: Any) -> WordsRecorder:
        if kwargs.get("heading"):
            self._record("heading", text=kwargs["heading"])
        return WordsRecorder(self, self.calls)

    row = column = box = split = grid_flow = column_flow = _child


class PreferencesWithLayout:
    """The real preferences, drawn into a recorder (``layout`` of the real one is read-only)."""

    def __init__(self, real: Any, layout: Recorder) -> None:
        self._real, self.layout = real, layout

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@dataclass
class Seen:
    """What the artist read in one state: (where, kind, text) for each text."""

    texts: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, where: str, kind: str, text: str) -> None:
        self.texts.append((where, kind, text))


@dataclass
class World:
    """A state being made: Blender, Kiln's modules, and what the test itself typed or named."""

    bpy: Any
    ui: Any
    request: pytest.FixtureRequest
    monkeypatch: pytest.MonkeyPatch
    sandbox_factory: Any
    sandbox_key: str
    folder: Path
    given: set[str] = field(default_factory=set)
    hidden: set[str] = field(default_factory=set)

    def connect(self, **sandbox: Any) -> Any:
        server = self.sandbox_factory(**sandbox)
        self.monkeypatch.setenv("KILN_BASE_URL", server.base_url)
        self.monkeypatch.setenv("KILN_API_KEY", self.sandbox_key)
        return server

    def type_prompt(self, prompt: str) -> None:
        self.bpy.context.scene.kiln.prompt = prompt
        self.given.add(prompt)

    def submit(self, prompt: str) -> Any:
        """Press Generate without waiting (as in the UI); the new job."""
        self.given.add(prompt)
        assert self.bpy.ops.kiln.generate_from_text(prompt=prompt, wait=False) == {"FINISHED"}
        return self.engine().jobs()[-1]

    def engine(self) -> Any:
        return self.ui.runtime.engine(self.bpy.context)

    def remember(self) -> None:
        """What the artist may read as it is (prompts, jobs', objects', collections' and services' names)
        and what only the details may carry (jobs' and tasks' ids, Kiln's own folders),
        as jobs come and go."""
        self.hidden |= {str(self.folder), str(self.ui.preferences.cache_dir())}
        engine = self.ui.runtime.engine_if_started()
        for job in engine.jobs() if engine is not None else []:
            self.given.add(job.request.label)
            # The service's own reason, quoted as the service's (never Kiln's words, never translated).
            reason = job.error_message.values.get("reason") if job.error_message is not None else None
            if isinstance(reason, str):
                self.given.add(reason)
            self.hidden |= {job.id, job.task_id or "", getattr(job, "refused_task_id", "") or ""}
        self.hidden.discard("")
        data = self.bpy.data
        self.given |= {o.name for o in data.objects} | {c.name for c in data.collections}
        # Each service's own name: a brand, never translated (``ServiceInfo.name``).
        prefs = self.ui.preferences
        self.given |= {prefs.info(sid).name for sid in prefs.service_ids()}


# ------------------------------------------------------------------------------------------ states


def ready(world: World) -> None:
    world.connect()
    world.engine()


def ready_with_a_prompt(world: World) -> None:
    world.connect()
    world.type_prompt("a red chair")


def running(world: World) -> None:
    world.connect(speed=0.5)
    job = world.submit("a slow lantern")
    engine = world.engine()
    wait_for(lambda: (j := engine.get(job.id)).state.value == "running" and j.progress > 0, what="running")


def failed(world: World) -> None:
    world.connect(faults="fail=1")
    job = world.submit("an impossible shape")
    assert world.engine().wait([job.id], timeout=60)
    assert world.engine().get(job.id).state.value == "failed"


def outcome_unknown(world: World) -> None:
    """The service makes the task, then the connection closes before its answer: never sent again."""
    world.connect(faults="lost=1,scope=submit")
    job = world.submit("a chair whose answer was lost")
    assert world.engine().wait([job.id], timeout=60)
    assert world.engine().get(job.id).state.value == "outcome unknown"


def finished(world: World) -> None:
    world.connect()
    world.given.add("a blue vase")
    assert world.bpy.ops.kiln.generate_from_text(prompt="a blue vase") == {"FINISHED"}
    assert world.engine().jobs()[-1].state.value == "imported"


def ready_to_import(world: World) -> None:
    """Finished on the service with Import Automatically off: waiting for the artist's Import."""
    world.connect()
    prefs, before = world.ui.preferences.get(), world.ui.preferences.get().auto_import
    world.request.addfinalizer(lambda: setattr(prefs, "auto_import", before))
    prefs.auto_import = False
    job = world.submit("a green lamp")
    assert world.engine().wait([job.id], timeout=60)
    assert world.engine().get(job.id).state.value == "ready"


def no_key(world: World) -> None:
    world.request.getfixturevalue("no_key")
    world.type_prompt("a red chair")


def offline(world: World) -> None:
    world.connect()
    world.request.getfixturevalue("offline")
    world.type_prompt("a red chair")


def nothing_set_up(world: World) -> None:
    """Just installed: no key, no service address, Blender's online access off."""
    for name in ("KILN_API_KEY", "KILN_BASE_URL"):
        world.monkeypatch.delenv(name, raising=False)
    world.ui.preferences.get().api_key = ""
    world.ui.preferences.finish_key_saves()
    assert not world.ui.preferences.get().base_url
    world.request.getfixturevalue("offline")
    world.type_prompt("a red chair")


def damaged_job_list(world: World) -> None:
    """A job list from an older version, cut off mid-write."""
    world.connect()
    (world.folder / "jobs.json").write_text('{"format": 1, "jobs": [{"id": "a", "request": {"ki')
    assert world.engine().store_problems()


def damaged_job_store(world: World) -> None:
    """Kiln's own job list with garbage where its log of recent writes was."""
    world.connect()
    world.engine()
    world.ui.runtime.shutdown()
    (world.folder / "jobs.sqlite3-wal").write_bytes(os.urandom(4096))
    assert world.engine().store_problems()


STATES: dict[str, Callable[[World], None]] = {
    "ready": ready,
    "ready, a prompt typed": ready_with_a_prompt,
    "running": running,
    "failed": failed,
    "outcome unknown": outcome_unknown,
    "finished": finished,
    "ready to import": ready_to_import,
    "no key": no_key,
    "offline": offline,
    "nothing set up": nothing_set_up,
    "damaged job list": damaged_job_list,
    "damaged job store": damaged_job_store,
}


# ------------------------------------------------------------------------------------ what is read


def sidebar_panels(bpy: Any) -> list[type]:
    """Every panel Kiln registers in the 3D View's Sidebar, parents first."""
    found = [getattr(bpy.types, name) for name in dir(bpy.types) if name.startswith("KILN_PT_")]
    panels = [p for p in found if p.bl_space_type == "VIEW_3D" and p.bl_region_type == "UI"]
    return sorted(panels, key=lambda p: bool(getattr(p, "bl_parent_id", "")))


def operator_rna(bpy: Any, idname: str) -> Any:
    module, name = idname.split(".")
    return getattr(getattr(bpy.ops, module), name).get_rna_type()


def is_kilns(data: Any, prop: str) -> bool:
    """A property Kiln declared (Blender's own, such as Allow Online Access, speak Blender's words)."""
    return prop.startswith("kiln_") or type(data).__name__.startswith("Kiln") or hasattr(data, "_real")


Button = tuple[str, dict[str, Any]]


def read(bpy: Any, layout: Recorder, where: str, seen: Seen) -> list[Button]:
    """Every text of a drawn layout into ``seen``; the Kiln buttons drawn (id, properties)."""
    buttons = []
    for call in layout.calls:
        text = call.kwargs.get("text")
        if call.kind in ("label", "progress", "heading"):
            seen.add(where, call.kind, str(text or ""))
        elif call.kind == "operator":
            idname = call.args[0]
            if not idname.startswith("kiln."):
                seen.add(where, "button", str(text or ""))
                continue
            rna = operator_rna(bpy, idname)
            seen.add(where, "button", str(rna.name if text is None else text))
            seen.add(where, "tooltip", rna.description)
            if "menu_of" not in call.kwargs:
                buttons.append((idname, dict(vars(call.props))))
        elif call.kind == "prop":
            data, prop = call.args[0], call.args[1]
            if not is_kilns(data, prop):
                continue
            real = getattr(data, "_real", data)
            rna = real.bl_rna.properties[prop]
            seen.add(where, "tooltip", rna.description)
            if text is not None:
                seen.add(where, "property", str(text))
            elif not (rna.type == "ENUM" and call.kwargs.get("expand")):
                seen.add(where, "property", rna.name)
            if call.kwargs.get("placeholder"):
                seen.add(where, "placeholder", str(call.kwargs["placeholder"]))
            if rna.type == "ENUM":
                for item in rna.enum_items:
                    seen.add(where, "choice", item.name)
                    seen.add(where, "tooltip", item.description)
    return buttons


def draw_everything(world: World, seen: Seen) -> list[Button]:
    """Every Sidebar panel (the Jobs panel once for each job made active) and the preferences."""
    bpy, ui = world.bpy, world.ui
    world.remember()
    context = WideContext(bpy.context)
    wm = bpy.context.window_manager
    jobs = ui.jobs.KILN_PT_jobs
    jobs.draw(SimpleNamespace(layout=WordsRecorder()), context)
    if sync_asked(ui.jobs):
        run_pending_sync(bpy, ui.jobs)  # the rows follow the engine's jobs, a new one made active
    panels = sidebar_panels(bpy)
    assert {ui.generate.KILN_PT_generate, jobs} <= set(panels), "Kiln's panels are not all found"
    buttons = []
    for panel in panels:
        if hasattr(panel, "poll") and not panel.poll(context):
            continue
        seen.add(panel.__name__, "title", panel.bl_label)
        for index in (list(range(len(wm.kiln_jobs))) if panel is jobs else []) or [None]:
            if index is not None:
                wm.kiln_job_index = index
            layout = WordsRecorder()
            panel.draw(SimpleNamespace(layout=layout), context)
            buttons += read(bpy, layout, panel.__name__, seen)
    for index, item in enumerate(wm.kiln_jobs):
        row = WordsRecorder()
        ui.jobs.KILN_UL_jobs.draw_item(ROW, context, row, wm, item, 0, wm, "kiln_job_index", index)
        buttons += read(bpy, row, "KILN_UL_jobs", seen)
    prefs = WordsRecorder()
    ui.preferences.KilnPreferences.draw(PreferencesWithLayout(ui.preferences.get(), prefs), context)
    buttons += read(bpy, prefs, "preferences", seen)
    return buttons


def hear(messages: list[tuple[str, str]], where: str, seen: Seen) -> None:
    for _level, sentence in messages:
        seen.add(where, "report", sentence)


def press(
    bpy: Any, idname: str, props: dict[str, Any], capfd: pytest.CaptureFixture[str]
) -> list[tuple[str, str]]:
    """Press a button through ``bpy.ops``: its reports (Blender prints them in background mode), its
    refusal (a RuntimeError) or why it is greyed out (kind, text)."""
    capfd.readouterr()
    module, name = idname.split(".")
    refusal = ""
    try:
        getattr(getattr(bpy.ops, module), name)(**props)
    except RuntimeError as exc:
        refusal = str(exc)
    printed = capfd.readouterr().out
    said = [("report", m.group(2)) for m in REPORT_LINE.finditer(printed + "\n" + refusal)]
    said += [("tooltip", m.group(1)) for m in POLL_LINE.finditer(refusal) if m.group(1) != NO_REASON]
    return list(dict.fromkeys(said))


def press_everything(world: World, buttons: list[Button], capfd: Any, seen: Seen, *, last: bool) -> None:
    """Each Kiln button drawn, once per set of properties: the harmless ones, or (``last``) those that
    change or remove the state's jobs. A greyed-out button is pressed too: a script may call it."""
    chosen = {
        (idname, json.dumps(props, sort_keys=True, default=str)): (idname, props)
        for idname, props in buttons
        if idname not in NOT_PRESSED and (idname in PRESSED_LAST) == last
    }
    order = sorted(chosen.values(), key=lambda b: PRESSED_LAST.index(b[0]) if last else 0)
    for idname, props in order:
        for kind, sentence in press(world.bpy, idname, props, capfd):
            seen.add(idname, kind, sentence)
        hear(world.ui.watcher.tick(world.bpy.context), "status bar", seen)
        world.remember()
    if world.ui.prefs_actions.connection_check.state.name == "RUNNING":
        wait_for(lambda: world.ui.prefs_actions.connection_check.state.name != "RUNNING", what="the answer")


# ------------------------------------------------------------------------------------------- tests


@pytest.fixture
def catalogue(kiln_module: Any) -> Catalogue:
    return Catalogue(kiln_module("api.words.catalogue"))


@pytest.fixture
def world(
    blender: Any,
    fresh_jobs: Path,
    ui: Any,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    sandbox_factory: Any,
    sandbox_key: str,
) -> Iterator[World]:
    ui.prefs_actions.connection_check.reset()
    yield World(blender, ui, request, monkeypatch, sandbox_factory, sandbox_key, fresh_jobs)
    ui.prefs_actions.connection_check.reset()


@pytest.mark.parametrize("state", list(STATES))
def test_every_text_drawn_or_said_is_from_the_catalogue_without_internals(
    world: World,
    catalogue: Catalogue,
    capfd: pytest.CaptureFixture[str],
    record_property: Callable[[str, object], None],
    state: str,
) -> None:
    STATES[state](world)
    seen = Seen()
    hear(world.ui.watcher.tick(world.bpy.context), "status bar", seen)
    buttons = draw_everything(world, seen)
    press_everything(world, buttons, capfd, seen, last=False)
    buttons = draw_everything(world, seen)
    press_everything(world, buttons, capfd, seen, last=True)
    draw_everything(world, seen)
    world.remember()

    wrong = []
    for where, kind, text in dict.fromkeys(seen.texts):
        said = catalogue.unwrapped(text) if kind == "report" else text
        if said is None:
            wrong.append(f"{where} {kind}: {text!r}: no “Kiln: ” before a report")
            continue
        found = catalogue.problems(said, given=world.given, hidden=world.hidden)
        if found:
            wrong.append(f"{where} {kind}: {text!r}: {', '.join(found)}")
    checked = len(dict.fromkeys(seen.texts))
    record_property("texts_checked", checked)
    record_property("reports_checked", len({t for _w, k, t in seen.texts if k == "report"}))
    assert checked > 40, "too little was drawn to tell anything"
    assert wrong == [], f"{len(wrong)} of {checked} texts in state “{state}”:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Queued on the service", "not from the catalogue"),
        ("Cooking", "not from the catalogue"),
        ("Outcome unknown", "internal word “Outcome unknown”"),
        ("The service said HTTP 500.", "internal word “HTTP”"),
        ("The service answered 503.", "HTTP status 503"),
        ("Task tsk_0123abcd failed.", "internal “tsk_0123abcd”"),
        ("The prompt is fine and the sky is blue.", "not from the catalogue"),
    ],
)
def test_the_check_rejects_a_text_outside_the_catalogue_or_with_internals(
    catalogue: Catalogue, text: str, why: str
) -> None:
    assert why in catalogue.problems(text, hidden={"tsk_0123abcd"})


def test_the_check_rejects_a_catalogue_sentence_changed_or_filled_with_other_words(
    catalogue: Catalogue, kiln_module: Any
) -> None:
    words, english = kiln_module("api.words.catalogue"), kiln_module("api.words").english
    sentence = english(words.API_KEY_MISSING)
    assert catalogue.problems(sentence) == []
    assert catalogue.problems(f"{sentence} Then wait.") == ["not from the catalogue"]
    filled = english(words.JOB_NOT_IN_SCENE, name="a red chair", reason=english(words.TASK_FAILED))
    assert catalogue.problems(filled, given={"a red chair"}) == []
    odd = english(words.JOB_NOT_IN_SCENE, name="a red chair", reason="the helper gave up")
    assert catalogue.problems(odd, given={"a red chair"}) == ["not from the catalogue"]


def test_the_check_passes_renderings_of_the_catalogue_and_given_values(
    catalogue: Catalogue, kiln_module: Any
) -> None:
    words, english = kiln_module("api.words.catalogue"), kiln_module("api.words").english
    session = english(
        words.SPENT_THIS_SESSION_UNPRICED,
        jobs=english(words.JOBS_COUNT, n=1),
        credits=english(words.CREDITS_COUNT, n=0),
        unpriced=english(words.UNPRICED_JOBS, n=1),
    )
    for text in (
        session,
        english(words.IMPORTED_WITH_TRIANGLES, name="a red chair", n=6144),
        english(words.CONNECTION_OK, host="127.0.0.1:8000"),
        words.IMPORT_AGAIN,
        "2.1 KB",
        "42%",
        "a red chair",
    ):
        assert catalogue.problems(text, given={"a red chair"}) == [], text


def test_a_report_is_said_after_kilns_name(catalogue: Catalogue) -> None:
    assert catalogue.unwrapped("Kiln: The prompt is empty.") == "The prompt is empty."
    assert catalogue.unwrapped("The prompt is empty.") is None
