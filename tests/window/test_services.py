"""The four services in Debian's Blender program, each against its own stand-in on an origin of its
own (issue 39): the Generate panel of each service ready, with its price on Generate, and its setup
box while it has no key (pictures for docs/images/, each checked for what it names), then a job
through Tripo end to end, chosen as an artist chooses it.

One Blender for the whole file, started as a studio's launcher starts it (the services' addresses in
the environment, the custom service's among them: Kiln starts with it chosen; a fresh Kiln without them
chooses none, test_pictures' first screen): the service is chosen in the Generate panel's own menu with real
input (a click, then the letter the menu underlines), the key given as Kiln's preferences take it,
the prompt pasted, Generate clicked. What the panel says is read from its real redraw (the texts it
gave Blender, ``tests/support/language_texts.py``), its buttons by what Ctrl+C over them copies, and
every text measured against the real Sidebar (``tests/support/sidebar_measure.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pictures import sidebar_picture
from program import Program, Window, WindowError
from shared_window import print_log_if_failed, shared_window
from sidebar import copied_settled, find_in, paste_into_field

from sandbox.server import Sandbox

PREFS = "bpy.context.preferences.addons[MODULE].preferences"
PROMPT = "bpy.context.scene.kiln.prompt"
PICTURE_PROMPT = "a stone lantern with a brass handle"
JOB_PROMPT = "a copper kettle with a wooden handle"
#: Stand-ins fast enough that a job lands in well under a second (the file has no running state).
SPEED = 30.0


@dataclass(frozen=True)
class Stand:
    """A service as this file drives it."""

    service: str
    #: Its name in the menu, the setup box and the job's details.
    name: str
    standin: str
    key: str
    key_env: str
    base_env: str
    #: What Generate says a prompt costs at the service's default quality.
    price: str
    #: Where its keys are made (the setup box's link), "" for the custom service.
    keys_page: str

    @property
    def slug(self) -> str:
        return "custom" if self.service == "INTERFACE" else self.standin


STANDS = (
    Stand("INTERFACE", "Custom Service", "interface", "sbx_live_windowcustom0000", "KILN_API_KEY",
          "KILN_BASE_URL", "price unknown", ""),
    Stand("TRIPO", "Tripo", "tripo", "tsk_live_windowtripo000", "KILN_TRIPO_API_KEY",
          "KILN_TRIPO_BASE_URL", "20 credits", "https://platform.tripo3d.ai/api-keys"),
    Stand("MESHY", "Meshy", "meshy", "msy_live_windowmeshy000", "KILN_MESHY_API_KEY",
          "KILN_MESHY_BASE_URL", "price unknown", "https://www.meshy.ai/settings/api"),
    Stand("RODIN", "Hyper3D Rodin", "rodin", "rodin_live_windowrodin00", "KILN_RODIN_API_KEY",
          "KILN_RODIN_BASE_URL", "0.5 credits", "https://hyper3d.ai/api-dashboard"),
)  # fmt: skip
BY_ID = {stand.service: stand for stand in STANDS}


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    """All four stand-ins, each on its own loopback port (its own origin) with its own key."""
    started = {
        stand.service: Sandbox(service=stand.standin, keys=[stand.key], speed=SPEED, credits=100_000).start()
        for stand in STANDS
    }
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture(scope="module")
def window(program: Program, installed_user: Path, stand_ins: dict[str, Sandbox]) -> Iterator[Window]:
    """One Blender for the file, on a screen tall enough for the Kiln tab's pictures: every service's
    address given by the environment as a studio's launcher gives it (only the custom service needs
    one; the others' replace their documented origins), no key anywhere, the Kiln tab open."""
    env = {stand.base_env: stand_ins[stand.service].base_url for stand in STANDS}
    env["KILN_POLL_INTERVAL"] = "0.2"  # every service here is on this machine

    def chose_the_custom_service(blender: Window) -> None:
        assert blender.call(f"result = {PREFS}.service") == "INTERFACE"  # KILN_BASE_URL chose it

    with shared_window(program, installed_user, env, chose_the_custom_service) as blender:
        SPOTS.clear()
        yield blender


