"""Webhook delivery: a finished image task POSTs {id, status, result | error} to its webhook_url."""

from __future__ import annotations

import time

import requests
from sandbox_http import LoopbackPeer, auth, submit_image, wait_final

from sandbox.server import Sandbox


def _wait_for_delivery(sandbox: Sandbox, count: int = 1, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while len(sandbox.webhooks) < count:
        assert time.monotonic() < deadline, "no webhook delivery recorded"
        time.sleep(0.02)


def test_completed_task_is_posted_to_the_webhook(sandbox, sandbox_key):
    with LoopbackPeer() as receiver:
        hook = f"{receiver.url}/kiln-hook"
        submitted = submit_image(sandbox.base_url, sandbox_key, resolution=1024, webhook_url=hook).json()
        final = wait_final(submitted["links"]["poll"], sandbox_key)
        assert receiver.received.wait(10)
        _wait_for_delivery(sandbox)
    assert len(receiver.posts) == 1
    post = receiver.posts[0]
    assert post["path"] == "/kiln-hook"
    assert post["content_type"] == "application/json"
    assert post["json"] == {"id": submitted["id"], "status": "completed", "result": final["result"]}
    delivery = sandbox.webhooks[0]
    assert (delivery.url, delivery.status, delivery.payload) == (hook, 200, post["json"])


def test_failed_task_is_posted_with_its_error(sandbox, sandbox_key):
    sandbox.set_faults("fail_object=1")
    with LoopbackPeer() as receiver:
        submitted = submit_image(sandbox.base_url, sandbox_key, webhook_url=f"{receiver.url}/hook").json()
        final = wait_final(submitted["links"]["poll"], sandbox_key)
        assert receiver.received.wait(10)
    assert receiver.posts[0]["json"] == {"id": submitted["id"], "status": "failed", "error": final["error"]}


def test_each_task_is_delivered_once_and_tasks_without_webhook_are_not(sandbox, sandbox_key):
    with LoopbackPeer() as receiver:
        plain = submit_image(sandbox.base_url, sandbox_key, resolution=1024).json()
        hooked = submit_image(sandbox.base_url, sandbox_key, resolution=1024, webhook_url=receiver.url).json()
        wait_final(plain["links"]["poll"], sandbox_key)
        wait_final(hooked["links"]["poll"], sandbox_key)
        assert receiver.received.wait(10)
        time.sleep(0.3)  # a few webhook ticks: nothing more may arrive
    assert [post["json"]["id"] for post in receiver.posts] == [hooked["id"]]


def test_unreachable_webhook_is_recorded_not_fatal(sandbox, sandbox_key):
    with LoopbackPeer() as closed:
        url = closed.url  # the port is closed once the peer has stopped
    submitted = submit_image(sandbox.base_url, sandbox_key, resolution=1024, webhook_url=url).json()
    wait_final(submitted["links"]["poll"], sandbox_key)
    _wait_for_delivery(sandbox)
    assert sandbox.webhooks[0].status == 0 and sandbox.webhooks[0].error
    poll = requests.get(submitted["links"]["poll"], headers=auth(sandbox_key), timeout=10)
    assert poll.json()["status"] == "completed"
