"""An image job's request checked and prepared: a file, and an address Kiln fetches to look at."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.features.concept_image import check_request
from api.jobs import JobRequest
from fixtures import concept_images


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A loopback web server of ``tmp_path`` (plain http is allowed there only)."""
    folder = tmp_path / "web"
    folder.mkdir()
    concept_images.write_case(folder, "off_centre")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_a_file_is_prepared_and_the_original_kept(tmp_path: Path) -> None:
    image = concept_images.write_case(tmp_path, "off_centre")
    checked = check_request(
        JobRequest(kind="image", image_path=str(image)), prepare=True, uploads=tmp_path / "up"
    )
    assert checked.request.image_path == str(image)
    assert Path(checked.request.image_sent).parent == tmp_path / "up"
    summary = json.loads(checked.request.preflight)
    assert summary["findings"] == ["subject_small"] and summary["prepared"]
    assert not checked.blocks(strict=False) and checked.blocks(strict=True)


def test_unprepared_the_file_goes_as_it_is(tmp_path: Path) -> None:
    image = concept_images.write_concept(tmp_path, "chair")
    checked = check_request(
        JobRequest(kind="image", image_path=str(image)), prepare=False, uploads=tmp_path / "up"
    )
    assert checked.request.image_sent == "" and not (tmp_path / "up").exists()


def test_a_refusal_blocks(tmp_path: Path) -> None:
    image = concept_images.write_case(tmp_path, "single_colour")
    checked = check_request(JobRequest(kind="image", image_path=str(image)), prepare=True, uploads=tmp_path)
    assert checked.refusal is not None and checked.blocks(strict=False)


def test_an_address_is_fetched_to_be_looked_at(tmp_path: Path, served: str) -> None:
    url = f"{served}/case-off_centre.png"
    checked = check_request(JobRequest(kind="image", image_url=url), prepare=True, uploads=tmp_path / "up")
    assert checked.refusal is None
    assert checked.request.image_url == url and Path(checked.request.image_sent).is_file()


def test_an_address_that_fails_sends_nothing(tmp_path: Path, served: str) -> None:
    checked = check_request(
        JobRequest(kind="image", image_url=f"{served}/missing.png"), prepare=True, uploads=tmp_path
    )
    assert checked.refusal is not None and checked.refusal.code == "url_unreadable"
