"""One Kiln library for a team: K Kilns (separate processes, each with its own user folder, as
separate machines or accounts) add M results each to one library folder at the same moment.

Checked: K×M entries (none lost), every .blend readable, and no half-written .blend ever read by
a Blender reading the folder the whole time; then a Kiln that generated nothing asks for one of
the prompts and gets the library's copy with zero submits. Run on a local folder and on a second
file system (an sshfs share, mounted once per Kiln: no locks shared between them).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS, ROOT
from network_share import shared_mounts, unavailable

pytestmark = pytest.mark.slow
log = logging.getLogger("kiln.tests.studio")

KILNS = int(os.environ.get("KILN_TEST_TEAM_KILNS", "4"))
RESULTS_EACH = int(os.environ.get("KILN_TEST_TEAM_RESULTS", "5"))


@pytest.fixture(params=["local", "sshfs"])
def team_folders(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, list[Path]]]:
    """The library as the test sees it, and as each of KILNS + 2 Blenders sees it."""
    if request.param == "local":
        folder = tmp_path / "library"
        folder.mkdir()
        yield folder, [folder] * (KILNS + 2)
        return
    why = unavailable()
    if why:
        pytest.skip(f"no second file system: {why}")
    with shared_mounts(tmp_path / "share", KILNS + 2) as (export, mounts):
        yield export, mounts


def child(script: str, env: dict[str, str], *args: str | Path) -> subprocess.Popen[str]:
    argv = [sys.executable, str(BLENDER_SCRIPTS / script), "--", *map(str, args)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("READY"):
            return
    raise AssertionError(f"a Kiln never got ready (exit {process.wait()})")


def report_of(process: subprocess.Popen[str], timeout: float = 600) -> dict[str, Any]:
    output, _ = process.communicate(timeout=timeout)
    lines = [line for line in output.splitlines() if line.startswith("REPORT ")]
    assert process.returncode == 0 and lines, output[-4000:]
    return json.loads(lines[-1][len("REPORT ") :])


def test_k_kilns_add_m_results_each_to_one_library_and_a_repeat_is_reused(
    team_folders: tuple[Path, list[Path]], sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    truth, views = team_folders
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "kiln").symlink_to(ROOT, target_is_directory=True)
    go, stop = tmp_path / "go", tmp_path / "stop"
    base = {**os.environ, "KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key}

    def env(name: str) -> dict[str, str]:
        user = tmp_path / "users" / name
        user.mkdir(parents=True)
        return {**base, "BLENDER_USER_RESOURCES": str(user)}

    reader = child("library_reader.py", env("reader"), views[-1], stop, KILNS * RESULTS_EACH)
    kilns = [
        child("library_child.py", env(f"kiln-{k}"), repo, views[k], go, "generate", f"prop {k}", RESULTS_EACH)
        for k in range(KILNS)
    ]
    for process in kilns:
        wait_ready(process)
    started = time.monotonic()
    go.touch()
    reports = [report_of(process) for process in kilns]
    adding = time.monotonic() - started
    stop.touch()
    read = report_of(reader)

    assert all(r["states"] == ["imported"] * RESULTS_EACH for r in reports), reports
    assert sandbox.submit_count == KILNS * RESULTS_EACH
    entry_files = [p for p in (truth / "kiln_index").iterdir() if p.suffix == ".json"]
    blends = sorted(truth.glob("*.blend"))
    assert len(entry_files) == len(blends) == KILNS * RESULTS_EACH
    assert not [p.name for p in truth.rglob("*") if p.name.endswith(".tmp")]
    assert read["bad"] == {}, read
    assert read["opened"] == KILNS * RESULTS_EACH and read["entries"] == KILNS * RESULTS_EACH
    catalogs = (truth / "blender_assets.cats.txt").read_text(encoding="utf-8").splitlines()
    assert len([line for line in catalogs if ":Kiln/" in line]) == 1

    sent = sandbox.submit_count
    go_again = tmp_path / "go-again"
    go_again.touch()
    reuse = child("library_child.py", env("newcomer"), repo, views[-2], go_again, "reuse", "  PROP 2 3 ")
    reused = report_of(reuse)
    assert sandbox.submit_count == sent, "an identical request was sent again"
    assert len(reused["reused"]) == 1 and reused["messages"] == ["{'FINISHED'}"], reused
    log.warning(
        "team library on %s: K=%d Kilns x M=%d results = %d entries, %d .blend files; adding took %.1f s "
        "(each Kiln %s s); the reader opened %d .blend files, none bad, and saw the last %.2f s after the "
        "Kilns finished; "
        "a repeat by a new Kiln took %.2f s with 0 submits",
        "sshfs" if truth != views[0] else "a local folder",
        KILNS,
        RESULTS_EACH,
        len(entry_files),
        len(blends),
        adding,
        [r["seconds"] for r in reports],
        read["opened"],
        read["settle"],
        reused["seconds"],
    )
