"""The code of README.md and docs/scripting.md, run as written against the sandbox."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from batch_scripts import kiln_task_ids, run_child
from checkout import ROOT
from concepts import CONCEPTS

README = ROOT / "README.md"
SECTIONS = ROOT / "docs" / "scripting.md"
TRIPO_KEY = "tsk_live_scriptingpage000"


def blocks(language: str, page: Path = SECTIONS) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding what the snippets name: concept.png and the prompt files shown."""
    shutil.copy(CONCEPTS / "chair.png", tmp_path / "concept.png")
    (tmp_path / "props.txt").write_text(blocks("text")[0])
    (tmp_path / "props.csv").write_text(blocks("csv")[0])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_development_starts_with_exactly_make_demo_and_make_test() -> None:
    """The README opens with the artist's path; a developer's first commands are under For developers."""
    readme = README.read_text(encoding="utf-8")
    development = readme.split("## For developers", 1)[1].split("\n## ", 1)[0]
    assert blocks("sh", README)[0].split("\n")[:2] == ["make demo", "make test"]
    assert re.findall(r"^```sh\n(.*?)^```", development, flags=re.S | re.M) == ["make demo\nmake test\n"]
    assert "make " not in readme.split("## For developers", 1)[0].split("## Get started", 1)[1]


def test_readme_python_is_run_with_the_scripting_page() -> None:
    """The README's example is one of the scripting page's, so the test below runs it as written."""
    readme = blocks("python", README)
    assert readme
    assert set(readme) <= set(blocks("python"))


def test_python_snippets_run_in_blender(
    service: Any,
    blender: Any,
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    sandbox_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tripo = sandbox_factory(service="tripo", keys=[TRIPO_KEY])
    monkeypatch.setenv("KILN_TRIPO_BASE_URL", tripo.base_url)
    monkeypatch.setenv("KILN_TRIPO_API_KEY", TRIPO_KEY)
    snippets = blocks("python")
    assert len(snippets) == 8
    for snippet in snippets:
        exec(compile(snippet, str(SECTIONS), "exec"), {"__name__": "__snippet__"})
    assert tripo.submit_count == 1, "the other service's snippet went to Tripo"
    objects = [
        obj for obj in blender.data.objects if "kiln_task_id" in obj and obj["kiln_service"] == "INTERFACE"
    ]
    # one prompt, one image, three + two batch lines, two waited-for jobs, two placeholders; the CSV's
    # image line asks for the same bytes and resolution as the image snippet, so it is the library's
    # copy (not sent); three variants of the image at last
    assert len({obj["kiln_task_id"] for obj in objects}) == 13
    assert service.submit_count == 13
    placeholders = {obj["kiln_placeholder"] for obj in objects if "kiln_placeholder" in obj}
    variants = {name for name in placeholders if name.startswith("concept.png ")}  # the image's variants
    assert placeholders - variants == {"Barrel", "a street lamp"} and len(variants) == 1
    assert {"Hero lamp", "Scanned chair", "a blue lantern"} <= set(
        blender.data.collections["Kiln"].children.keys()
    )
    assert json.loads((workdir / "props-summary.json").read_text())["imported"] == 3
    printed = capsys.readouterr().out
    assert all(obj["kiln_task_id"] in printed for obj in objects)


def test_pipeline_command_runs_under_the_bpy_module(
    blender: Any, sandbox: Any, sandbox_key: str, workdir: Path
) -> None:
    command = shlex.split(next(block for block in blocks("sh") if "blender -b -P" in block))
    assert command[:3] == ["blender", "-b", "-P"]
    result = run_child([str(ROOT / command[3]), *command[4:]], cwd=workdir, sandbox=sandbox, key=sandbox_key)
    assert result.returncode == 0, result.stderr
    assert len(kiln_task_ids(blender, workdir / "props.blend")) == 3
    assert json.loads((workdir / "props.json").read_text())["imported"] == 3
