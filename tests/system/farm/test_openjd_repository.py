"""The farm template taking Kiln from the studio's extension repository (KilnRepository) instead of a zip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from farm_tools import FARM_SCRIPT, ROOT, assets, openjd_run, service_env, summary_rows

sys.path.insert(0, str(ROOT / "tools"))
from build import this_platform

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make repo`` into a temp folder; returns that folder."""
    sys.path.insert(0, str(ROOT / "tools"))
    import repo

    return repo.publish(tmp_path_factory.mktemp("repo") / "repo").parent


def test_workers_take_kiln_from_the_repository_url(
    openjd: Path, repository: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a red chair\na blue table\n", encoding="utf-8")
    output = tmp_path / "out"
    job = {
        "PromptsFile": prompts,
        "PromptCount": 2,
        "OutputDir": output,
        "KilnRepository": (repository / "index.json").as_uri(),
        "FarmScript": FARM_SCRIPT,
        "BlenderExecutable": blender_exe,
        "ChunkSize": 2,
    }
    run = openjd_run(openjd, job, service_env(sandbox.base_url, sandbox_key))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert sandbox.submit_count == 2
    assert sorted(assets(output)) == [
        "0001-a-red-chair.blend",
        "0001-a-red-chair.glb",
        "0002-a-blue-table.blend",
        "0002-a-blue-table.glb",
    ]
    assert {row["state"] for row in summary_rows(output)} == {"done"}
    assert f"from {(repository / 'kiln-').as_uri()}" in run.stdout


def estimate(prompts: Path, *source: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(FARM_SCRIPT), "estimate", str(prompts), *source]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_zip_that_does_not_match_the_listing_is_refused(repository: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a red chair\n", encoding="utf-8")
    assert estimate(prompts, "--kiln-repository", repository.as_uri()).returncode == 0

    tampered = tmp_path / "tampered"
    tampered.mkdir()
    (tampered / "index.json").write_bytes((repository / "index.json").read_bytes())
    (zip_path,) = repository.glob(f"kiln-*-{this_platform().replace('-', '_')}.zip")  # what a worker takes
    data = bytearray(zip_path.read_bytes())
    data[100] ^= 0xFF
    (tampered / zip_path.name).write_bytes(bytes(data))
    refused = estimate(prompts, "--kiln-repository", tampered.as_uri())
    assert refused.returncode == 2
    assert "does not match the repository's listing" in refused.stderr

    nothing = estimate(prompts, "--kiln-repository", (tmp_path / "missing").as_uri())
    assert nothing.returncode == 2
    assert "Could not read the repository listing" in nothing.stderr
