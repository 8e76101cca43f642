"""The MCP conformance suite (npm's ``@modelcontextprotocol/conformance``), run inside the window
suite's chroot against a server on this machine's loopback (the chroot shares its network).

The suite needs Node 22 or newer, which Debian's ``nodejs`` in the chroot has. The server scenarios
that apply to Kiln are :data:`SCENARIOS` (the others exercise features Kiln does not offer:
resources, prompts, logging, sampling, elicitation, completion, or the suite's own ``test_*``
tools). The suite's client cannot send a header (``server --help`` of 0.1.16 has no option for one),
and Kiln answers nobody without its token, so a test puts ``bearer_proxy`` in between. npm's
download is cached under the chroot's ``/var/cache/kiln-npm`` (the suite's version pinned), so a run
after the first needs no network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from program import Program

CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"
SCENARIOS = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection")
NPM_HOME = "/var/cache/kiln-npm"
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def npm_env(program: Program) -> dict[str, str]:
    """npm inside the chroot: its cache kept between runs, and this machine's certificate authorities
    (skips the test where the chroot has no npx)."""
    if shutil.which("chroot") is None or not (program.root / "usr" / "bin" / "npx").exists():
        pytest.skip("The window suite's chroot has no npx (tools/window_chroot.sh installs nodejs and npm).")
    home = program.root / NPM_HOME.lstrip("/")
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": NPM_HOME,
        "npm_config_cache": f"{NPM_HOME}/cache",
        "npm_config_prefer_offline": "true",
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }
    if HOST_CA_BUNDLE.is_file():
        shutil.copyfile(HOST_CA_BUNDLE, home / "ca.crt")
        env["npm_config_cafile"] = f"{NPM_HOME}/ca.crt"
    return env


def failed_checks(program: Program, env: dict[str, str], url: str, scenario: str) -> list[dict[str, Any]]:
    """Run one scenario against ``url``; the checks that did not pass (fails when the suite wrote none
    or exited non-zero)."""
    results = program.workdir(f"conformance-{scenario}")
    argv = ["npx", "--yes", CONFORMANCE, "server", "--url", url, "--scenario", scenario,
            "-o", program.inside(results)]  # fmt: skip
    done = program.run(argv, env=env, timeout=300)
    found = sorted(results.glob("*/checks.json"))
    assert found, (
        f"the suite wrote no results (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    checks = json.loads(found[-1].read_text())
    assert checks, f"the suite checked nothing:\n{done.stdout[-3000:]}"
    failed = [check for check in checks if check["status"] not in ("SUCCESS", "INFO")]
    if not failed:
        assert done.returncode == 0, done.stdout[-3000:]
    return failed
