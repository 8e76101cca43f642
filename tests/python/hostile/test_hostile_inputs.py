"""Bad prompts, images and URLs are refused with a sentence before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_kit import assert_sentence, client_for, task
from hostile_server import HostileServer, json_answer
from PIL import Image

from api.checks.inputs import MAX_PROMPT_CHARS, check_prompt
from api.errors import InputError

BAD_PROMPTS = {
    "nul": "a chair\x00DROP TABLE",
    "escape sequence": "a chair \x1b[31mred",
    "bell": "a chair\x07",
    "c1 control": "a\x85chair",
    "1 MB": "chair " * 200_000,
    "just over the cap": "c" * (MAX_PROMPT_CHARS + 1),
    "bidi override": "a chair \u202eriaf",
    "lone surrogate": "a chair \ud800",
    "empty": " \t\n ",
}


@pytest.mark.parametrize("name", BAD_PROMPTS)
def test_a_bad_prompt_is_refused_before_anything_is_sent(service: HostileServer, name: str) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.submit_text(BAD_PROMPTS[name])
    assert_sentence(caught.value)
    assert service.seen == []


def test_ordinary_prompts_pass_as_typed(service: HostileServer) -> None:
    service.routes["/v1/3d/text-to-3d"] = json_answer(200, task())
    prompt = "a chair,\n\tcarved oak — «Stühle» 椅子 🪑" + "x" * (MAX_PROMPT_CHARS - 40)
    with client_for(service) as client:
        client.submit_text(prompt)
    assert json.loads(service.seen[0].body)["prompt"] == prompt.strip()
    assert check_prompt("  a chair  ") == "a chair"


def png(tmp_path: Path) -> Path:
    path = tmp_path / "in.png"
    Image.new("RGB", (8, 8), "red").save(path)
    return path


BAD_IMAGE_URLS = {
    "file scheme": "file:///etc/passwd",
    "user info": "https://user:pw@images.example.com/a.png",
    "backslash": "https://images.example.com\\@evil.example/a.png",
    "control character": "https://images.example.com/a\x00.png",
    "space": "https://images.example.com/a b.png",
    "plain http elsewhere": "http://images.example.com/a.png",
    "data uri": "data:image/png;base64,AAAA",
    "very long": "https://images.example.com/" + "a" * 10_000,
}


@pytest.mark.parametrize("name", BAD_IMAGE_URLS)
def test_a_bad_image_url_is_refused(service: HostileServer, name: str) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.submit_image(url=BAD_IMAGE_URLS[name])
    assert_sentence(caught.value)
    assert service.seen == []


@pytest.mark.parametrize("name", ["user info", "backslash", "control character", "file scheme"])
def test_a_bad_webhook_url_is_refused(service: HostileServer, tmp_path: Path, name: str) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.submit_image(path=png(tmp_path), webhook_url=BAD_IMAGE_URLS[name])
    assert_sentence(caught.value)
    assert service.seen == []


@pytest.mark.parametrize(
    "path", ["in\x00.png", "/dev/zero", "/proc/self/environ"], ids=["nul in path", "device", "proc file"]
)
def test_an_odd_image_path_is_refused(service: HostileServer, path: str) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.submit_image(path=path)
    assert_sentence(caught.value)
    assert service.seen == []


def test_an_image_file_name_with_control_characters_is_not_sent(
    service: HostileServer, tmp_path: Path
) -> None:
    service.routes["/v1/3d/image-to-3d"] = json_answer(200, task())
    odd = tmp_path / "chair\x1b[2J.png"
    png(tmp_path).rename(odd)
    with client_for(service) as client:
        client.submit_image(path=odd)
    assert b"\x1b" not in service.seen[0].body and b'filename="image.png"' in service.seen[0].body
