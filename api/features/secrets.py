"""The API key's home: the system's secret store where there is one, else a private file; never a .blend.

The agents' access token (``AGENT_TOKEN``) lives the same way, in an entry of its own: each
:class:`Secret` names its entry in the store, its file in Kiln's user folder and itself in sentences.
Blender saves add-on preferences into ``userpref.blend``, so neither is a stored property.
Where they go instead, by system:

* **Windows**: a file in Kiln's user folder encrypted with DPAPI for the signed-in Windows account
  (``CryptProtectData``, the protection Credential Manager itself uses): another account, or anyone
  who copies the file off a shared or network folder, cannot read it. File modes mean nothing there.
* **macOS**: the login Keychain (service "Kiln", account "api_key" or "agent_token").
* **Linux desktops**: the Secret Service (GNOME Keyring, KWallet) through ``secret-tool``, the key
  passed on its standard input, never on a command line.
* **Elsewhere** (headless farms, containers, a desktop whose keyring is locked or missing): a file
  readable by its owner only (mode 0600) in Kiln's user folder.

A key found in the private file while a system store works is moved into the store. All calls are
quick (ctypes, or one small process); ``KeyHome`` keeps the key in memory and saves it on a thread
of its own. Each service's key is a secret of its own (:func:`service_secret`); where a key and an
address come from (the environment over the preferences) is :mod:`.service_access`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import fs
from ..errors import KilnError, StorageError
from ..services import old_records_service, service_id
from ..words import Message, english, english_message, message
from ..words import catalogue as words

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)

SERVICE = "Kiln"
TOOL_TIMEOUT = 5.0


@dataclass(frozen=True)
class Secret:
    """One secret Kiln keeps: its account in the system's store (also its file's name), and what
    sentences call it."""

    account: str
    #: What sentences call it: a catalogue entry ("API key").
    what: str = field(compare=False)

    @property
    def file_name(self) -> str:
        return self.account


API_KEY = Secret("api_key", words.SECRET_API_KEY)
#: The bearer token agents send to Kiln's agent server (``api.agents``); made by Kiln.
AGENT_TOKEN = Secret("agent_token", words.SECRET_AGENT_TOKEN)
KEY_FILE_NAME = API_KEY.file_name


def service_secret(service: str) -> Secret:
    """Where a service's key is kept: the key Kiln kept before it had several services is the old
    records' service's (``api.services.old_records_service``); every other service's has its id."""
    sid = service_id(service)
    return API_KEY if sid == old_records_service() else Secret(f"api_key_{sid.lower()}", words.SECRET_API_KEY)


class KeyStoreError(KilnError):
    """The key could not be saved or removed where it belongs."""


class KeyStore(Protocol):
    #: Where the key is, in words for the preferences ("the macOS Keychain"): a catalogue entry.
    label: str

    def read(self) -> str:
        """The stored key, or "" when none is stored."""
        ...

    def write(self, key: str) -> None: ...

    def delete(self) -> None: ...


