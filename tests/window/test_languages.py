"""Kiln in the artist's language, in Debian's Blender program (the bpy module from PyPI has no
translations): every language Kiln is translated into, read from the program itself.

One program reads, for each state of ``tests/support/sidebar_measure.py`` (and the image inputs and
a marked placeholder) and each language, every text Kiln's Sidebar panels and preferences draw, the
sentences its operators report and the tooltips and names of its operators, panels and properties
(``tests/support/language_texts.py``), and measures each Sidebar text against the real region. The
same program then changes Blender's language under a drawn panel and tries the Translate switches.
A second program, with the sandbox as the service, takes the ready and running states' pictures in
German and Japanese (``make screenshots`` copies them to docs/images/).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SHOTS, shot
from program import REPO, Display, Program, Window
from sidebar import find_in_sidebar, open_kiln_tab, paste_into_field

from sandbox.server import Sandbox

LANGUAGES = ("ja_JP", "zh_HANS", "ko_KR", "es", "fr_FR", "de_DE", "pt_BR")
ENGLISH = "en_US"
#: The languages of the pictures: the longest words, and one CJK language.
PICTURED = ("de_DE", "ja_JP")
#: Share of Kiln's texts that must read differently from the English in each language.
LEAST_TRANSLATED = 0.95
#: What the artist or the scene gave (prompts, object names), in the states the program draws.
GIVEN_NAMES = (
    "a weathered oak armchair with carved lion-paw legs and a faded red velvet seat cushion",
    "a weathered oak armchair with carved legs, variant with armrests",
    "a weathered oak armchair with carved legs, variant without armrests",
    "a wooden crate with rope handles",
    "a stone lantern with a brass handle",
    "Armchair",
    "Cube",
    "Kiln",
)
#: Names of programs, engines and file kinds: the same in every language.
PROPER_NAMES = (
    "Blender",
    "Claude Code",
    "Cursor",
    "VS Code",
    "Godot",
    "Unity",
    "Unreal",
    "GLB",
    "FBX",
    "LODs",
    # The services' own names (brands: the same in every language).
    "Hyper3D Rodin",
    "Tripo",
    "Meshy",
)
#: A placeholder left in a sentence: "{name}", "{n}".
UNFILLED = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
PICTURE_PROMPT = "a stone lantern with a brass handle"


# ------------------------------------------------------------------ one program for the reading


def load_language_texts(program: Program, window: Window) -> None:
    """``language_texts`` (and the measuring it uses) imported in the program, as the agent's."""
    support = program.workdir("support") / "support"
    shutil.copytree(REPO / "tests" / "support", support, ignore=shutil.ignore_patterns("__pycache__"))
    window.call(f"sys.path.insert(0, {program.inside(support)!r})\nimport language_texts")


@pytest.fixture(scope="module")
def window(program: Program, installed_user: Path) -> Iterator[Window]:
    """Blender with Kiln and the Sidebar on its Kiln tab at its default width, for the module."""
    user = program.workdir("user")
    shutil.rmtree(user)
    shutil.copytree(installed_user, user, symlinks=True)
    screen = Display(program).start()
    blender = Window(program, screen, user, {})
    try:
        blender.start()
        open_kiln_tab(blender)
        load_language_texts(program, blender)
        yield blender
    finally:
        blender.kill()
        screen.stop()


