"""The suite-wide key watch really catches a key in a log record."""

from __future__ import annotations

import logging

from key_watch import KeyWatch


def test_key_watch_flags_a_logged_key_and_ignores_the_server() -> None:
    watch = KeyWatch()
    logger = logging.getLogger("bl_ext.kiln_dev.kiln.test")
    server = logging.getLogger("sandbox.app.test")
    for each in (logger, server):
        each.addHandler(watch)
        each.propagate = False  # keep this deliberate leak away from the suite-wide watch
    try:
        logger.warning("Authorization: Bearer %s", "sbx_live_abcdef123456")
        logger.warning("nothing secret here")
        server.warning("server saw sbx_live_abcdef123456")
    finally:
        for each in (logger, server):
            each.removeHandler(watch)
            each.propagate = True
    assert len(watch.leaks) == 1
    assert "bl_ext.kiln_dev.kiln.test" in watch.leaks[0]
