"""Input checks of the sandbox: auth, credits, bodies, images, and the Idempotency-Key header."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from sandbox_http import LoopbackPeer, assert_error, auth, picture, submit_image, submit_text

from sandbox.server import Sandbox
from sandbox.state import DEFAULT_KEY

ENDPOINTS: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/3d/text-to-3d", {"json": {"prompt": "a chair"}}),
    ("POST", "/v1/3d/image-to-3d", {"json": {"image_url": "http://127.0.0.1:9/x.png"}}),
    ("GET", "/v1/3d/tasks/task_x", {}),
]


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "missing_api_key"),
        ("Basic dXNlcjpwYXNz", "malformed_authorization"),
        ("Bearer ", "malformed_authorization"),
        ("Bearer not-a-key", "malformed_api_key"),
        ("Bearer sbx_test_0000000000000", "malformed_api_key"),
        ("Bearer sbx_live_wrongwrongwrong", "invalid_api_key"),
    ],
)
def test_bad_or_missing_key_is_401(sandbox, sandbox_key, header, code):
    headers = {"Authorization": header} if header is not None else {}
    for method, path, kwargs in ENDPOINTS:
        response = requests.request(method, sandbox.base_url + path, headers=headers, timeout=10, **kwargs)
        assert_error(response, 401, code)
        assert response.headers["www-authenticate"] == "Bearer"
    assert sandbox.submit_count == 0
    assert sandbox.credits_left(sandbox_key) == 1000


def test_default_demo_key_when_none_is_given():
    with Sandbox(speed=50.0) as sandbox:
        assert submit_text(sandbox.base_url, DEFAULT_KEY).status_code == 200
        assert_error(submit_text(sandbox.base_url, "sbx_live_test0000000000"), 401, "invalid_api_key")


def test_keys_must_have_the_live_key_shape():
    with pytest.raises(ValueError, match="shape"):
        Sandbox(keys=["secret"])


def test_credits_are_charged_per_task_and_402_when_short(sandbox_factory, sandbox_key):
    sandbox = sandbox_factory(credits=9, text_cost=3)
    base = sandbox.base_url
    assert submit_text(base, sandbox_key).status_code == 200  # text_cost 3
    assert sandbox.credits_left(sandbox_key) == 6
    assert submit_image(base, sandbox_key).status_code == 200  # default 1536: 4 credits
    assert sandbox.credits_left(sandbox_key) == 2
    assert_error(submit_image(base, sandbox_key, resolution=1536), 402, "insufficient_credits")
    assert_error(submit_text(base, sandbox_key), 402, "insufficient_credits")
    assert sandbox.credits_left(sandbox_key) == 2
    assert submit_image(base, sandbox_key, resolution=1024).status_code == 200  # 2 credits
    assert sandbox.credits_left(sandbox_key) == 0
    assert_error(submit_image(base, sandbox_key, resolution=1024), 402, "insufficient_credits")
    assert sandbox.submit_count == 3
    assert sandbox.submit_attempts == 6


def test_image_1024_costs_two_credits(sandbox_factory, sandbox_key):
    sandbox = sandbox_factory(credits=2)
    assert submit_image(sandbox.base_url, sandbox_key, resolution=1024).status_code == 200
    assert sandbox.credits_left(sandbox_key) == 0


def test_credits_are_per_key(sandbox_factory, sandbox_key):
    other = "sbx_live_secondkey00000"
    sandbox = sandbox_factory(keys=[sandbox_key, other], credits=1)
    assert submit_text(sandbox.base_url, sandbox_key).status_code == 200
    assert submit_text(sandbox.base_url, other).status_code == 200
    assert_error(submit_text(sandbox.base_url, sandbox_key), 402)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"prompt": ""}, "invalid_prompt"),
        ({"prompt": "   "}, "invalid_prompt"),
        ({}, "invalid_prompt"),
        ({"prompt": 42}, "invalid_prompt"),
        ({"prompt": "a chair", "resolution": 512}, "invalid_resolution"),
        ({"prompt": "a chair", "resolution": "big"}, "invalid_resolution"),
        ({"prompt": "a chair", "image_model": "fast"}, "invalid_image_model"),
    ],
)
def test_text_body_checks(sandbox, sandbox_key, body, code):
    response = requests.post(
        f"{sandbox.base_url}/v1/3d/text-to-3d", json=body, headers=auth(sandbox_key), timeout=10
    )
    assert_error(response, 422, code)
    assert sandbox.submit_count == 0 and sandbox.credits_left(sandbox_key) == 1000


def test_text_body_must_be_json(sandbox, sandbox_key):
    url = f"{sandbox.base_url}/v1/3d/text-to-3d"
    headers = {**auth(sandbox_key), "Content-Type": "application/json"}
    assert_error(requests.post(url, data="{not json", headers=headers, timeout=10), 422, "invalid_json")
    plain = {**auth(sandbox_key), "Content-Type": "text/plain"}
    assert_error(requests.post(url, data="a chair", headers=plain, timeout=10), 415, "unsupported_media_type")


@pytest.mark.parametrize("resolution", ["512", "abc", "2048"])
def test_image_bad_resolution(sandbox, sandbox_key, resolution):
    assert_error(
        submit_image(sandbox.base_url, sandbox_key, resolution=resolution), 422, "invalid_resolution"
    )


def test_image_neither_or_both_sources_is_400(sandbox, sandbox_key):
    url = f"{sandbox.base_url}/v1/3d/image-to-3d"
    neither_json = requests.post(url, json={"resolution": 1024}, headers=auth(sandbox_key), timeout=10)
    assert_error(neither_json, 400, "invalid_image_source")
    neither_form = requests.post(
        url, files={"resolution": (None, "1024")}, headers=auth(sandbox_key), timeout=10
    )
    assert_error(neither_form, 400, "invalid_image_source")
    both = submit_image(sandbox.base_url, sandbox_key, image_url="http://127.0.0.1/x.png")
    assert_error(both, 400, "invalid_image_source")
    assert sandbox.submit_count == 0


@pytest.mark.parametrize(
    "data",
    [b"GIF89a" + b"\x00" * 64, b"just some text, not an image", b"<svg xmlns='http://www.w3.org/2000/svg'/>"],
)
def test_image_that_is_not_png_jpeg_webp_by_content_is_415(sandbox, sandbox_key, data):
    response = submit_image(sandbox.base_url, sandbox_key, data, filename="looks-like.png")
    assert_error(response, 415, "unsupported_image_type")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_png_jpeg_webp_are_accepted_by_content(sandbox, sandbox_key, fmt):
    response = submit_image(sandbox.base_url, sandbox_key, picture(fmt), filename="no-extension")
    assert response.status_code == 200, response.text


def test_broken_png_is_400(sandbox, sandbox_key):
    response = submit_image(sandbox.base_url, sandbox_key, b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    assert_error(response, 400, "invalid_image")


def test_oversized_image_is_413(sandbox, sandbox_key):
    big = b"\x89PNG\r\n\x1a\n" + b"\x00" * (10 * 1024 * 1024)
    assert_error(submit_image(sandbox.base_url, sandbox_key, big), 413, "image_too_large")
    with LoopbackPeer(content=big) as peer:
        response = requests.post(
            f"{sandbox.base_url}/v1/3d/image-to-3d",
            json={"image_url": f"{peer.url}/big.png"},
            headers=auth(sandbox_key),
            timeout=30,
        )
    assert_error(response, 413, "image_too_large")
    assert sandbox.credits_left(sandbox_key) == 1000


def test_image_with_too_many_pixels_is_413(sandbox, sandbox_key):
    wide = picture(size=(9000, 8))  # a small file, but wider than the 8192-pixel limit
    assert_error(submit_image(sandbox.base_url, sandbox_key, wide), 413, "image_too_large")


@pytest.mark.parametrize(
    "url",
    ["https://example.com/chair.png", "http://10.0.0.1/chair.png", "file:///etc/passwd", "ftp://127.0.0.1/x"],
)
def test_image_url_only_from_loopback(sandbox, sandbox_key, url):
    response = requests.post(
        f"{sandbox.base_url}/v1/3d/image-to-3d",
        json={"image_url": url},
        headers=auth(sandbox_key),
        timeout=10,
    )
    assert_error(response, 400, "image_url_not_allowed")


def test_image_url_that_fails_is_400(sandbox, sandbox_key):
    with LoopbackPeer(content=b"gone", status=404) as peer:
        response = requests.post(
            f"{sandbox.base_url}/v1/3d/image-to-3d",
            json={"image_url": f"{peer.url}/missing.png"},
            headers=auth(sandbox_key),
            timeout=10,
        )
    assert_error(response, 400, "image_url_unreachable")


@pytest.mark.parametrize("url", ["http://example.com/hook", "ftp://127.0.0.1/hook", "not a url"])
def test_webhook_url_must_be_https_or_loopback_http(sandbox, sandbox_key, url):
    assert_error(submit_image(sandbox.base_url, sandbox_key, webhook_url=url), 400, "invalid_webhook_url")


def test_idempotency_key_returns_the_same_task_without_charging_again(sandbox, sandbox_key):
    headers = {**auth(sandbox_key), "Idempotency-Key": "job-1"}
    url = f"{sandbox.base_url}/v1/3d/text-to-3d"
    first = requests.post(url, json={"prompt": "a tree"}, headers=headers, timeout=10)
    again = requests.post(url, json={"prompt": "a tree"}, headers=headers, timeout=10)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert sandbox.submit_count == 1 and sandbox.submit_attempts == 2
    assert sandbox.credits_left(sandbox_key) == 999
    other = requests.post(
        url, json={"prompt": "a tree"}, headers={**headers, "Idempotency-Key": "job-2"}, timeout=10
    )
    assert other.json()["id"] != first.json()["id"]
    image_headers = {**auth(sandbox_key), "Idempotency-Key": "job-1"}
    files = {"image": ("c.png", picture())}
    image = requests.post(
        f"{sandbox.base_url}/v1/3d/image-to-3d", files=files, headers=image_headers, timeout=10
    )
    assert image.json()["id"] != first.json()["id"], "keys are per endpoint"
    image_again = requests.post(
        f"{sandbox.base_url}/v1/3d/image-to-3d", files=files, headers=image_headers, timeout=10
    )
    assert image_again.json() == image.json()
    assert sandbox.submit_count == 3
    assert sandbox.credits_left(sandbox_key) == 1000 - 1 - 1 - 4


def test_requests_are_recorded(sandbox, sandbox_key):
    submit_text(sandbox.base_url, sandbox_key)
    requests.get(f"{sandbox.base_url}/v1/3d/tasks/nope", headers=auth(sandbox_key), timeout=10)
    first, second = sandbox.requests[-2:]
    assert (first.method, first.path, first.status) == ("POST", "/v1/3d/text-to-3d", 200)
    assert first.headers["Authorization"] == f"Bearer {sandbox_key}"
    assert second["status"] == 404 and second["path"] == "/v1/3d/tasks/nope"
