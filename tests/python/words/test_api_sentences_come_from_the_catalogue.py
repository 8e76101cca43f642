"""No module of api/ builds a sentence for the artist outside the catalogue, read from the source.

A KilnError (or any subclass) made from a string literal or an f-string, a job's error or note set
from one (``settle``, ``note``, ``mark_failed``), or a message made from one, is a sentence written
outside ``api/words/catalogue.py``: untranslatable, and free to carry internals. The words room
itself, the agents' room (English tool words for agents, not an artist's) and vendored code are
left out. The scan is checked against a snippet that breaks every rule, so it cannot pass by
finding nothing.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import api
from api.errors import KilnError

API = Path(api.__file__).resolve().parent
SKIPPED = ("words", "agents", "vendor")

#: Calls whose sentence argument is (position, keyword): a job's error or note, a message.
SENTENCE_CALLS = {
    "settle": (None, ("note", "error")),
    "note": (1, ()),
    "mark_failed": (1, ()),
    "message": (0, ()),
    "as_message": (0, ()),
}


def _error_class_names() -> set[str]:
    for module in pkgutil.walk_packages(api.__path__, "api."):
        if not module.name.startswith(("api.agents", "api.vendor")):
            importlib.import_module(module.name)

    def below(cls: type[KilnError]) -> Iterator[type[KilnError]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    return {cls.__name__ for cls in (KilnError, *below(KilnError))}


def _is_text(node: ast.AST | None) -> bool:
    """A sentence written in place: a string literal or an f-string."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def sentences_outside_the_catalogue(source: str, errors: set[str]) -> list[str]:
    """Each call in ``source`` that says a sentence written in place: "line: call"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name in errors and node.args and _is_text(node.args[0]):
            found.append(f"{node.lineno}: {name}(…)")
        if name in SENTENCE_CALLS:
            position, keywords = SENTENCE_CALLS[name]
            said = [k.value for k in node.keywords if k.arg in keywords]
            if position is not None and len(node.args) > position:
                said.append(node.args[position])
            if any(_is_text(value) for value in said):
                found.append(f"{node.lineno}: {name}(…)")
    return found


def test_the_scan_finds_every_kind_of_sentence_written_in_place() -> None:
    snippet = """
raise KilnError("Something went wrong.")
raise InvalidMeshError(f"the file is {size} bytes")
book.settle(job_id, JobState.FAILED, error=f"Task {task_id} failed.")
self.book.settle(job_id, JobState.CANCELLED, note="Cancelled")
book.note(job_id, f"Downloading {n}%")
engine.mark_failed(job.id, "The import failed.")
message("Sending")
raise InputError(words.PROMPT_EMPTY)
raise InvalidMeshError(problem=f"the file is {size} bytes")
book.note(job_id, message(words.NOTE_SENDING))
"""
    found = sentences_outside_the_catalogue(snippet, {"KilnError", "InvalidMeshError", "InputError"})
    assert [line.split(":")[0] for line in found] == ["2", "3", "4", "5", "6", "7", "8"]


def test_no_api_module_says_a_sentence_outside_the_catalogue() -> None:
    errors = _error_class_names()
    found = {}
    for path in sorted(API.rglob("*.py")):
        if path.relative_to(API).parts[0] in SKIPPED:
            continue
        calls = sentences_outside_the_catalogue(path.read_text(encoding="utf-8"), errors)
        if calls:
            found[path.relative_to(API).as_posix()] = calls
    assert found == {}, "say these through a catalogue entry (api/words/catalogue.py)"
