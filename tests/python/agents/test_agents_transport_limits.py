"""The transport's limits on what a client may hold: a silent client is let go, connections are capped."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from agent_client import post
from agent_stand_in import StandInHost

from api.agents import AgentServer, AgentServerError, AgentSettings, transport

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture
def impatient(monkeypatch: pytest.MonkeyPatch, host: StandInHost, token: str) -> Iterator[AgentServer]:
    """A server whose socket timeout is half a second and that takes two connections at once."""
    monkeypatch.setattr(transport.Handler, "timeout", 0.5)
    monkeypatch.setattr(transport, "MAX_CONNECTIONS", 2)
    server = AgentServer(host, AgentSettings(token=token))
    server.start()
    yield server
    server.stop(timeout=5)


def _open(server: AgentServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def test_a_client_that_stops_sending_its_body_is_answered_408_and_let_go(
    impatient: AgentServer, token: str
) -> None:
    with _open(impatient) as client:
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{impatient.port}\r\nAuthorization: Bearer {token}\r\n"
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"'
        )
        client.sendall(head.encode())
        answer = b""
        while chunk := client.recv(4096):  # until the server closes the connection
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive in time" in answer


def test_connections_over_the_cap_are_turned_away_until_one_ends(impatient: AgentServer, token: str) -> None:
    silent = [_open(impatient), _open(impatient)]
    try:
        with pytest.raises(ConnectionError):
            post(impatient.url, PING, token)
    finally:
        for client in silent:
            client.close()
    for _attempt in range(50):
        try:
            assert post(impatient.url, PING, token).status == 400  # served again (no session yet)
            break
        except ConnectionError:
            time.sleep(0.05)
    else:
        pytest.fail("the server never took a connection again")


def test_a_taken_port_is_a_sentence(host: StandInHost, token: str) -> None:
    first = AgentServer(host, AgentSettings(token=token))
    first.start()
    try:
        second = AgentServer(host, AgentSettings(token=token, port=first.port))
        with pytest.raises(AgentServerError) as refused:
            second.start()
        assert f"Port {first.port} is taken by another program" in str(refused.value)
    finally:
        first.stop(timeout=5)