@pytest.fixture(scope="module")
def collected(window: Window) -> dict[str, Any]:
    """Every text of every state in English and each language (``language_texts.collect``)."""
    result: dict[str, Any] = window.call(
        "with in_view3d('UI'):\n    result = language_texts.collect(bpy.context)", timeout=600
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "languages-texts.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    return result


def counted(text: str) -> bool:
    """Whether a text is Kiln's words: not only a prompt, an object's or a program's name, a number
    or an address."""
    rest = re.sub(r"https?://\S*", " ", text)
    for name in (*GIVEN_NAMES, *PROPER_NAMES):
        rest = rest.replace(name, " ")
    # A name shortened in the middle ("a weathered oak…without armrests"), or cut over lines.
    parts = [part.strip() for part in rest.split("…")]
    rest = " ".join(part for part in parts if not any(part in name for name in GIVEN_NAMES))
    return any(char.isalpha() for char in rest)


def texts_of(collected: dict[str, Any], locale: str) -> tuple[set[str], set[str], dict[str, str]]:
    """One language's texts over every state: drawn, said, and its tooltips and names by place
    (compared place by place)."""
    states = collected["states"].values()
    drawn = {t["text"] for state in states for t in state[locale]["drawn"] if counted(t["text"])}
    said = {t["text"] for state in states for t in state[locale]["said"] if counted(t["text"])}
    tips = {f"{t['where']} {t['kind']}": t["text"] for t in collected["tooltips"][locale]}
    tips = {place: text for place, text in tips.items() if counted(text)}
    return drawn, said, tips


def differing(collected: dict[str, Any], locale: str) -> dict[str, Any]:
    """How many of a language's texts differ from the English of the same states (and which do not)."""
    english_drawn, english_said, english_tips = texts_of(collected, ENGLISH)
    drawn, said, tips = texts_of(collected, locale)
    same = sorted((drawn & english_drawn) | (said & english_said))
    same += [f"{place}: {text}" for place, text in sorted(tips.items()) if english_tips.get(place) == text]
    total = len(drawn) + len(said) + len(tips)
    return {
        "texts": total,
        "drawn": len(drawn),
        "said": len(said),
        "tooltips": len(tips),
        "differing": total - len(same),
        "share": (total - len(same)) / total if total else 0.0,
        "same": same,
    }


def cut_texts(collected: dict[str, Any], locale: str) -> list[dict[str, Any]]:
    return [{"state": state, **cut} for state, by in collected["states"].items() for cut in by[locale]["cut"]]


def test_every_language_reads_differently_from_the_english(collected: dict[str, Any]) -> None:
    numbers = {locale: differing(collected, locale) for locale in LANGUAGES}
    summary = {
        locale: {
            **{k: v for k, v in found.items() if k != "same"},
            "cut": len(cut_texts(collected, locale)),
            "same_as_english": found["same"],
        }
        for locale, found in numbers.items()
    }
    (SHOTS / "languages.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1), "utf-8")
    for locale, found in numbers.items():
        print(
            f"{locale}: {found['texts']} texts ({found['drawn']} drawn, {found['said']} said, "
            f"{found['tooltips']} tooltips and names), {found['share']:.1%} differ from the English, "
            f"{len(cut_texts(collected, locale))} cut"
        )
    drawn, said, tips = texts_of(collected, ENGLISH)
    assert len(drawn) > 100 and len(said) > 10 and len(tips) > 200
    short = {
        locale: f"{found['share']:.1%}: {found['same'][:40]}"
        for locale, found in numbers.items()
        if found["share"] < LEAST_TRANSLATED
    }
    assert not short, json.dumps(short, ensure_ascii=False, indent=1)


def test_no_placeholder_shows_unformatted(collected: dict[str, Any]) -> None:
    unfilled = []
    for locale in (ENGLISH, *LANGUAGES):
        for state, by in collected["states"].items():
            for text in by[locale]["drawn"] + by[locale]["said"]:
                if UNFILLED.search(text["text"]):
                    unfilled.append(f"{locale} {state} {text['where']}: {text['text']}")
    assert not unfilled, "\n".join(unfilled)


def test_nothing_is_cut_at_the_default_sidebar_width(collected: dict[str, Any]) -> None:
    assert collected["region_width"] > 100
    cut = {locale: cut_texts(collected, locale) for locale in (ENGLISH, *LANGUAGES)}
    failing = {locale: texts for locale, texts in cut.items() if texts}
    assert not failing, json.dumps(failing, ensure_ascii=False, indent=1)


# ------------------------------------------------------------------ a change of language, the switches


def drawn_now(window: Window, panel: str = "KILN_PT_generate") -> list[str]:
    """The texts the panel gave Blender at its next real redraw in the window."""
    return list(window.wait_for(f"language_texts.next_drawn(bpy.types.{panel})", timeout=20, every=0.1))


def test_switching_language_changes_the_panel_at_the_next_redraw(window: Window) -> None:
    window.call("language_texts.set_language('en_US')")
    english = drawn_now(window)
    window.call("language_texts.set_language('de_DE')")
    german = drawn_now(window)
    window.call("language_texts.set_language('en_US')")
    again = drawn_now(window)
    SHOTS.mkdir(parents=True, exist_ok=True)
    switched = {"en_US": english, "de_DE": german, "en_US again": again}
    (SHOTS / "languages-switch.json").write_text(json.dumps(switched, ensure_ascii=False, indent=1), "utf-8")
    assert again == english
    assert len(german) > 2
    # Wrapped over other lines, German shares no text with the English (the prompt is not drawn).
    left = {text for text in set(german) & set(english) if counted(text)}
    assert not left, f"still English after the switch: {left}"


def test_translate_interface_off_keeps_the_panel_english_and_tooltips_translated(window: Window) -> None:
    read = (
        "texts = [t['text'] for t in language_texts.panel_texts(bpy.types.KILN_PT_generate, bpy.context)]\n"
        "tips = [t['text'] for t in language_texts.tooltips() if t['kind'] == 'tooltip']\n"
        "result = [texts, tips]"
    )
    window.call("language_texts.set_language('en_US')")
    english_panel, english_tips = window.call(read)
    window.call("language_texts.set_language('de_DE', interface=False)")
    panel, tips = window.call(read)
    window.call("language_texts.set_language('de_DE')")
    german_panel, _ = window.call(read)
    window.call("language_texts.set_language('en_US')")
    assert panel == english_panel
    assert german_panel != english_panel
    translated = [t for t, e in zip(tips, english_tips, strict=True) if t != e]
    assert len(translated) > 0.9 * len(tips), "tooltips were not translated with the interface off"


def test_translate_reports_off_keeps_a_report_english(window: Window) -> None:
    # A greyed-out button's reason is a tooltip (Translate Tooltips), not a report.
    read = "result = [t['text'] for t in language_texts.reports('ready') if t['kind'] == 'report']"
    window.call("language_texts.set_language('en_US')\nlanguage_texts.set_up('ready', bpy)")
    english = window.call(read)
    window.call("language_texts.set_language('de_DE', reports=False)")
    kept = window.call(read)
    window.call("language_texts.set_language('de_DE')")
    german = window.call(read)
    window.call("language_texts.set_language('en_US')")
    assert len(english) >= 5
    assert kept == english
    pairs = list(zip(german, english, strict=True))
    assert all(g != e for g, e in pairs), pairs


# ------------------------------------------------------------------ the pictures


def shown_in(window: Window, locale: str) -> list[str]:
    """Blender set to ``locale``, and the Sidebar drawn in it and settled; what the Generate panel drew."""
    window.call(f"language_texts.set_language({locale!r})")
    drawn_now(window, "KILN_PT_jobs")
    time.sleep(1.0)  # panels glide to their new heights over a few redraws
    return drawn_now(window)


def test_ready_and_running_pictures_in_german_and_japanese(
    program: Program,
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
) -> None:
    sandbox = sandbox_factory(speed=0.1)  # a text job runs about a minute: time for both pictures
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    bar = open_kiln_tab(window)
    load_language_texts(program, window)
    paste_into_field(window, "bpy.context.scene.kiln.prompt", PICTURE_PROMPT)
    pictures: dict[str, Path] = {}
    drawn: dict[str, list[str]] = {}

    def take(state: str) -> None:
        drawn[f"{state}-{ENGLISH}"] = shown_in(window, ENGLISH)
        for locale in PICTURED:
            drawn[f"{state}-{locale}"] = shown_in(window, locale)
            pictures[f"{state}-{locale}"] = shot(window.display, f"sidebar-{state}-{locale}", bar)
        shown_in(window, ENGLISH)

    take("ready")
    window.display.click(*find_in_sidebar(window, "bpy.ops.kiln.generate_from_text"))
    # The service publishes no text price: the session's first such click asks once (test_pictures
    # pictures the question); Return sends.
    time.sleep(1.0)
    window.display.xdotool("key", "Return")
    window.wait_for("[j for j in kiln_jobs() if j['state'] == 'running']", timeout=60)
    take("running")
    assert window.call("result = [j['state'] for j in kiln_jobs()]") == ["running"]
    for name, picture in pictures.items():
        assert picture.stat().st_size > 10_000, name
    # What the pictured panel drew: each language its own words, none of them the English.
    for state in ("ready", "running"):
        english = {text for text in drawn[f"{state}-{ENGLISH}"] if counted(text)}
        for locale in PICTURED:
            assert not english & set(drawn[f"{state}-{locale}"]), (locale, drawn[f"{state}-{locale}"])
        assert drawn[f"{state}-de_DE"] != drawn[f"{state}-ja_JP"]
