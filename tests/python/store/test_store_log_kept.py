"""A job list damaged after Blender was killed before a checkpoint: its write-ahead log is kept with
it, and the jobs only the log held come back (issue 33).

A store's last changes live in ``jobs.sqlite3-wal`` until SQLite checkpoints them into the main
file. SQLite deletes that log when it opens an empty or missing main file, so Kiln judges the
files itself, moves the three aside as one backup, and reads the jobs out of a copy rebuilt in
memory (api/jobs/wal.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_store_damage import _stored, backups, finished, plainly_said

from api.jobs import (
    STORE_FILE,
    JobEngine,
    JobState,
    ServiceConfig,
    StoreError,
    leaf_pages,
    store_salvage,
    wal,
)
from api.jobs.model import new_job_id
from api.jobs.store import JobStore
from api.jobs.store_files import MARKER

ROOT = Path(__file__).resolve().parents[3]
LOG, INDEX = f"{STORE_FILE}-wal", f"{STORE_FILE}-shm"


def copy_as_killed(running: Path, state: Path) -> None:
    """The store's files as a Blender killed now leaves them (copied while its Kiln has them open)."""
    state.mkdir(exist_ok=True)
    for name in (STORE_FILE, LOG, INDEX, MARKER):
        if (running / name).exists():
            (state / name).write_bytes((running / name).read_bytes())


SUBMIT_AND_HANG = """
import sys, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from api.jobs import JobEngine, JobRequest, ServiceConfig
engine = JobEngine(Path(sys.argv[2]), workers=2)
engine.start(ServiceConfig(base_url=sys.argv[3], api_key=sys.argv[4], poll_interval=0.2))
job = engine.submit(JobRequest(kind="text", prompt="a stone house"))
while not engine.get(job.id).task_id:
    time.sleep(0.02)
print("TASK", engine.get(job.id).task_id, flush=True)
threading.Event().wait()
"""


