"""Fault injection: each fault kind as a client meets it over HTTP, scoping, and determinism."""

from __future__ import annotations

import io
import json
import struct
import time
from urllib.parse import urlsplit

import pytest
import requests
import trimesh
from sandbox_http import assert_error, auth, run_text, submit_image, submit_text, wait_final

from sandbox.faults import FaultSpec


def _poll(sandbox, key, poll_url=None):
    return requests.get(poll_url or f"{sandbox.base_url}/v1/3d/tasks/none", headers=auth(key), timeout=10)


def _finished(sandbox, key, prompt="a rock"):
    """A completed task's poll body, reached before any fault is switched on."""
    return run_text(sandbox.base_url, key, prompt)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("", FaultSpec()),
        ("503=0.2, reset=0.1", FaultSpec(http={"503": 0.2, "reset": 0.1})),
        ("scope=poll|files,latency=0.5", FaultSpec(scope=frozenset({"poll", "files"}), latency=0.5)),
        ("scope=all,cdn=1,slow=5000,restart_after=3", FaultSpec(cdn=True, slow=5000, restart_after=3)),
        (
            "fail=0.2,fail_object=0.1,corrupt=0.5,truncate=0.5",
            FaultSpec(fail=0.2, fail_object=0.1, corrupt=0.5, truncate=0.5),
        ),
        ("429=1,retry_after=7", FaultSpec(http={"429": 1.0}, retry_after=7)),
    ],
)
def test_fault_spec_grammar(spec, expected):
    assert FaultSpec.parse(spec) == expected


@pytest.mark.parametrize(
    "spec",
    [
        "503",
        "teapot=1",
        "500=1.5",
        "500=0.6,503=0.6",
        "fail=0.7,fail_object=0.7",
        "corrupt=0.6,truncate=0.6",
        "scope=everything",
        "latency=-1",
        "500=x",
    ],
)
def test_fault_spec_errors(spec):
    with pytest.raises(ValueError):
        FaultSpec.parse(spec)


def test_500_is_a_json_error(sandbox, sandbox_key):
    sandbox.set_faults("500=1")
    assert_error(_poll(sandbox, sandbox_key), 500, "internal_error")


def test_502_is_an_html_proxy_page(sandbox, sandbox_key):
    sandbox.set_faults("502=1")
    response = _poll(sandbox, sandbox_key)
    assert response.status_code == 502
    assert response.headers["content-type"].startswith("text/html")
    assert "<html>" in response.text and "502 Bad Gateway" in response.text
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.text)


def test_503_with_retry_after(sandbox, sandbox_key):
    sandbox.set_faults("503=1,retry_after=3")
    response = _poll(sandbox, sandbox_key)
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == "3"


def test_429_with_retry_after(sandbox, sandbox_key):
    sandbox.set_faults("429=1")
    response = submit_text(sandbox.base_url, sandbox_key)
    assert_error(response, 429, "rate_limited")
    assert response.headers["retry-after"] == "1"
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 0
    assert sandbox.credits_left(sandbox_key) == 1000


def test_connection_reset_gives_the_client_a_connection_error(sandbox, sandbox_key):
    sandbox.set_faults("reset=1")
    with pytest.raises(requests.ConnectionError):
        submit_text(sandbox.base_url, sandbox_key)
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 0
    assert sandbox.requests[-1].status == 0
    sandbox.set_faults("")
    assert submit_text(sandbox.base_url, sandbox_key).status_code == 200, "the server survives resets"


def test_lost_answer_creates_the_task_but_drops_the_connection(sandbox, sandbox_key):
    sandbox.set_faults("lost=1,scope=submit")
    with pytest.raises(requests.ConnectionError):
        submit_text(sandbox.base_url, sandbox_key)
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 1
    assert len(sandbox.tasks) == 1


def test_latency_delays_answers(sandbox, sandbox_key):
    sandbox.set_faults("latency=0.4")
    started = time.monotonic()
    assert_error(_poll(sandbox, sandbox_key), 404)
    assert time.monotonic() - started >= 0.4


def test_fractions_are_roughly_honoured_and_deterministic_under_seed(sandbox_factory, sandbox_key):
    def statuses(seed: int) -> list[int]:
        sandbox = sandbox_factory(faults="503=0.3,500=0.2", seed=seed)
        return [_poll(sandbox, sandbox_key).status_code for _ in range(120)]

    first, again, other = statuses(7), statuses(7), statuses(8)
    assert first == again
    assert first != other
    assert 20 <= first.count(503) <= 55
    assert 10 <= first.count(500) <= 40
    assert first.count(404) == 120 - first.count(503) - first.count(500)


