"""tools/canary.py against the stand-ins: the free calls pass where every answer keeps its shape, a
service without a key is skipped with a line, and a service that moved fails the run loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.server import Sandbox

ROOT = Path(__file__).resolve().parents[3]
MESHY_KEY = "msy_live_canarytest000"
RODIN_KEY = "rodin_live_canarytest00"


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    with (
        Sandbox(service="meshy", keys=[MESHY_KEY], credits=500) as meshy,
        Sandbox(service="rodin", keys=[RODIN_KEY], credits=500) as rodin,
    ):
        yield {"MESHY": meshy, "RODIN": rodin}


def canary(env: dict[str, str], *services: str) -> subprocess.CompletedProcess[str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("KILN_")}
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "canary.py"), *services],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_free_calls_pass_where_every_answer_keeps_its_shape(stand_ins: dict[str, Sandbox]) -> None:
    run = canary(
        {
            "KILN_MESHY_API_KEY": MESHY_KEY,
            "KILN_MESHY_BASE_URL": stand_ins["MESHY"].base_url,
            "KILN_RODIN_API_KEY": RODIN_KEY,
            "KILN_RODIN_BASE_URL": stand_ins["RODIN"].base_url,
        }
    )
    lines = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "MESHY: ok" in run.stdout and "RODIN: ok" in run.stdout
    assert "TRIPO: skipped, KILN_TRIPO_API_KEY is not set" in lines
    assert not any("INTERFACE" in line for line in lines), "the custom service has no fixed API to watch"
    assert MESHY_KEY not in run.stdout + run.stderr and RODIN_KEY not in run.stdout + run.stderr
    # Only free calls: Rodin's status is a POST, Meshy's never; nothing was generated.
    assert not [t for s in stand_ins.values() for t in s.tasks.values() if t.key in (MESHY_KEY, RODIN_KEY)]
    assert not [r for r in stand_ins["MESHY"].requests if r.method == "POST"]
    assert {r.path for r in stand_ins["RODIN"].requests if r.method == "POST"} == {"/api/v2/status"}


def test_a_service_that_moved_fails_the_run_loudly(stand_ins: dict[str, Sandbox]) -> None:
    run = canary(
        {"KILN_MESHY_API_KEY": MESHY_KEY, "KILN_MESHY_BASE_URL": stand_ins["MESHY"].base_url + "/gone"},
        "MESHY",
    )
    assert run.returncode == 1
    assert "MESHY: FAILED: Test Connection failed (ServiceMovedError)" in run.stdout
    assert "TRIPO" not in run.stdout, "only the services named are checked"


def test_a_wrong_key_fails_the_run(stand_ins: dict[str, Sandbox]) -> None:
    run = canary(
        {"KILN_RODIN_API_KEY": "rodin_live_notthekey000", "KILN_RODIN_BASE_URL": stand_ins["RODIN"].base_url},
        "rodin",
    )
    assert run.returncode == 1 and "RODIN: FAILED: Test Connection failed (AuthError)" in run.stdout
