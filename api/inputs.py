"""Checks of what the artist typed or picked, shared by the client and the operators."""

from __future__ import annotations

from pathlib import Path

from .client import _read_image_file, check_web_url
from .errors import InputError


def check_prompt(prompt: str) -> str:
    if not prompt.strip():
        raise InputError("The prompt is empty. Describe the object you want, for example 'a red chair'.")
    return prompt.strip()


def check_url(url: str, *, what: str) -> str:
    return check_web_url(url, what)


def check_image_file(path: Path) -> None:
    _read_image_file(path)
