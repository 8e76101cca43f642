"""The library index and catalog file (no Blender needed)."""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path

from api.features.library_folder import is_temp_name, temp_name
from api.features.library_index import (
    CATALOG_FILE,
    ENTRIES_DIR,
    INDEX_FILE,
    Entry,
    LibraryIndex,
    blend_name,
    ensure_catalog,
    entry_file_name,
    image_key,
    normalise_prompt,
    request_key,
)
from api.jobs import JobRequest


def text(prompt: str, **options: object) -> JobRequest:
    return JobRequest(kind="text", prompt=prompt, **options)  # type: ignore[arg-type]


def test_prompts_match_whatever_their_case_and_spacing() -> None:
    assert normalise_prompt("  A  Red\tCHAIR \n") == "a red chair"
    assert request_key(text("a red chair")) == request_key(text(" A RED  chair"))


def test_options_that_change_the_result_change_the_key() -> None:
    base = request_key(text("a red chair"))
    assert request_key(text("a red chair", resolution=1024)) != base
    assert request_key(text("a red chair", provider="acme")) != base
    assert request_key(text("a red chair", quality="high")) != base
    assert request_key(text("a red chairs")) != base


def test_images_match_by_their_bytes_and_resolution_not_their_name(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.png", tmp_path / "b.png", tmp_path / "c.png"
    a.write_bytes(b"same pixels")
    b.write_bytes(b"same pixels")
    c.write_bytes(b"other pixels")
    key = image_key(JobRequest(kind="image", image_path=str(a), resolution=1024))
    assert key == image_key(JobRequest(kind="image", image_path=str(b), resolution=1024))
    assert key != image_key(JobRequest(kind="image", image_path=str(b), resolution=1536))
    assert key != image_key(JobRequest(kind="image", image_path=str(c), resolution=1024))
    assert image_key(JobRequest(kind="image", image_path=str(b))) == image_key(
        JobRequest(kind="image", image_path=str(b), resolution=1536)
    )


def test_urls_missing_files_and_followed_tasks_have_no_key(tmp_path: Path) -> None:
    assert image_key(JobRequest(kind="image", image_url="https://x.example/a.png")) is None
    assert image_key(JobRequest(kind="image", image_path=str(tmp_path / "gone.png"))) is None
    assert request_key(JobRequest(kind="task")) is None


def test_an_entry_is_found_again_by_a_fresh_index_while_its_blend_exists(tmp_path: Path) -> None:
    (tmp_path / "chair_abc.blend").write_bytes(b"BLENDER")
    LibraryIndex(tmp_path).add(Entry("k1", "chair_abc.blend", "a chair", "task_1", 0.0))
    found = LibraryIndex(tmp_path).lookup("k1")
    assert found is not None and found.task_id == "task_1" and found.date == "1970-01-01"
    assert LibraryIndex(tmp_path).lookup("k2") is None
    (tmp_path / "chair_abc.blend").unlink()
    assert LibraryIndex(tmp_path).lookup("k1") is None


def test_two_blenders_adding_to_one_index_keep_both_entries(tmp_path: Path) -> None:
    first, second = LibraryIndex(tmp_path), LibraryIndex(tmp_path)
    first.entries()
    second.entries()
    first.add(Entry("k1", "a.blend", "a", "t1", 0.0))
    second.add(Entry("k2", "b.blend", "b", "t2", 0.0))
    assert set(LibraryIndex(tmp_path).entries()) == {"k1", "k2"}
    assert sorted(p.name for p in (tmp_path / ENTRIES_DIR).iterdir()) == sorted(
        [entry_file_name("k1"), entry_file_name("k2")]
    )


def test_entries_of_an_earlier_kiln_are_still_found_and_never_rewritten(tmp_path: Path) -> None:
    (tmp_path / "old.blend").write_bytes(b"BLENDER")
    old = {
        "format": 1,
        "entries": [{"key": "k0", "blend": "old.blend", "label": "a", "task_id": "t0", "created": 0}],
    }
    (tmp_path / INDEX_FILE).write_text(json.dumps(old))
    before = (tmp_path / INDEX_FILE).read_bytes()
    index = LibraryIndex(tmp_path)
    assert index.lookup("k0") is not None
    index.add(Entry("k1", "a.blend", "a", "t1", 0.0))
    assert set(index.entries()) == {"k0", "k1"}
    assert (tmp_path / INDEX_FILE).read_bytes() == before


def test_a_damaged_index_is_left_as_it_is_and_said_once(tmp_path: Path) -> None:
    (tmp_path / INDEX_FILE).write_text("{not json")
    (tmp_path / ENTRIES_DIR).mkdir()
    (tmp_path / ENTRIES_DIR / entry_file_name("k2")).write_text('{"format": 1, "key": "k2"')
    index = LibraryIndex(tmp_path)
    assert index.entries() == {}
    assert index.lookup("k2") is None
    assert len(index.problems) == 1 and "damaged" in str(index.problems[0])
    assert str(tmp_path) in index.problems[0].details and str(tmp_path) not in str(index.problems[0])
    assert (tmp_path / INDEX_FILE).read_text() == "{not json"
    index.add(Entry("k1", "a.blend", "a", "t1", 0.0))
    assert set(index.entries()) == {"k1"}
    assert (tmp_path / INDEX_FILE).read_text() == "{not json"


def test_temporary_files_are_never_read_as_entries(tmp_path: Path) -> None:
    LibraryIndex(tmp_path).add(Entry("k1", "a.blend", "a", "t1", 0.0))
    assert not any(is_temp_name(p.name) for p in (tmp_path / ENTRIES_DIR).iterdir())
    half = temp_name(tmp_path / ENTRIES_DIR / entry_file_name("k2"))
    half.write_text('{"format": 1, "key": "k2", "blend": "b.blend", "label": "b", "task_id": "t2"')
    index = LibraryIndex(tmp_path)
    assert set(index.entries()) == {"k1"} and index.problems == []


def test_one_catalog_a_path_with_the_same_id_in_every_blender(tmp_path: Path) -> None:
    first = ensure_catalog(tmp_path, "Kiln/2026-11-22")
    assert ensure_catalog(tmp_path, "Kiln/2026-11-22") == first
    second = ensure_catalog(tmp_path, "Kiln/2026-11-23")
    lines = (tmp_path / CATALOG_FILE).read_text().splitlines()
    assert "VERSION 1" in lines
    assert f"{first}:Kiln/2026-11-22:Kiln-2026-11-22" in lines
    assert f"{second}:Kiln/2026-11-23:Kiln-2026-11-23" in lines
    assert len([line for line in lines if line.startswith(first)]) == 1


def test_blend_names_come_from_kiln_ids_and_a_safe_slug() -> None:
    assert blend_name("0123abcd", "../a red/chair?") == "a_red_chair_0123abcd.blend"
    assert blend_name("0123abcd", "…") == "result_0123abcd.blend"


def _add_many(args: tuple[Path, int, int, float]) -> None:
    folder, k, count, go = args
    while time.time() < go:  # every process starts adding at the same moment
        pass
    for m in range(count):
        LibraryIndex(folder).add(Entry(f"k{k}-{m}", f"b{k}-{m}.blend", "x", f"t{k}-{m}", 0.0))


def test_processes_adding_at_the_same_moment_lose_no_entry(tmp_path: Path) -> None:
    """(The one-file index of earlier Kilns kept 17 of 60 entries in this race.)"""
    kilns, each = 6, 20
    with multiprocessing.get_context("spawn").Pool(kilns) as pool:
        pool.map(_add_many, [(tmp_path, k, each, time.time() + 2.0) for k in range(kilns)])
    assert len(LibraryIndex(tmp_path).entries()) == kilns * each
    assert not [p for p in (tmp_path / ENTRIES_DIR).iterdir() if is_temp_name(p.name)]
