"""The agents room's one logger, which masks the access token and the host's secrets in every line.

Every module of the room logs through :data:`log` rather than a logger of its own: a filter on a
logger is not inherited by the loggers below it, so one logger is the one place the mask is sure
to apply. Masking uses the HTTP room's :func:`~api.http.redact.redact` (the forms of a secret
Kiln can predict: as is, URL- or JSON-escaped, or cut short at the end of a line).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from ..http.redact import redact

log = logging.getLogger(__package__ or "kiln.agents")


class Secrets:
    """Texts no response or log line of the room may carry (tokens of running servers, the key)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[str, int] = {}

    def add(self, texts: Iterable[str]) -> None:
        with self._lock:
            for text in texts:
                if text:
                    self._texts[text] = self._texts.get(text, 0) + 1

    def discard(self, texts: Iterable[str]) -> None:
        with self._lock:
            for text in texts:
                left = self._texts.get(text, 0) - 1
                if left > 0:
                    self._texts[text] = left
                else:
                    self._texts.pop(text, None)

    def mask(self, text: str) -> str:
        with self._lock:
            texts = sorted(self._texts, key=len, reverse=True)
        for secret in texts:
            text = redact(text, secret)
        return text


SECRETS = Secrets()


class MaskSecrets(logging.Filter):
    """Rewrites a record's message (and its traceback) with every secret masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = SECRETS.mask(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = SECRETS.mask(logging.Formatter().formatException(record.exc_info))
        return True


log.addFilter(MaskSecrets())
