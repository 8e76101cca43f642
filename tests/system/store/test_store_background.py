"""``blender -b`` hears what the artist's window shows: damage found in the job list is written to
its console (Kiln's logger, WARNING) the moment it is found, where a pipeline's log keeps it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import BLENDER_SCRIPTS
from plain_words import internals_in

SCRIPT = BLENDER_SCRIPTS / "open_job_list.py"
STORE = "jobs.sqlite3"


def background_blender(user: Path, repo: Path) -> tuple[str, Path]:
    """Run the child Blender on ``user``; returns its whole output and Kiln's folder."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--", str(repo)],
        env={**os.environ, "BLENDER_USER_RESOURCES": str(user)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "STATE " in result.stdout, output[-3000:]
    state = Path(result.stdout.split("STATE ", 1)[1].splitlines()[0])
    return output, state


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A user folder where a Blender's Kiln has written its job list, and that folder within it."""
    root = tmp_path_factory.mktemp("written")
    output, state = background_blender(root / "user", root / "repo")
    assert (state / STORE).stat().st_size > 0 and "damaged" not in output
    return root / "user", state.relative_to(root / "user")


def _damage(state: Path, damage: str) -> bytes:
    """Damage Kiln's list as ``damage`` says; returns the damaged bytes a backup must keep."""
    data = {
        "garbage store": os.urandom(8192),
        "emptied store": b"",
        "garbage write-ahead log": os.urandom(8192),
        "damaged jobs.json": b'{"format": 1, "jobs": [{"id": "a", "request": {"ki',
    }[damage]
    name = {"garbage write-ahead log": f"{STORE}-wal", "damaged jobs.json": "jobs.json"}.get(damage, STORE)
    (state / name).write_bytes(data)
    return data


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage", ["garbage store", "emptied store", "garbage write-ahead log", "damaged jobs.json"]
)
def test_background_blender_says_the_damage_on_its_console(
    written: tuple[Path, Path], tmp_path: Path, damage: str
) -> None:
    user_written, state_in_user = written
    user = tmp_path / "user"
    shutil.copytree(user_written, user, symlinks=True)
    damaged = _damage(user / state_in_user, damage)

    output, state = background_blender(user, tmp_path / "repo")
    backups = [p for p in state.iterdir() if ".damaged-" in p.name and not p.name.endswith("-shm")]
    kept = {p.read_bytes() for p in backups}
    assert damaged in kept, f"the damaged bytes were not kept: {[p.name for p in backups]}"
    # Kiln's name once: "Kiln: …", or the sentence itself opening with it (one place decides).
    said = [line for line in output.splitlines() if line.startswith("Kiln") and "job list" in line]
    assert said, output[-3000:]
    (sentence,) = said
    assert str(state) not in sentence and "Kiln kept a copy of it in its user folder" in sentence, sentence
    assert not internals_in(sentence) and sentence.isprintable(), sentence
    assert any(p.name in output.replace(sentence, "") for p in backups), (
        "the file's name is in the console log"
    )
