"""Suite-wide guard: no API key may appear in any log record or failure text of the whole run.

Installed as a pytest plugin by conftest. Server-side loggers (the sandbox, uvicorn) are
ignored: they play the service, which legitimately sees keys. Everything else — Kiln, api/,
requests, urllib3 at DEBUG — is collected, and the run fails at the end if a key shows up.
"""

from __future__ import annotations

import logging
import re

import pytest

KEY_SHAPE = re.compile(r"\b[A-Za-z0-9]+_live_[A-Za-z0-9]{4,}")
SERVER_LOGGERS = ("sandbox", "uvicorn", "fastapi")


class KeyWatch(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.leaks: list[str] = []
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(SERVER_LOGGERS):
            return
        self.records += 1
        text = record.getMessage()
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        self.note(f"log {record.name}", text)

    def note(self, where: str, text: str) -> None:
        if "_live_" not in text:  # the pattern's own scan restarts at every word of a long text
            return
        for match in KEY_SHAPE.findall(text):
            self.leaks.append(f"{where}: …{match[:12]}…")


_watch = KeyWatch()


def pytest_sessionstart(session: pytest.Session) -> None:
    root = logging.getLogger()
    root.addHandler(_watch)
    root.setLevel(logging.DEBUG)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed and report.longreprtext:
        _watch.note(f"failure of {report.nodeid}", report.longreprtext)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    logging.getLogger().removeHandler(_watch)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if _watch.leaks:
        if reporter:
            reporter.write_line(f"API KEY LEAKED in {len(_watch.leaks)} place(s):", red=True)
            for leak in _watch.leaks[:20]:
                reporter.write_line(f"  {leak}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif reporter:
        reporter.write_line(f"Key watch: {_watch.records} log records checked, no API key found")