class PrivateFile:
    """A file only its owner may read (mode 0600 where the system honours modes)."""

    label = words.KEY_HOME_PRIVATE_FILE

    def __init__(self, path: Path, secret: Secret = API_KEY) -> None:
        self.path = path
        self.secret = secret

    def read(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return ""

    def write(self, key: str) -> None:
        self.write_bytes(key.encode("utf-8"))

    def write_bytes(self, data: bytes) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            details = f"{self.path}: {exc.strerror or exc}"
            raise KeyStoreError(
                words.KEY_FILE_NOT_WRITTEN, details=details, what=_said(self.secret)
            ) from None
        try:
            fs.replace(tmp, self.path)
        except StorageError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            said = words.KEY_FILE_LOCKED if exc.locked else words.KEY_FILE_NOT_WRITTEN
            raise KeyStoreError(said, details=exc.details, what=_said(self.secret)) from None

    def delete(self) -> None:
        try:
            fs.unlink(self.path)
        except StorageError as exc:
            said = words.KEY_FILE_LOCKED if exc.locked else words.KEY_FILE_NOT_REMOVED
            raise KeyStoreError(said, details=exc.details, what=_said(self.secret)) from None


class WindowsProtectedFile(PrivateFile):
    """The private file's bytes encrypted for the signed-in Windows account (DPAPI)."""

    label = words.KEY_HOME_WINDOWS

    def read(self) -> str:
        try:
            blob = self.path.read_bytes()
        except OSError:
            return ""
        try:
            return _dpapi(blob, protect=False).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            what = english(self.secret.what)
            log.warning("The saved %s cannot be decrypted for this Windows account (%s)", what, exc)
            return ""

    def write(self, key: str) -> None:
        try:
            blob = _dpapi(key.encode("utf-8"), protect=True)
        except OSError as exc:
            raise KeyStoreError(words.KEY_NOT_ENCRYPTED, details=str(exc), what=_said(self.secret)) from None
        self.write_bytes(blob)


class MacKeychain:
    """The login Keychain, through the Security framework (ctypes; no process, no command line)."""

    label = words.KEY_HOME_KEYCHAIN

    def __init__(self, secret: Secret = API_KEY) -> None:
        self.secret = secret

    def read(self) -> str:
        return _keychain(self.secret).find() or ""

    def write(self, key: str) -> None:
        try:
            _keychain(self.secret).store(key)
        except OSError as exc:
            raise KeyStoreError(
                words.KEYCHAIN_REFUSED_KEY, details=str(exc), what=_said(self.secret)
            ) from None

    def delete(self) -> None:
        try:
            _keychain(self.secret).delete()
        except OSError as exc:
            raise KeyStoreError(words.KEYCHAIN_KEPT_KEY, details=str(exc), what=_said(self.secret)) from None


class SecretService:
    """The desktop's Secret Service (GNOME Keyring, KWallet) through ``secret-tool``."""

    label = words.KEY_HOME_KEYRING

    def __init__(self, tool: str, secret: Secret = API_KEY) -> None:
        self.tool = tool
        self.secret = secret

    def read(self) -> str:
        result = self._run("lookup", check=False)
        return result.stdout.strip() if result.returncode == 0 else ""

    def write(self, key: str) -> None:
        self._run("store", f"--label={SERVICE} {english(self.secret.what)}", key=key)

    def delete(self) -> None:
        self._run("clear", check=False)

    def available(self) -> bool:
        """The keyring answers (a locked or missing one makes ``lookup`` fail with no output)."""
        try:
            result = self._run("lookup", check=False)
        except KeyStoreError:
            return False
        return result.returncode == 0 or not result.stderr.strip()

    def _run(
        self, verb: str, *extra: str, key: str = "", check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        command = [self.tool, verb, *extra, "service", SERVICE, "account", self.secret.account]
        try:
            result = _run_below(command, key)
        except (OSError, subprocess.SubprocessError) as exc:
            details = f"secret-tool {verb}: {exc}"
            raise KeyStoreError(words.KEYRING_NO_ANSWER, details=details, what=_said(self.secret)) from None
        if check and result.returncode != 0:
            said = result.stderr.strip().splitlines()[-1:] or ["no reason given"]
            details = f"secret-tool {verb}: {said[0]}"
            raise KeyStoreError(words.KEYRING_REFUSED_KEY, details=details, what=_said(self.secret))
        return result


def _run_below(command: list[str], given: str) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end with ``given`` on its standard input, below the artist's Blender
    (``api.isolation.priority``), within :data:`TOOL_TIMEOUT` (killed past it)."""
    from ..isolation.priority import creation_flags, run_below  # not loaded while Kiln registers

    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        creationflags=creation_flags(),
    ) as process:
        run_below(process.pid)
        try:
            out, err = process.communicate(given, timeout=TOOL_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


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


def _said(secret: Secret) -> Message:
    """What a sentence calls ``secret``, said in the artist's words before the sentence around it."""
    return message(secret.what)


# --------------------------------------------------------------------------------- system calls


def _dpapi(data: bytes, *, protect: bool) -> bytes:
    """CryptProtectData / CryptUnprotectData for the current user (Windows only)."""
    import ctypes
    from ctypes import wintypes

    class Blob(ctypes.Structure):
        _fields_ = [("cbData", wintypes.DWORD), ("pbData", ctypes.POINTER(ctypes.c_char))]

    crypt32 = ctypes.WinDLL("crypt32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    source = ctypes.create_string_buffer(data, len(data))
    blob_in = Blob(len(data), ctypes.cast(source, ctypes.POINTER(ctypes.c_char)))
    blob_out = Blob()
    ui_forbidden = 0x1
    call = crypt32.CryptProtectData if protect else crypt32.CryptUnprotectData
    description = ctypes.c_wchar_p(SERVICE) if protect else None
    if not call(ctypes.byref(blob_in), description, None, None, None, ui_forbidden, ctypes.byref(blob_out)):
        raise ctypes.WinError(ctypes.get_last_error())  # type: ignore[attr-defined]
    try:
        return ctypes.string_at(blob_out.pbData, blob_out.cbData)
    finally:
        kernel32.LocalFree(blob_out.pbData)


class _Keychain:
    """The legacy generic-password calls of Security.framework: small, and in every macOS since 10.0."""

    def __init__(self, account: str) -> None:
        import ctypes
        import ctypes.util

        self.ct = ctypes
        path = (
            ctypes.util.find_library("Security") or "/System/Library/Frameworks/Security.framework/Security"
        )
        self.sec = ctypes.CDLL(path)
        self.cf = ctypes.CDLL(
            ctypes.util.find_library("CoreFoundation")
            or "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
        )
        self.service, self.account = SERVICE.encode(), account.encode()

    def _find(self) -> tuple[bytes | None, object]:
        ct = self.ct
        length, data, item = ct.c_uint32(), ct.c_void_p(), ct.c_void_p()
        status = self.sec.SecKeychainFindGenericPassword(
            None,
            len(self.service),
            self.service,
            len(self.account),
            self.account,
            ct.byref(length),
            ct.byref(data),
            ct.byref(item),
        )
        if status == -25300:  # errSecItemNotFound
            return None, None
        if status != 0:
            raise OSError(f"Security framework status {status}")
        try:
            return ct.string_at(data, length.value), item
        finally:
            self.sec.SecKeychainItemFreeContent(None, data)

    def find(self) -> str | None:
        try:
            secret, item = self._find()
        except OSError as exc:
            log.warning("The macOS Keychain could not be read (%s)", exc)
            return None
        if item:
            self.cf.CFRelease(item)
        return secret.decode("utf-8") if secret is not None else None

    def store(self, key: str) -> None:
        data = key.encode("utf-8")
        _, item = self._find()
        if item:
            status = self.sec.SecKeychainItemModifyAttributesAndData(item, None, len(data), data)
            self.cf.CFRelease(item)
        else:
            status = self.sec.SecKeychainAddGenericPassword(
                None, len(self.service), self.service, len(self.account), self.account, len(data), data, None
            )
        if status != 0:
            raise OSError(f"Security framework status {status}")

    def delete(self) -> None:
        _, item = self._find()
        if item:
            status = self.sec.SecKeychainItemDelete(item)
            self.cf.CFRelease(item)
            if status != 0:
                raise OSError(f"Security framework status {status}")


def _keychain(secret: Secret) -> _Keychain:
    return _Keychain(secret.account)