@pytest.fixture(autouse=True)
def log_on_failure(window: Window, request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    print_log_if_failed(window, request)


# ------------------------------------------------------------------ reading and using the Sidebar


#: Where the Generate panel's service menu, prompt field and Generate button are, found once: the rows
#: above Generate are the same whatever the service (its menu, Text/Image, the prompt, its quality).
SPOTS: dict[str, tuple[int, int]] = {}


def spot(window: Window, name: str, wanted: str, find: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    """``name``'s point, where Ctrl+C copies ``wanted``: where it was last time, else found by ``find``."""
    known = SPOTS.get(name)
    if known is None or wanted not in copied_settled(window, *known):
        SPOTS[name] = find()
    return SPOTS[name]


def service_menu(window: Window) -> tuple[int, int]:
    """The Generate panel's service menu: the first point down the Sidebar where Ctrl+C copies a
    service's id (a menu copies the value it shows)."""

    def find() -> tuple[int, int]:
        bar = window.call("result = sidebar()")
        upper = {**bar, "height": bar["height"] // 2}
        return find_in(window, upper, lambda copy: copy in BY_ID, 6)

    known = SPOTS.get("menu")
    if known is None or copied_settled(window, *known) not in BY_ID:
        SPOTS["menu"] = find()
    return SPOTS["menu"]


def below(window: Window, point: tuple[int, int]) -> dict[str, int]:
    """The Sidebar from ``point`` down (a scan for a button starts there)."""
    bar = window.call("result = sidebar()")
    return {**bar, "y": point[1], "height": bar["y"] + bar["height"] - point[1]}


def generate_button(window: Window) -> tuple[int, int]:
    wanted = "bpy.ops.kiln.generate_from_text"
    return spot(
        window, "generate", wanted, lambda: find_in(window, below(window, service_menu(window)), wanted)
    )


def keys_link(window: Window) -> tuple[int, int]:
    """The setup box's link to where the service's keys are made (under Generate)."""
    wanted = "bpy.ops.wm.url_open"
    return spot(
        window, "keys", wanted, lambda: find_in(window, below(window, generate_button(window)), wanted, 8)
    )


def underlined(names: list[str], wanted: str) -> str:
    """The letter a Blender menu of ``names`` (top to bottom) underlines in ``wanted``, picked as Blender
    picks them (``ui_menu_block_set_keyaccels``): a first pass over the menu tries each name's first
    letter, then the letter after each run of letters and one other character ("Hyper3D Rodin": h, d,
    r); a second pass gives a name still without one its first letter not yet taken."""
    taken: dict[str, str] = {}
    for first_pass in (True, False):
        for name in names:
            at = 0
            while name not in taken and at < len(name):
                letter = name[at].lower()
                if "a" <= letter <= "z" and letter not in taken.values():
                    taken[name] = letter
                elif first_pass:
                    while at < len(name) and name[at].isalpha():
                        at += 1
                    at += 1
                else:
                    at += 1
    return taken[wanted]


def choose_service(window: Window, stand: Stand) -> None:
    """A click on the service menu, then the letter it underlines in the service's name (again, when
    the menu was slow to open on a busy machine and the letter came before it)."""
    names = window.call(
        "result = [item[1] for item in sys.modules[MODULE + '.service_choices'].service_items()]"
    )
    letter = underlined(names, stand.name)
    for attempt in range(3):
        window.display.click(*service_menu(window))
        window.display.xdotool("sleep", str(0.4 + 0.4 * attempt), "key", letter)
        try:
            window.wait_for(f"{PREFS}.service == {stand.service!r}", timeout=3)
            return
        except WindowError:
            continue
    raise WindowError(f"the service menu never chose {stand.name}")


def drawn(window: Window, panel: str = "KILN_PT_generate") -> list[str]:
    """The texts the panel gave Blender at its next real redraw."""
    return list(window.wait_for(f"language_texts.next_drawn(bpy.types.{panel})", timeout=20, every=0.1))


def menu_shows(window: Window) -> str:
    """The service name the Generate panel's menu shows (as Blender names the chosen item)."""
    return str(
        window.call(
            "with in_view3d('UI'):\n"
            f"    result = bpy.types.UILayout.enum_item_name({PREFS}, 'service', {PREFS}.service)"
        )
    )


def cut_texts(window: Window) -> list[str]:
    """Texts of the Generate panel wider than the room the real Sidebar gives them, the service's name
    in its menu among them (right of the label's share, beside the menu's arrow)."""
    return list(
        window.call(
            "d = sys.modules[MODULE + '.drawing']\n"
            "with in_view3d('UI'):\n"
            "    found = sidebar_measure.measure(bpy.types.KILN_PT_generate, bpy.context)\n"
            f"    name = bpy.types.UILayout.enum_item_name({PREFS}, 'service', {PREFS}.service)\n"
            "    room = d.text_room(bpy.context, share=1 - d.LABEL_SHARE, fixed_units=d.ICON_UNITS)\n"
            "    width = d.text_width(name, d.font_pixels(bpy.context))\n"
            "result = [f'{m.kind} {m.text!r}: {m.width:.0f} > {m.room:.0f}' for m in found if m.overflows]\n"
            "result += [f'menu {name!r}: {width:.0f} > {room:.0f}'] if width > room else []"
        )
    )


def give_key(window: Window, stand: Stand) -> None:
    """The key typed into Kiln's preferences' API Key field (shown for the chosen service)."""
    window.call(f"{PREFS}.api_key = {stand.key!r}")
    window.wait_for("not sys.modules[MODULE + '.session.setup'].missing()", timeout=10)


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("stand", STANDS, ids=[stand.service for stand in STANDS])
def test_each_service_in_the_generate_panel_its_setup_box_and_ready(window: Window, stand: Stand) -> None:
    if window.call(f"result = {PROMPT}") != PICTURE_PROMPT:
        paste_into_field(window, PROMPT, PICTURE_PROMPT)
    choose_service(window, stand)

    # No key for this service: the setup box says so, links to where its keys are made.
    assert window.call("result = sys.modules[MODULE + '.session.setup'].missing().key")
    texts = drawn(window)
    assert menu_shows(window) == stand.name
    assert copied_settled(window, *service_menu(window)) == stand.service
    assert "Before Kiln can make a mesh:" in texts and "Add your API key" in texts, texts
    assert "Open Kiln Preferences" in texts, texts
    if stand.keys_page:
        assert f"Get a {stand.name} API Key" in texts, texts
        link = copied_settled(window, *keys_link(window))
        assert stand.keys_page in link, link
    else:
        assert not [text for text in texts if text.startswith("Get a ")], texts
    assert cut_texts(window) == []
    sidebar_picture(window, f"sidebar-setup-{stand.slug}")

    # Its key given: the setup box gone, Generate says what this prompt costs there.
    give_key(window, stand)
    texts = drawn(window)
    assert "Before Kiln can make a mesh:" not in texts, texts
    assert f"Generate · {stand.price}" in texts, texts
    assert ("Model" in texts) == (stand.service != "INTERFACE"), texts
    generate = copied_settled(window, *generate_button(window))
    assert f"service='{stand.service}'" in generate and PICTURE_PROMPT in generate, generate
    assert cut_texts(window) == []
    sidebar_picture(window, f"sidebar-service-{stand.slug}")

    # The next service starts with no key: this one's is taken out again.
    window.call(f"{PREFS}.api_key = ''")
    window.wait_for("sys.modules[MODULE + '.session.setup'].missing().key", timeout=10)


def test_a_job_through_tripo_end_to_end(window: Window, stand_ins: dict[str, Sandbox]) -> None:
    tripo = BY_ID["TRIPO"]
    choose_service(window, tripo)
    give_key(window, tripo)
    for server in stand_ins.values():
        server.requests.clear()
    paste_into_field(window, PROMPT, JOB_PROMPT)

    generate = copied_settled(window, *generate_button(window))
    assert "service='TRIPO'" in generate and JOB_PROMPT in generate, generate
    window.display.click(*generate_button(window))
    window.wait_for(
        f"[j for j in kiln_jobs() if j['prompt'] == {JOB_PROMPT!r} and j['state'] == 'imported']", timeout=90
    )
    landed = window.call(
        "result = [[o.type, o.get('kiln_service')] for o in bpy.data.objects"
        f" if o.get('kiln_prompt') == {JOB_PROMPT!r}]"
    )
    assert ["MESH", "TRIPO"] in landed and all(service == "TRIPO" for _type, service in landed), landed
    # The job's details in the Jobs panel name where it went.
    assert "Sent to Tripo" in drawn(window, "KILN_PT_jobs")

    # The Tripo stand-in made the one task, asked with its key; no other origin saw that key.
    server = stand_ins["TRIPO"]
    assert server.submit_count == 1
    assert [task.prompt for task in server.tasks.values()] == [JOB_PROMPT]
    headers = [r.headers.get("authorization", "") for r in server.requests]
    assert f"Bearer {tripo.key}" in headers, headers
    assert all(header in ("", f"Bearer {tripo.key}") for header in headers), headers
    files = [r for r in server.requests if "/files/" in r.path]
    assert files and not any(r.headers.get("authorization") for r in files), "the key went with a file"
    for stand in STANDS:
        if stand is not tripo:
            seen = [r.headers.get("authorization", "") for r in stand_ins[stand.service].requests]
            assert not any(tripo.key in header for header in seen), stand.service
            assert not stand_ins[stand.service].submit_count, stand.service
