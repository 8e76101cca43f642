"""Rollback: this Kiln meeting a library a newer Kiln wrote to (entries and an index of a higher
format). It reads what it understands, changes none of the newer files, and says so once."""

from __future__ import annotations

import json
from pathlib import Path

from api.features.library_index import ENTRIES_DIR, INDEX_FILE, Entry, LibraryIndex, entry_file_name


def entry_data(key: str, blend: str, fmt: int) -> dict[str, object]:
    return {"format": fmt, "key": key, "blend": blend, "label": key, "task_id": f"task-{key}", "created": 0}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_older_kiln_reads_what_it_knows_of_a_newer_library_and_changes_none_of_it(tmp_path: Path) -> None:
    entries = tmp_path / ENTRIES_DIR
    entries.mkdir()
    for name in ("old.blend", "new.blend", "mine.blend"):
        (tmp_path / name).write_bytes(b"BLENDER")
    (entries / entry_file_name("old")).write_text(json.dumps(entry_data("old", "old.blend", 1)))
    (entries / entry_file_name("new")).write_text(
        json.dumps({**entry_data("new", "new.blend", 2), "lods": [1]})
    )
    legacy = {"format": 2, "entries": [entry_data("legacy", "old.blend", 2)]}
    (tmp_path / INDEX_FILE).write_text(json.dumps(legacy))
    index_files = {k: v for k, v in snapshot(tmp_path).items() if not k.endswith(".blend")}

    index = LibraryIndex(tmp_path)
    assert index.lookup("old") is not None
    assert index.lookup("new") is None and index.lookup("legacy") is None
    index.add(Entry("new", "mine.blend", "new", "task-mine", 1.0))  # the same request, generated here too
    index.add(Entry("mine", "mine.blend", "mine", "task-mine", 1.0))
    assert set(index.entries()) == {"old", "mine"}
    assert len(index.problems) == 1 and "newer version of Kiln" in str(index.problems[0])

    after = snapshot(tmp_path)
    assert {k: after[k] for k in index_files} == index_files, "a file that was there was changed"
    assert LibraryIndex(tmp_path).lookup("mine") is not None
