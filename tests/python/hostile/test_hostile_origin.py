"""The key goes only to the service's origin, as urllib3 connects, on every hop; echoed keys are removed."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from hostile_glb import good_glb
from hostile_kit import KEY, assert_sentence, client_for, completed, raw_glb, task
from hostile_server import HostileServer, json_answer, redirect

from api.errors import AuthError, BadRequestError, InputError, TaskFailedError, UnsafeAddressError
from api.services.interface.client import Client

POLL = "/v1/3d/tasks/task_1"


def test_a_download_from_another_origin_gets_no_key(
    service: HostileServer, other: HostileServer, tmp_path: Path
) -> None:
    other.routes["/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download(f"{other.url}/m.glb", tmp_path / "m.glb")
    assert len(other.seen) == 1 and "authorization" not in other.seen[0].headers


def test_a_download_from_the_service_itself_carries_the_key(service: HostileServer, tmp_path: Path) -> None:
    service.routes["/files/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert service.seen[0].headers["authorization"] == f"Bearer {KEY}"  # the test can tell the difference


def odd_urls(service: HostileServer, other: HostileServer) -> dict[str, str]:
    host, port = "127.0.0.1", service.port
    return {
        # urlsplit reads the service's host after '@'; urllib3 reads up to the backslash: the other port.
        "backslash before @": f"http://{host}:{other.port}\\@{host}:{port}/m.glb",
        "backslash path": f"http://{host}:{port}\\..\\m.glb",
        "user info": f"http://user:pw@{host}:{port}/m.glb",
        "user info to other": f"http://{host}:{port}@{host}:{other.port}/m.glb",
        "space": f"http://{host}:{port}/m .glb",
        "tab in host": f"http://{host}\t:{port}/m.glb",
        "crlf header injection": f"http://{host}:{port}/m.glb\r\nX-Evil: 1",
        "nul": f"http://{host}:{port}/m.glb\x00",
        "file scheme": "file:///etc/passwd",
        "ftp scheme": f"ftp://{host}:{port}/m.glb",
        "no scheme host": f"//{host}:{other.port}/m.glb",
        "plain http elsewhere": "http://example.com/m.glb",
        "bad port": f"http://{host}:99999/m.glb",
        "zero width space": f"http://{host}:{port}\u200b/m.glb",
    }


@pytest.mark.parametrize(
    "name",
    [
        "backslash before @",
        "backslash path",
        "user info",
        "user info to other",
        "space",
        "tab in host",
        "crlf header injection",
        "nul",
        "file scheme",
        "ftp scheme",
        "plain http elsewhere",
        "bad port",
        "zero width space",
    ],
)
def test_an_odd_mesh_url_is_refused_before_any_connection(
    service: HostileServer, other: HostileServer, tmp_path: Path, name: str
) -> None:
    url = odd_urls(service, other)[name]
    with client_for(service) as client, pytest.raises(UnsafeAddressError) as caught:
        client.download(url, tmp_path / "m.glb")
    assert_sentence(caught.value)
    assert service.seen == [] and other.seen == []
    assert list(tmp_path.iterdir()) == []


def test_a_scheme_relative_mesh_url_is_judged_as_another_origin(
    service: HostileServer, other: HostileServer, tmp_path: Path
) -> None:
    other.routes["/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download(odd_urls(service, other)["no scheme host"], tmp_path / "m.glb")
    assert len(other.seen) == 1 and "authorization" not in other.seen[0].headers


def test_a_redirect_to_another_origin_drops_the_key(
    service: HostileServer, other: HostileServer, tmp_path: Path
) -> None:
    service.routes["/files/m.glb"] = redirect(f"{other.url}/m.glb")
    other.routes["/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert "authorization" in service.seen[0].headers and "authorization" not in other.seen[0].headers


@pytest.mark.parametrize(
    "name", ["backslash before @", "user info to other", "backslash path", "file scheme"]
)
def test_an_odd_redirect_is_refused(
    service: HostileServer, other: HostileServer, tmp_path: Path, name: str
) -> None:
    service.routes["/files/m.glb"] = redirect(odd_urls(service, other)[name])
    with client_for(service) as client, pytest.raises(UnsafeAddressError) as caught:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert "redirect" in assert_sentence(caught.value)
    assert other.seen == [] and len(service.seen) == 1


def test_a_poll_redirected_to_another_origin_carries_no_key(
    service: HostileServer, other: HostileServer
) -> None:
    service.routes[POLL] = redirect(f"{other.url}{POLL}", 307)
    other.routes[POLL] = json_answer(200, task("task_1", "running"))
    with client_for(service) as client:
        assert client.get_task("task_1").id == "task_1"
    assert "authorization" not in other.seen[0].headers


def test_a_redirect_chain_through_another_origin_gives_the_key_back_only_at_home(
    service: HostileServer, other: HostileServer, tmp_path: Path
) -> None:
    service.routes["/files/a.glb"] = redirect(f"{other.url}/b.glb")
    other.routes["/b.glb"] = redirect(f"{service.url}/files/c.glb")
    service.routes["/files/c.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download("/files/a.glb", tmp_path / "m.glb")
    assert [("authorization" in r.headers) for r in service.seen] == [True, True]
    assert "authorization" not in other.seen[0].headers


@pytest.mark.parametrize(
    "base",
    [
        "http://127.0.0.1:1\\@example.com",
        "http://user:pw@127.0.0.1:1",
        "http://127.0.0.1:1/v1 x",
        "javascript:alert(1)",
        "http://127.0.0.1:1\r\n/x",
    ],
)
def test_an_odd_service_url_is_refused(base: str) -> None:
    with pytest.raises(InputError) as caught:
        Client(base, KEY)
    assert_sentence(caught.value)


ECHOES = {
    "as is": f"Invalid header: Authorization: Bearer {KEY}",
    "url-encoded": f"bad token {quote(KEY, safe='')} given",
    "in a nested object": {"error": {"message": f"denied for Bearer {KEY}", "code": "E1"}},
}


@pytest.mark.parametrize("how", ECHOES)
def test_a_failed_task_echoing_the_key_is_redacted(service: HostileServer, how: str) -> None:
    service.routes[POLL] = json_answer(200, task("task_1", "failed", error=ECHOES[how]))
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.error and KEY not in polled.error and "***" in polled.error
    with pytest.raises(TaskFailedError) as caught:
        polled.raise_if_failed()
    assert_sentence(caught.value)


def test_an_auth_error_echoing_the_key_is_redacted(service: HostileServer) -> None:
    service.routes["/v1/3d/text-to-3d"] = json_answer(401, {"detail": f"key {KEY} revoked"})
    with client_for(service) as client, pytest.raises(AuthError) as caught:
        client.submit_text("a chair")
    assert "***" in assert_sentence(caught.value)


def test_a_plain_text_error_echoing_the_key_is_redacted(service: HostileServer) -> None:
    service.routes[POLL] = json_answer(400, f"Bad request from Bearer {KEY}\n", Content_Type="text/plain")
    with client_for(service) as client, pytest.raises(BadRequestError) as caught:
        client.get_task("task_1")
    assert "***" in assert_sentence(caught.value)


def test_urls_and_statuses_echoing_the_key_are_redacted(service: HostileServer) -> None:
    mesh = f"https://cdn.example.com/m.glb?token={KEY}"
    answer = completed("task_1", mesh, result={"preview_image_url": f"{mesh}&p=1"}, links={"poll": mesh})
    service.routes[POLL] = json_answer(200, {**answer, "status": f"done {KEY}"})
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.result is not None
    texts = [polled.raw_status, polled.result.mesh_url, polled.result.preview_image_url, polled.poll_url]
    assert all(KEY not in (t or "") for t in texts) and "***" in (polled.result.mesh_url or "")


def test_an_error_cut_short_inside_the_key_leaves_no_part_of_it(service: HostileServer) -> None:
    words = "x" * 380 + f" Bearer {KEY}"  # the error is cut to 400 characters, inside the key
    service.routes[POLL] = json_answer(200, task("task_1", "failed", error=words))
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.error is not None and polled.error.endswith("***…")
    assert KEY[:8] not in polled.error


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:8443/m.glb",
        "https://localhost/m.glb",
        "https://admin.localhost/m.glb",
        "https://[::1]/m.glb",
        "https://10.0.0.5/m.glb",
        "https://192.168.1.1/m.glb",
        "https://169.254.169.254/latest/meta-data/",
        "https://[fd00::1]/m.glb",
        "https://0.0.0.0/m.glb",
    ],
)
def test_a_remote_service_cannot_send_kiln_to_the_artists_own_network(tmp_path: Path, url: str) -> None:
    """A link to 127.0.0.1 or the cloud metadata address would make Kiln probe the artist's machine."""
    with Client("https://api.example.com", KEY) as client:
        with pytest.raises(UnsafeAddressError) as caught:
            client.download(url, tmp_path / "m.glb")
        assert "local network" in assert_sentence(caught.value)
        assert client._http.problem(url) is not None  # the same judge refuses such a redirect hop
        assert client._http.problem("https://cdn.example.com/m.glb") is None
    assert list(tmp_path.iterdir()) == []


def test_a_service_on_this_computer_may_link_to_this_computer(
    service: HostileServer, other: HostileServer, tmp_path: Path
) -> None:
    other.routes["/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        client.download(f"{other.url}/m.glb", tmp_path / "m.glb")
    assert len(other.seen) == 1
