"""Helpers for the sandbox contract tests: HTTP calls as a client makes them, and a loopback peer."""

from __future__ import annotations

import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests
from PIL import Image, ImageDraw

ERROR_KEYS = {"code", "message"}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def picture(fmt: str = "PNG", size: tuple[int, int] = (96, 128), transparent: bool = True) -> bytes:
    """A small concept-art stand-in: a red figure on a transparent (or white) background."""
    mode = "RGBA" if transparent and fmt != "JPEG" else "RGB"
    background = (0, 0, 0, 0) if mode == "RGBA" else (255, 255, 255)
    image = Image.new(mode, size, background)
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.rectangle((w * 0.3, h * 0.1, w * 0.7, h * 0.9), fill=(200, 30, 30))
    draw.ellipse((w * 0.15, h * 0.5, w * 0.85, h * 0.95), fill=(30, 30, 200))
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def submit_text(base_url: str, key: str, prompt: str = "a wooden chair", **fields: Any) -> requests.Response:
    return requests.post(
        f"{base_url}/v1/3d/text-to-3d", json={"prompt": prompt, **fields}, headers=auth(key), timeout=10
    )


def submit_image(
    base_url: str, key: str, data: bytes | None = None, filename: str = "concept.png", **form: Any
) -> requests.Response:
    """Multipart upload of `data` (a generated PNG by default) with `form` as form fields."""
    files = {"image": (filename, data if data is not None else picture(), "application/octet-stream")}
    return requests.post(
        f"{base_url}/v1/3d/image-to-3d",
        files=files,
        data={k: str(v) for k, v in form.items()},
        headers=auth(key),
        timeout=30,
    )


def wait_final(poll_url: str, key: str, timeout: float = 30.0) -> dict[str, Any]:
    """Poll (quickly: the sandbox runs fast in tests) until completed or failed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = requests.get(poll_url, headers=auth(key), timeout=10)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["status"] in ("completed", "failed"):
            return body
        time.sleep(0.02)
    raise AssertionError(f"task at {poll_url} did not finish in {timeout}s")


def run_text(base_url: str, key: str, prompt: str, **fields: Any) -> dict[str, Any]:
    response = submit_text(base_url, key, prompt, **fields)
    assert response.status_code == 200, response.text
    return wait_final(response.json()["links"]["poll"], key)


def assert_error(response: requests.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The sandbox's error shape: {"error": {"code": str, "message": str}} with the given status."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == ERROR_KEYS
    assert isinstance(body["error"]["code"], str)
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body


class LoopbackPeer:
    """A tiny HTTP server on 127.0.0.1: serves `content` on GET, records JSON POSTs (webhooks)."""

    def __init__(self, content: bytes = b"", status: int = 200) -> None:
        self.content = content
        self.status = status
        self.posts: list[dict[str, Any]] = []
        self.received = threading.Event()
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(peer.status)
                self.send_header("Content-Length", str(len(peer.content)))
                self.end_headers()
                self.wfile.write(peer.content)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                peer.posts.append(
                    {
                        "path": self.path,
                        "content_type": self.headers.get("Content-Type"),
                        "json": json.loads(body),
                    }
                )
                self.send_response(peer.status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                peer.received.set()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackPeer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