@pytest.mark.parametrize(
    ("scope", "submit_faulted", "poll_faulted", "files_faulted"),
    [
        ("poll", False, True, False),
        ("submit", True, False, False),
        ("files", False, False, True),
        ("submit|poll", True, True, False),
        ("all", True, True, True),
    ],
)
def test_http_faults_can_be_scoped(sandbox, sandbox_key, scope, submit_faulted, poll_faulted, files_faulted):
    done = _finished(sandbox, sandbox_key)
    sandbox.set_faults(f"500=1,scope={scope}")
    assert (submit_text(sandbox.base_url, sandbox_key).status_code == 500) is submit_faulted
    assert (
        _poll(sandbox, sandbox_key, f"{sandbox.base_url}/v1/3d/tasks/{done['id']}").status_code == 500
    ) is poll_faulted
    assert (requests.get(done["result"]["mesh_url"], timeout=10).status_code == 500) is files_faulted
    assert requests.get(f"{sandbox.base_url}/openapi.json", timeout=10).status_code == 200, (
        "docs are never faulted"
    )


def test_failing_task_with_string_error(sandbox, sandbox_key):
    sandbox.set_faults("fail=1")
    final = _finished(sandbox, sandbox_key)
    assert set(final) == {"id", "status", "progress", "error"}
    assert final["status"] == "failed"
    assert isinstance(final["error"], str) and final["error"]


def test_failing_task_with_object_error(sandbox, sandbox_key):
    sandbox.set_faults("fail_object=1")
    poll = submit_image(sandbox.base_url, sandbox_key).json()["links"]["poll"]
    final = wait_final(poll, sandbox_key)
    assert final["status"] == "failed"
    assert set(final["error"]) == {"code", "message"}
    assert all(isinstance(v, str) and v for v in final["error"].values())


def _glb_loads(data: bytes) -> bool:
    try:
        trimesh.load(io.BytesIO(data), file_type="glb", force="mesh", process=False)
    except Exception:
        return False
    return True


def test_corrupt_glb(sandbox, sandbox_key):
    done = _finished(sandbox, sandbox_key)
    good = requests.get(done["result"]["mesh_url"], timeout=10).content
    sandbox.set_faults("corrupt=1")
    bad = requests.get(done["result"]["mesh_url"], timeout=10).content
    assert len(bad) == len(good) and bad != good
    assert bad[:4] == b"glTF", "the header still claims glTF"
    assert _glb_loads(good) and not _glb_loads(bad)


def test_truncated_glb(sandbox, sandbox_key):
    done = _finished(sandbox, sandbox_key)
    sandbox.set_faults("truncate=1")
    response = requests.get(done["result"]["mesh_url"], timeout=10)
    assert response.status_code == 200
    declared = struct.unpack_from("<I", response.content, 8)[0]
    assert len(response.content) < declared
    assert not _glb_loads(response.content)


def test_slow_download(sandbox, sandbox_key):
    done = _finished(sandbox, sandbox_key)
    good = requests.get(done["result"]["mesh_url"], timeout=10).content
    rate = len(good) * 2  # about half a second
    sandbox.set_faults(f"slow={rate}")
    started = time.monotonic()
    response = requests.get(done["result"]["mesh_url"], timeout=10)
    assert time.monotonic() - started >= 0.35
    assert response.content == good
    assert response.headers["content-length"] == str(len(good))


def test_cdn_urls_on_a_second_loopback_host(sandbox, sandbox_key):
    if sandbox.cdn_base_url is None:
        pytest.skip("this system does not route 127.0.0.2 to loopback")
    sandbox.set_faults("cdn=1")
    final = _finished(sandbox, sandbox_key)
    for url in (final["result"]["mesh_url"], final["result"]["preview_image_url"]):
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.2"
        assert parts.hostname != urlsplit(sandbox.base_url).hostname
        assert requests.get(url, timeout=10).status_code == 200


def test_restart_after_forgets_tasks(sandbox, sandbox_key):
    done = _finished(sandbox, sandbox_key)
    poll = f"{sandbox.base_url}/v1/3d/tasks/{done['id']}"
    sandbox.set_faults("restart_after=2")
    assert [_poll(sandbox, sandbox_key, poll).status_code for _ in range(2)] == [200, 200]
    assert_error(_poll(sandbox, sandbox_key, poll), 404, "task_not_found")
    assert submit_text(sandbox.base_url, sandbox_key).status_code == 200, "new tasks work after the restart"


def test_forget_tasks(sandbox, sandbox_key):
    poll = submit_text(sandbox.base_url, sandbox_key).json()["links"]["poll"]
    assert _poll(sandbox, sandbox_key, poll).status_code == 200
    sandbox.forget_tasks()
    assert_error(_poll(sandbox, sandbox_key, poll), 404, "task_not_found")
    assert sandbox.tasks == {}
