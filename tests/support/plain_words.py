"""What an artist must never read in a sentence about Kiln's job list (the console log has it all)."""

from __future__ import annotations

#: SQLite's words, the log's and index's file endings, backup file names, plurals made with "(s)".
INTERNALS = ("WAL", "write-ahead", "-wal", "-shm", "SQLite", "sqlite3", "job(s)", "damaged-")


def internals_in(sentence: str) -> list[str]:
    """The words of Kiln's insides in ``sentence``; empty when it is plain."""
    return [word for word in INTERNALS if word in sentence]
