"""Every request says which Kiln sent it: the version in blender_manifest.toml, as agents are told."""

from __future__ import annotations

import tomllib

import pytest
from checkout import ROOT
from hostile_server import HostileServer

from api.errors import KilnError
from api.services.interface.client import Client
from api.version import kiln_version

KEY = "tsk_live_UserAgent0123456789abcd"


def manifest_version() -> str:
    with (ROOT / "blender_manifest.toml").open("rb") as f:
        return str(tomllib.load(f)["version"])


def test_a_real_request_carries_the_manifest_version() -> None:
    server = HostileServer()
    try:
        with pytest.raises(KilnError):  # the server knows no task; what it saw is the point
            Client(server.url, KEY).get_task("abc123")
    finally:
        server.close()
    (request,) = server.seen
    product = request.headers["user-agent"].split()[0]
    assert product == f"Kiln/{manifest_version()}"


def test_agents_are_told_the_manifest_version() -> None:
    assert kiln_version() == manifest_version() != "unknown"
