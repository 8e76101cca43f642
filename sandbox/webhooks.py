"""Webhook delivery: one background thread notices finished image tasks and POSTs their outcome."""

from __future__ import annotations

import ipaddress
import logging
import threading
from typing import Any
from urllib.parse import urlsplit

import requests

from sandbox.state import FINAL, SandboxState, Task, WebhookDelivery

log = logging.getLogger(__name__)

TICK_SECONDS = 0.05
TIMEOUT_SECONDS = 5.0


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def webhook_url_problem(url: str) -> str | None:
    """Why a webhook_url is refused (None when fine): https anywhere, plain http only to loopback."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and is_loopback_host(parts.hostname):
        return None
    return "webhook_url must be an https URL (plain http is accepted only for loopback hosts)"


class WebhookSender:
    """Polls the task table a few times a second; delivers each finished task's webhook once."""

    def __init__(self, state: SandboxState) -> None:
        self._state = state
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sandbox-webhooks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=TIMEOUT_SECONDS + 1)

    def _due(self) -> list[tuple[Task, dict[str, Any]]]:
        due = []
        with self._state.lock:
            for task in list(self._state.tasks.values()):
                if not task.webhook_url or task.webhook_sent:
                    continue
                body = self._state.poll_body(task)
                if body["status"] in FINAL:
                    task.webhook_sent = True
                    body.pop("progress")
                    due.append((task, body))
        return due

    def _run(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            for task, payload in self._due():
                self._deliver(str(task.webhook_url), payload)

    def _deliver(self, url: str, payload: dict[str, Any]) -> None:
        delivery = WebhookDelivery(url=url, payload=payload)
        try:
            response = requests.post(url, json=payload, timeout=TIMEOUT_SECONDS)
            delivery.status = response.status_code
        except requests.RequestException as exc:
            delivery.error = str(exc)
            log.warning("webhook to %s failed: %s", url, exc)
        self._state.webhooks.append(delivery)
