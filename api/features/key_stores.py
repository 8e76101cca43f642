"""Where a secret can be kept, one class a system: each reads, writes and deletes one secret.

* **Windows** (:class:`WindowsProtectedFile`): a file in Kiln's user folder encrypted with DPAPI for
  the signed-in Windows account (``CryptProtectData``, the protection Credential Manager itself uses):
  another account, or anyone who copies the file off a shared or network folder, cannot read it. File
  modes mean nothing there.
* **macOS** (:class:`MacKeychain`): the login Keychain (service "Kiln", account "api_key" or
  "agent_token"), through the Security framework.
* **Linux desktops** (:class:`SecretService`): the Secret Service (GNOME Keyring, KWallet) through
  ``secret-tool``, the key passed on its standard input, never on a command line.
* **Elsewhere** (:class:`PrivateFile`: headless farms, containers, a desktop whose keyring is locked
  or missing): a file readable by its owner only (mode 0600) in Kiln's user folder.

Which store a system uses, and the secrets Kiln keeps, are :mod:`.secrets`'s.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import fs
from ..errors import KilnError, StorageError
from ..words import Message, english, message
from ..words import catalogue as words

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

    def __init__(self, path: Path, secret: Secret) -> None:
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

    def __init__(self, secret: Secret) -> None:
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

    def __init__(self, tool: str, secret: Secret) -> None:
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