def submitted_then_killed(state: Path, sandbox: Any, key: str) -> str:
    """A Kiln process sends a real job, records its task id and is killed (SIGKILL) before a
    checkpoint, as Blender is; returns the task id."""
    child = subprocess.Popen(
        [sys.executable, "-c", SUBMIT_AND_HANG, str(ROOT), str(state), sandbox.base_url, key],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("TASK "), line
        task_id = line.split()[1]
        deadline = time.monotonic() + 30  # polled once: the task id was on disk before the first poll
        while not any(r.method == "GET" and r.path.endswith(task_id) for r in list(sandbox.requests)):
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        child.kill()
        child.wait()
    return task_id


def started(state: Path, sandbox: Any, key: str) -> JobEngine:
    engine = JobEngine(state, workers=2)
    engine.start(ServiceConfig(base_url=sandbox.base_url, api_key=key, poll_interval=0.2))
    return engine


def written_by_a_killed_kiln(
    tmp_path: Path, records: list[dict[str, Any]], *then: tuple[str, tuple[Any, ...]]
) -> Path:
    """Kiln's folder after ``records`` were written (and the statements ``then`` run) and the process
    died before a checkpoint."""
    running = tmp_path / "running"
    running.mkdir(parents=True)
    _stored(running, 0)
    db = sqlite3.connect(running / STORE_FILE, isolation_level=None)
    db.execute("PRAGMA wal_autocheckpoint = 0")
    for n, record in enumerate(records, start=1):
        db.execute(
            "INSERT INTO jobs VALUES (?, ?, ?, ?)", (record["id"], n, record["state"], json.dumps(record))
        )
    for statement, values in then:
        db.execute(statement, values)
    state = tmp_path / "state"
    copy_as_killed(running, state)
    db.close()
    return state


def the_log_held(state: Path, text: str) -> None:
    """``text`` is in the log and not in the main file: only the log can bring it back."""
    assert text.encode() in (state / LOG).read_bytes()
    assert text.encode() not in (state / STORE_FILE).read_bytes()


def backup_names(state: Path) -> set[str]:
    """The names of the store's backups (each a main file, a log and an index, where they were)."""
    return {p.name.removesuffix("-wal").removesuffix("-shm") for p in state.glob(f"{STORE_FILE}.damaged-*")}


def kept_as_one_backup(state: Path, before: dict[str, bytes]) -> Path:
    """The main file, its log and its index moved aside under one name, byte for byte."""
    (backup,) = backup_names(state)
    for suffix, name in (("", STORE_FILE), ("-wal", LOG), ("-shm", INDEX)):
        kept = state / (backup + suffix)
        if name in before:
            assert kept.read_bytes() == before[name], f"{kept.name} is not what was there"
        else:
            assert not kept.exists()
    return state / backup


@pytest.mark.parametrize(
    ("damage", "history"),
    [("emptied", 0), ("emptied", 60), ("deleted", 0), ("deleted", 60), ("cut short", 60)],
)
def test_the_log_is_kept_with_the_list_and_the_job_it_held_comes_back_and_lands_once(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path, wait_synced: Any, damage: str, history: int
) -> None:
    """``history``: finished jobs in the main file (checkpointed), the newest job only in its log."""
    sandbox = sandbox_factory(speed=0.05)  # the task runs on while Kiln is down
    state = tmp_path / "state"
    state.mkdir()
    if history:
        _stored(state, history)
    task_id = submitted_then_killed(state, sandbox, sandbox_key)
    the_log_held(state, task_id)
    main = state / STORE_FILE
    if damage == "emptied":
        main.write_bytes(b"")
    elif damage == "deleted":
        main.unlink()
    else:
        main.write_bytes(main.read_bytes()[: main.stat().st_size * 2 // 3])
    left = {p.name: p.read_bytes() for p in state.iterdir() if p.name != MARKER}

    engine = started(state, sandbox, sandbox_key)
    try:
        wait_synced(engine)
        kept_as_one_backup(state, left)
        (job,) = [j for j in engine.jobs() if j.task_id == task_id]
        (problem,) = engine.store_problems()
        count = len(engine.jobs())
        assert damage in problem and count <= history + 1
        assert plainly_said(problem, state, f"brought back {count} job{'s' if count > 1 else ''} from it.")
        sandbox.complete_now(task_id)
        assert engine.wait([job.id], timeout=60)
        assert engine.get(job.id).state is JobState.READY and engine.is_own(engine.get(job.id))
        assert sandbox.submit_count == 1, "the job came back polling its task, never sent again"
    finally:
        engine.shutdown()
    again = started(state, sandbox, sandbox_key)
    try:
        assert again.store_problems() == [] and len(backup_names(state)) == 1
    finally:
        again.shutdown()


def test_a_job_being_sent_when_blender_died_comes_back_as_outcome_unknown(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any
) -> None:
    """Its request may have left and cost credits: the takeover rule holds for a job from the log."""
    sending = {**finished(1), "id": new_job_id(), "state": "submitting", "submit_sent": True, "task_id": ""}
    state = written_by_a_killed_kiln(tmp_path, [sending, finished(2)])
    the_log_held(state, sending["id"])
    (state / STORE_FILE).write_bytes(b"")

    engine = make_engine(state)
    wait_synced(engine)
    assert engine.wait([sending["id"]], timeout=30)
    came_back = engine.get(sending["id"])
    assert came_back.state is JobState.OUTCOME_UNKNOWN
    assert "cannot tell whether the service received" in came_back.error
    assert engine.get("job0002").state is JobState.IMPORTED
    assert plainly_said(engine.store_problems()[0], state, "brought back 2 jobs")
    time.sleep(1.0)
    assert sandbox.submit_attempts == 0


def test_a_log_with_nothing_committed_is_kept_and_said_with_no_job_back(
    sandbox: Any, make_engine: Any, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    _stored(state, 3)
    header = bytearray(32)
    header[:12] = bytes.fromhex("377f0682002dd11800001000")
    header[24:32] = b"".join(w.to_bytes(4, "big") for w in wal.checksum(bytes(header[:24]), "little"))
    (state / LOG).write_bytes(bytes(header))  # a header, no frame: what a crash right after a reset leaves
    (state / STORE_FILE).write_bytes(b"")
    engine = make_engine(state)
    backup = kept_as_one_backup(state, {STORE_FILE: b"", LOG: bytes(header)})
    assert plainly_said(engine.store_problems()[0], state, "could bring back no job")
    assert engine.jobs() == [] and backup.with_name(backup.name + "-wal").exists()


def test_a_main_file_a_checkpoint_left_short_is_read_whole_with_its_log_not_called_damage(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any
) -> None:
    """A Blender killed while a checkpoint copied the log into the main file (first page first)."""
    state = written_by_a_killed_kiln(tmp_path, [finished(n) for n in range(40)])
    main = (state / STORE_FILE).read_bytes()
    found = wal.committed((state / LOG).read_bytes())
    assert found is not None and 1 in found.pages and found.size > len(main) // found.page_size
    assert set(range(len(main) // found.page_size + 1, found.size + 1)) <= set(found.pages)
    # The checkpoint wrote page 1 (which names the new size) and died: the new pages are only in the log.
    (state / STORE_FILE).write_bytes(found.pages[1] + main[found.page_size :])
    engine = make_engine(state)
    wait_synced(engine)
    assert engine.store_problems() == [] and backups(state, STORE_FILE) == []
    assert len(engine.jobs()) == 40


@pytest.mark.parametrize(("damage", "history"), [("emptied", 0), ("deleted", 30)])
def test_a_list_damaged_under_a_running_kiln_is_kept_by_that_kiln_and_the_next_one_waits_for_it(
    sandbox: Any, make_engine: Any, tmp_path: Path, wait_synced: Any, damage: str, history: int
) -> None:
    """The Kiln that has the list open notices at its next heartbeat and sets the files aside before
    its SQLite could write the log into the damaged file; it writes back the jobs it holds that the
    log did not; a Kiln starting meanwhile moves nothing and opens the recovered list."""
    state = tmp_path / "state"
    state.mkdir()
    if history:
        _stored(state, history)  # in the main file, checkpointed: only the running Kiln's memory has them
    running = subprocess.Popen(
        [sys.executable, "-c", RUNNING_KILN, str(ROOT), str(state)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stdout is not None and running.stdout.readline().strip() == "saved"
        the_log_held(state, "job-live")
        if damage == "emptied":
            (state / STORE_FILE).write_bytes(b"")
        else:
            (state / STORE_FILE).unlink()
        engine = make_engine(state)  # waits while the running Kiln has the damaged list open
        assert engine.store_problems() == [], "the running Kiln recovered it; this one found it whole"
        deadline = time.monotonic() + 15
        while len(engine.jobs()) < history + 1:
            assert time.monotonic() < deadline, [job.id for job in engine.jobs()]
            time.sleep(0.2)
        assert sorted(job.id for job in engine.jobs()) == sorted(
            ["job-live", *(f"job{n:04d}" for n in range(history))]
        )
    finally:
        assert running.stdin is not None
        running.stdin.close()
        said = running.stdout.read() if running.stdout else ""
        assert running.wait(30) == 0
    assert damage in said and plainly_said(said, state, "brought back")
    (backup,) = backup_names(state)
    assert (state / f"{backup}-wal").stat().st_size > 0
    assert (state / backup).exists() == (damage == "emptied")


def test_a_list_damaged_under_another_program_is_left_as_it_is_and_said(sandbox: Any, tmp_path: Path) -> None:
    """Not a Kiln (a database browser): nobody sets the files aside; SQLite opening them would delete
    the log that program still reads, so nothing is touched, and Kiln says why."""
    state = written_by_a_killed_kiln(tmp_path, [finished(1)])
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_OPEN, str(state / STORE_FILE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "open"
        (state / STORE_FILE).write_bytes(b"")
        log = (state / LOG).read_bytes()
        with pytest.raises(StoreError) as refused:
            JobEngine(state).start()
        said = refused.value.user_message
        assert "emptied" in said and "still using it" in said
        assert (state / STORE_FILE).read_bytes() == b"" and (state / LOG).read_bytes() == log
        assert backup_names(state) == set()
    finally:
        assert other.stdin is not None
        other.stdin.close()
        other.wait(30)


RUNNING_KILN = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from api.jobs import JobEngine
from api.jobs.model import Job
engine = JobEngine(Path(sys.argv[2]))
engine.start()
assert engine._writer.synced.wait(30)  # the whole list is read, history included
record = {"id": "job-live", "request": {"kind": "text", "prompt": "a chair"}, "state": "imported",
          "task_id": "task-live", "created_at": 1.8e9}
assert engine.book.put(Job.from_json(record)).result(10)
print("saved", flush=True)
sys.stdin.read()
engine.shutdown()
print(*engine.store_problems(), flush=True)
"""

HOLD_OPEN = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("SELECT count(*) FROM jobs").fetchone()
print("open", flush=True)
sys.stdin.read()
db.close()
"""

OPEN_STORE = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from api.jobs.store import JobStore
folder = Path(sys.argv[2])
while not (folder / "go").exists():
    time.sleep(0.001)
store = JobStore(folder)
store.open()
print(len(store.problems), flush=True)
store.close()
"""


def test_two_kilns_finding_the_same_damage_at_once_make_one_backup_and_keep_the_new_list(
    tmp_path: Path,
) -> None:
    """The second must not move the first's new, healthy list (the recovery lock, judged again)."""
    for round_ in range(3):
        state = written_by_a_killed_kiln(tmp_path / f"round{round_}", [finished(1)])
        (state / STORE_FILE).write_bytes(b"")
        children = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_STORE, str(ROOT), str(state)], stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        time.sleep(0.5)
        (state / "go").touch()
        said = sorted(child.communicate(timeout=60)[0].strip() for child in children)
        assert said == ["0", "1"], "one Kiln recovered the list, the other found it recovered"
        assert len(backup_names(state)) == 1
        store = JobStore(state)
        store.open()
        assert [row.id for row in store.load()] == ["job0001"] and store.problems == []
        store.close()


def test_rows_read_from_the_logs_pages_alone_keep_the_newest_version_and_stay_removed(
    tmp_path: Path,
) -> None:
    """The main file, with the schema, is gone: the jobs are read off the log's table pages, each
    job as last written, a removed one not at all."""
    newer = {**finished(1), "state": "failed", "error": "It broke."}
    state = written_by_a_killed_kiln(
        tmp_path,
        [finished(1), finished(2), finished(3)],
        ("UPDATE jobs SET rev = 10, state = 'failed', data = ? WHERE id = 'job0001'", (json.dumps(newer),)),
        ("DELETE FROM jobs WHERE id = 'job0002'", ()),
        ("INSERT INTO removed VALUES ('job0002', 11)", ()),
    )
    backup = tmp_path / "backup"
    (backup.with_name("backup-wal")).write_bytes((state / LOG).read_bytes())
    committed = wal.committed((state / LOG).read_bytes())
    assert committed is not None and 1 not in committed.pages, "the schema page is not in the log"

    found = store_salvage.salvage(backup)
    assert {record["id"]: record for record in found.records} == {"job0001": newer, "job0003": finished(3)}
    assert found.from_log_pages == 2 and found.log_pages == len(committed.pages)


def test_a_long_record_is_read_off_the_log_through_its_overflow_pages(tmp_path: Path) -> None:
    long = {**finished(3), "request": {"kind": "text", "prompt": "a very long prompt " * 600}}
    state = written_by_a_killed_kiln(tmp_path, [finished(1), long])
    committed = wal.committed((state / LOG).read_bytes())
    assert committed is not None
    rows = [values for values in leaf_pages.rows(committed.pages, committed.page_size) if len(values) == 4]
    assert [json.loads(str(values[3])) for values in rows if values[0] == "job0003"] == [long]
    pages = {n: page for n, page in committed.pages.items() if n != max(committed.pages)}
    assert "job0003" not in {values[0] for values in leaf_pages.rows(pages, committed.page_size)}


def test_the_log_reader_reads_what_sqlite_reads(tmp_path: Path) -> None:
    """The committed pages of a real log, rebuilt into one file, hold the rows SQLite reads from it;
    a log in the other byte order too (SQLite itself reads the converted copy)."""
    state = written_by_a_killed_kiln(tmp_path, [finished(n) for n in range(30)])
    main, log = (state / STORE_FILE).read_bytes(), (state / LOG).read_bytes()
    expected = rows_sqlite_reads(tmp_path / "as-is", main, log)
    assert len(expected) == 30
    for variant in (log, other_byte_order(log)):
        assert rows_sqlite_reads(tmp_path / f"variant{variant[3]}", main, variant) == expected
        image = wal.rebuild(main, wal.committed(variant))
        assert image is not None
        db = sqlite3.connect(":memory:")
        db.deserialize(image)
        assert sorted(db.execute("SELECT id, data FROM jobs")) == expected
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_the_log_reader_stops_at_the_first_frame_that_does_not_hold(tmp_path: Path) -> None:
    state = written_by_a_killed_kiln(tmp_path, [finished(n) for n in range(5)])
    log = bytearray((state / LOG).read_bytes())
    whole = wal.committed(bytes(log))
    assert whole is not None and whole.frames >= 2
    frame = 24 + whole.page_size
    last = 32 + (whole.frames - 1) * frame
    log[last + 24 + 100] ^= 0xFF  # the last committed frame's page no longer matches its checksum
    cut = wal.committed(bytes(log))
    assert cut is not None and cut.frames < whole.frames
    assert wal.committed(bytes(log[: 32 + frame - 1])) == wal.Committed(whole.page_size)  # half a frame
    assert wal.committed(os.urandom(4096)) is None


def rows_sqlite_reads(folder: Path, main: bytes, log: bytes) -> list[tuple[str, str]]:
    """What SQLite reads from a copy of the main file and its log (a copy: SQLite may change them)."""
    folder.mkdir()
    (folder / "copy.db").write_bytes(main)
    (folder / "copy.db-wal").write_bytes(log)
    with contextlib.closing(sqlite3.connect(folder / "copy.db")) as db:
        rows = sorted(db.execute("SELECT id, data FROM jobs"))
    shutil.rmtree(folder)
    return rows


def other_byte_order(log: bytes) -> bytes:
    """The same log as a machine of the other byte order writes it (magic and every checksum)."""
    order = wal.MAGIC[int.from_bytes(log[:4], "big")]
    other = "big" if order == "little" else "little"
    out = bytearray(log)
    out[:4] = (0x377F0683 if other == "big" else 0x377F0682).to_bytes(4, "big")
    running = wal.checksum(bytes(out[:24]), other)
    out[24:32] = b"".join(word.to_bytes(4, "big") for word in running)
    page_size = int.from_bytes(log[8:12], "big")
    for offset in range(32, len(log) - 24 - page_size + 1, 24 + page_size):
        if out[offset + 8 : offset + 16] != out[16:24]:
            break
        running = wal.checksum(
            bytes(out[offset : offset + 8] + out[offset + 24 : offset + 24 + page_size]), other, running
        )
        out[offset + 16 : offset + 24] = b"".join(word.to_bytes(4, "big") for word in running)
    return bytes(out)
