"""One name per thing: the glossary of what an artist reads, held against the catalogue, the artists'
pages and the seven languages. A second name for a thing (a "task" beside a "job", a "Text-to-3D
Price" beside the Text Job Price) fails here, with the entry or the page that says it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from artist_pages import artist_pages, artist_text

from api.words import Label, Plural, catalogue, translations

ROOT = Path(__file__).resolve().parents[3]

#: Each thing's one name, and the second names it must not be called by (patterns, case kept).
GLOSSARY: dict[str, tuple[str, ...]] = {
    # What Kiln sends and follows is a job; the service's id for it is the job's ID.
    "job": (
        r"\btasks?\b",
        r"\bTasks?\b",
        r"\bTask ID\b",
        r"Service id",
        r"\b(this|identical|earlier|the) request\b",
    ),
    "Text Job Price": (r"Text-to-3D Price", r"Set Text Price", r"\btext price\b", r"\btext-to-3D\b"),
    "Ask Above": (r"Ask Before Spending",),
    "Max Credits": (r"\(max_credits\)",),
    # "Ready to import" is a job's state; a result's quality line says clean, check or problems.
    "Ready to import": (r"(?<![-\w])ready(?! to import)(?![-\w])",),
    "Unclear: check your dashboard": (r"Not sent again", r"check first"),
    "Kiln's log": (r"the system console",),
    # The service's model picker is the Model; "quality" is the quality line of a finished mesh.
    "Model": (r"\bQuality\b(?! line)", r"\bquality tier\b", r"\bno quality called\b"),
    # What the service is asked for is the Face Limit; Kiln's own reduction is the Triangle Budget.
    "Face Limit": (r"\b[Pp]olygon [Bb]udget\b",),
    "Triangle Budget": (r"\b[Tt]riangle [Ll]imit\b", r"\b[Pp]olygon [Ll]imit\b"),
    "API key": (r"\b[Ss]ecret key\b", r"\bAPI-key\b"),
    "triangles": (r"\btris?\b",),
}


#: Settings and buttons whose name, translated, every sentence that names them must use.
NAMED: tuple[str, ...] = (
    "OPTION_TEXT_COST.name",
    "OPTION_ASK_ABOVE.name",
    "OPTION_ASK_UNKNOWN_PRICE.name",
    "OPTION_MAX_CREDITS.name",
    "OPTION_TIMEOUT_MINUTES.name",
    "OP_RETRY.name",
    "OP_RESUME.name",
    "OP_COPY_DETAILS.name",
    "OP_STOP_WAITING.name",
    "ARG_TASK_ID.name",
    "ARG_POLYGONS.name",
    "OPTION_TRIANGLES.name",
)
#: The one word each language has for a job (a stem: German declines it).
JOB_WORD = {
    "de_DE": "auftr",
    "fr_FR": "tâche",
    "es": "tarea",
    "pt_BR": "tarefa",
    "ja_JP": "ジョブ",
    "zh_HANS": "任务",
    "ko_KR": "작업",
}
#: A unit after a setting's name ("Give Up After (Minutes)"): sentences name the setting without it.
UNIT = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")
FIELD = re.compile(r"\{[^}]*\}")


def english_texts() -> Iterator[tuple[str, str]]:
    """Every English text of the catalogue, by entry name (a Label's name and tip apart)."""
    for name, value in vars(catalogue).items():
        if name.startswith("_") or not name.isupper():
            continue
        if isinstance(value, Label):
            yield f"{name}.name", value.name
            yield f"{name}.tip", value.tip
        elif isinstance(value, Plural):
            yield from ((name, form) for form in (value.one, value.other))
        elif isinstance(value, str):
            yield name, value


def second_names(text: str) -> list[str]:
    """The second names ``text`` uses, as "second name (for the one name)"."""
    plain = FIELD.sub("", text)
    return [
        f"“{match.group(0)}” (say {one})"
        for one, patterns in GLOSSARY.items()
        for pattern in patterns
        for match in re.finditer(pattern, plain)
    ]


def test_the_catalogue_calls_each_thing_by_one_name() -> None:
    found = [f"{name}: {said}" for name, text in english_texts() for said in second_names(text)]
    assert found == []


@pytest.mark.parametrize("page", artist_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_artists_pages_call_each_thing_by_the_panels_name(page: Path) -> None:
    """Every page ``artist_pages.ARTIST_PAGES`` names (the services' pages among them)."""
    text = re.sub(r"`[^`]*`", "", artist_text(page))  # code is code
    found = [
        f"line {n}: {said}" for n, line in enumerate(text.splitlines(), 1) for said in second_names(line)
    ]
    assert found == []


@pytest.mark.parametrize("locale", sorted(translations.LOCALES))
def test_each_language_calls_each_thing_by_one_name(locale: str) -> None:
    entries = translations.load(locale).entries
    wrong = []
    for term in NAMED:
        english, translated = (UNIT.sub("", text) for text in (entries[term].msgid, entries[term].msgstr[0]))
        naming = re.compile(rf"(?<![\w-]){re.escape(english)}(?![\w-])")
        for context, entry in entries.items():
            if (
                context != term
                and naming.search(entry.msgid)
                and not all(translated in s for s in entry.msgstr)
            ):
                wrong.append(f"{context}: names {english} but not “{translated}”")
    for context, entry in entries.items():
        names_a_job = re.search(r"\b[Jj]obs?\b", FIELD.sub("", entry.msgid))
        if names_a_job and not all(JOB_WORD[locale] in s.lower() for s in entry.msgstr):
            wrong.append(f"{context}: a job, not called “{JOB_WORD[locale]}…”")
    assert wrong == []


def test_a_second_name_fails() -> None:
    assert sorted(second_names("Set the Text-to-3D Price, then check the task.")) == [
        "“Text-to-3D Price” (say Text Job Price)",
        "“task” (say job)",
    ]
    assert second_names("The quality line says ready.") == ["“ready” (say Ready to import)"]
    assert second_names("Quality v3.1, Polygon Budget 0, 4,136 tris; create a new secret key") == [
        "“Quality” (say Model)",
        "“Polygon Budget” (say Face Limit)",
        "“secret key” (say API key)",
        "“tris” (say triangles)",
    ]
    assert second_names("“{name}” is ready to import: press Import. A game-ready mesh.") == []
