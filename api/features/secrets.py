"""The API key's home: the system's secret store where there is one, else a private file; never a .blend.

The agents' access token (``AGENT_TOKEN``) lives the same way, in an entry of its own; each service's
key is a secret of its own (:func:`service_secret`). Blender saves add-on preferences into
``userpref.blend``, so neither is a stored property. Each system's store (DPAPI on Windows, the macOS
Keychain, the Secret Service on Linux desktops, else a file readable by its owner only) is in
:mod:`.key_stores`; this module picks one, reads and writes through it.

A key found in the private file while a system store works is moved into the store. All calls are
quick (ctypes, or one small process); ``KeyHome`` keeps the key in memory and saves it on a thread
of its own. Where a key and an address come from (the environment over the preferences) is
:mod:`.service_access`.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..services import old_records_service, service_id
from ..words import Message, english, english_message, message
from ..words import catalogue as words
from .key_stores import (
    KeyStore,
    KeyStoreError,
    MacKeychain,
    PrivateFile,
    Secret,
    SecretService,
    WindowsProtectedFile,
)

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)

API_KEY = Secret("api_key", words.SECRET_API_KEY)
#: The bearer token agents send to Kiln's agent server (``api.agents``); made by Kiln.
AGENT_TOKEN = Secret("agent_token", words.SECRET_AGENT_TOKEN)
KEY_FILE_NAME = API_KEY.file_name


def service_secret(service: str) -> Secret:
    """Where a service's key is kept: the key Kiln kept before it had several services is the old
    records' service's (``api.services.old_records_service``); every other service's has its id."""
    sid = service_id(service)
    return API_KEY if sid == old_records_service() else Secret(f"api_key_{sid.lower()}", words.SECRET_API_KEY)


def system_store(directory: Path, secret: Secret = API_KEY) -> KeyStore | None:
    """This system's secret store, or None where there is none (then the private file is used)."""
    if sys.platform == "win32":
        return WindowsProtectedFile(directory / f"{secret.file_name}.dpapi", secret)
    if sys.platform == "darwin":
        return MacKeychain(secret)
    tool = shutil.which("secret-tool")
    if tool and os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        store = SecretService(tool, secret)
        if store.available():
            return store
    return None


def key_store(directory: Path, secret: Secret = API_KEY) -> KeyStore:
    return system_store(directory, secret) or PrivateFile(directory / secret.file_name, secret)


def read_key(directory: Path, secret: Secret = API_KEY) -> str:
    """The saved secret, or "" when none was saved; one left in the plain file moves to the system store."""
    plain = PrivateFile(directory / secret.file_name, secret)
    store = system_store(directory, secret)
    if store is None:
        return plain.read()
    key = store.read()
    legacy = plain.read()
    if legacy and not key:
        try:
            store.write(legacy)
            plain.delete()
            log.info("Moved the %s from its plain file into %s", english(secret.what), english(store.label))
        except KeyStoreError as exc:
            log.warning("%s (%s)", exc.user_message, exc.details)
        return legacy
    return key


def write_key(directory: Path, key: str, secret: Secret = API_KEY) -> str:
    """Save (or, for an empty one, forget) the secret; returns where it went. Raises KeyStoreError."""
    store = key_store(directory, secret)
    key = key.strip()
    if key:
        store.write(key)
    else:
        store.delete()
    if not isinstance(store, PrivateFile) or store.path.name != secret.file_name:
        PrivateFile(directory / secret.file_name, secret).delete()  # no stale plain copy beside the store
    return store.label


class KeyHome:
    """A secret as the add-on keeps it (the key, or the agents' token): read once from its store,
    saved on a thread of its own.

    A system keyring, or a file an antivirus holds for a moment, must not stall Blender's UI, so a
    save runs on one thread (saves land in the order they were made) and ``status`` says the last
    one's outcome in words. ``directory`` is asked on each use (Kiln's user folder may move).
    """

    def __init__(self, directory: Callable[[], Path], secret: Secret = API_KEY) -> None:
        self._directory = directory
        self.secret = secret
        self._key: str | None = None
        self._saves: ThreadPoolExecutor | None = None
        #: The last save's outcome in English ("" before any save), and as a message to say.
        self.status = ""
        self.status_message: Message | None = None
        self.saved = True

    def read(self) -> str:
        if self._key is None:
            self._key = read_key(self._directory(), self.secret)
        return self._key

    def write(self, key: str) -> None:
        self._key = key.strip()
        if self._saves is None:
            from concurrent.futures import ThreadPoolExecutor  # loaded by the first key typed in

            self._saves = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiln-key-save")
        self._saves.submit(self._save, self._directory(), self._key)

    def _save(self, directory: Path, key: str) -> None:
        try:
            where = write_key(directory, key, self.secret)
        except KeyStoreError as exc:
            self.saved, self.status_message = False, message(words.KEY_NOT_SAVED, reason=exc.message)
            log.warning("%s (%s)", exc.user_message, exc.details)
        else:
            said = message(words.KEY_STORED_IN, where=message(where)) if key else None
            self.saved, self.status_message = True, said
        self.status = english_message(self.status_message) if self.status_message is not None else ""

    def finish(self) -> None:
        """Let a pending save finish (on unregister, and before tests look at the disk)."""
        if self._saves is not None:
            self._saves.shutdown(wait=True)
            self._saves = None

    def forget(self) -> None:
        """Read the store again next time (the add-on was enabled anew)."""
        self._key = None
