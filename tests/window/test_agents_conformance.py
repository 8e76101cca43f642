"""The MCP conformance suite (npm's ``@modelcontextprotocol/conformance``) against Kiln's agent server.

The suite needs Node 22 or newer, which Debian's ``nodejs`` in the window suite's chroot has; the
chroot shares this machine's network, so the suite reaches a server this test starts on 127.0.0.1.
The server scenarios that apply to Kiln run: ``server-initialize``, ``ping``, ``tools-list`` and
``dns-rebinding-protection`` (the others exercise features Kiln does not offer: resources, prompts,
logging, sampling, elicitation, completion, or the suite's own ``test_*`` tools).

The suite's client cannot send a header, and Kiln answers nobody without its token; a proxy
(``bearer_proxy``) adds the header as an artist's client configuration does and passes everything
else as sent, so the DNS-rebinding scenario's foreign Host still reaches Kiln's gate unchanged.
npm's download is cached under the chroot's ``/var/cache/kiln-npm`` (the suite's version pinned), so
a run after the first needs no network.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_stand_in import StandInHost
from bearer_proxy import BearerProxy
from concepts import CONCEPTS
from program import Program

from api.agents import AgentServer, AgentSettings, new_token

CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"
SCENARIOS = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection")
NPM_HOME = "/var/cache/kiln-npm"
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


@pytest.fixture(scope="module")
def npm_env(program: Program) -> dict[str, str]:
    """npm inside the chroot: its cache kept between runs, and this machine's certificate authorities."""
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


@pytest.fixture
def kiln_behind_the_header() -> Iterator[str]:
    """Kiln's agent server (the stand-in host), reached through the proxy that adds its token."""
    host = StandInHost(preview=CONCEPTS / "teapot.png")
    token = new_token()
    server = AgentServer(host, AgentSettings(token=token))
    server.start()
    try:
        with BearerProxy(server.url, token) as proxy:
            yield proxy.url
    finally:
        server.stop(timeout=5)
        host.close()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(
    program: Program, npm_env: dict[str, str], kiln_behind_the_header: str, scenario: str
) -> None:
    results = program.workdir(f"conformance-{scenario}")
    argv = ["npx", "--yes", CONFORMANCE, "server", "--url", kiln_behind_the_header, "--scenario", scenario,
            "-o", program.inside(results)]  # fmt: skip
    done = program.run(argv, env=npm_env, timeout=300)
    found = sorted(results.glob("*/checks.json"))
    assert found, (
        f"the suite wrote no results (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    checks = json.loads(found[-1].read_text())
    failed = [check for check in checks if check["status"] not in ("SUCCESS", "INFO")]
    assert checks and not failed, json.dumps(failed, indent=2)
    assert done.returncode == 0, done.stdout[-3000:]
