"""`python -m sandbox` as a developer runs it: prints its URL, serves, stops on SIGTERM."""

from __future__ import annotations

import subprocess
import sys

import requests
from checkout import ROOT
from sandbox_http import run_text

REPO = ROOT
KEY = "kiln_live_clitest000000"


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "sandbox", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cli_prints_its_url_and_serves_until_terminated():
    process = _start("--host", "127.0.0.1", "--port", "0", "--key", KEY, "--speed", "50")
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("Kiln sandbox listening on ")
        base_url = line.split()[-1]
        assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith("/")
        final = run_text(base_url, KEY, "a green tree")
        assert final["status"] == "completed"
        assert requests.get(final["result"]["mesh_url"], timeout=10).content[:4] == b"glTF"
    finally:
        process.terminate()
        _out, err = process.communicate(timeout=15)
    assert process.returncode == 0, err


def test_cli_refuses_bad_arguments():
    for args in (["--key", "not-a-live-key"], ["--faults", "teapot=1"]):
        process = _start("--port", "0", *args)
        _out, err = process.communicate(timeout=30)
        assert process.returncode != 0
        assert "sandbox:" in err
