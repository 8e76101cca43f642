"""The Windows and macOS homes of a key, on this Linux machine: the system calls replaced by stand-ins.

What differs from a real Windows or Mac: DPAPI (``key_stores._dpapi``) is a reversible stand-in that
refuses a blob it did not make, as DPAPI refuses another account's; the Keychain (``_keychain``) is a
dictionary that can be locked. The ctypes calls themselves run only on those systems. What is tested
here is Kiln's part: which store a system gets, where its file is, what a refusal says, and that a key
left in the plain file moves into the store.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from api.features import key_stores, secrets
from api.features.key_stores import KeyStoreError
from api.features.secrets import KEY_FILE_NAME, read_key, write_key

KEY = "msy_live_Secret0123456789abcdef"
MADE_HERE = b"stand-in DPAPI for this account:"


def dpapi(data: bytes, *, protect: bool) -> bytes:
    """Encrypts by reversing the bytes behind a mark; a blob without the mark is another account's."""
    if protect:
        return MADE_HERE + data[::-1]
    if not data.startswith(MADE_HERE):
        raise OSError(13, "The data is invalid")
    return data[len(MADE_HERE) :][::-1]


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(key_stores, "_dpapi", dpapi)


class Keychain:
    """The login Keychain: one item an account, and a lock that makes every call fail."""

    def __init__(self) -> None:
        self.items: dict[str, str] = {}
        self.locked = False

    def __call__(self, secret: key_stores.Secret) -> Keychain.Item:
        return Keychain.Item(self, secret.account)

    class Item:
        def __init__(self, chain: Keychain, account: str) -> None:
            self.chain, self.account = chain, account

        def _open(self) -> None:
            if self.chain.locked:
                raise OSError("Security framework status -25308")

        def find(self) -> str | None:
            return None if self.chain.locked else self.chain.items.get(self.account)

        def store(self, key: str) -> None:
            self._open()
            self.chain.items[self.account] = key

        def delete(self) -> None:
            self._open()
            self.chain.items.pop(self.account, None)


@pytest.fixture
def mac(monkeypatch: pytest.MonkeyPatch) -> Keychain:
    chain = Keychain()
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(key_stores, "_keychain", chain)
    return chain


def test_on_windows_the_key_is_a_file_encrypted_for_the_account(tmp_path: Path, windows: None) -> None:
    assert write_key(tmp_path, KEY) == "Kiln's user folder, encrypted for your Windows account"
    blob = (tmp_path / f"{KEY_FILE_NAME}.dpapi").read_bytes()
    assert KEY.encode() not in blob and blob.startswith(MADE_HERE)
    assert not (tmp_path / KEY_FILE_NAME).exists()
    assert read_key(tmp_path) == KEY
    write_key(tmp_path, "")
    assert read_key(tmp_path) == "" and not (tmp_path / f"{KEY_FILE_NAME}.dpapi").exists()


def test_on_windows_another_accounts_file_reads_as_no_key_and_is_said_in_the_log(
    tmp_path: Path, windows: None, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / f"{KEY_FILE_NAME}.dpapi").write_bytes(b"made for someone else")
    with caplog.at_level(logging.WARNING):
        assert read_key(tmp_path) == ""
    assert "cannot be decrypted for this Windows account" in caplog.text


def test_on_windows_a_key_windows_cannot_encrypt_is_a_sentence_and_nothing_is_written(
    tmp_path: Path, windows: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(data: bytes, *, protect: bool) -> bytes:
        raise OSError(87, "The parameter is incorrect")

    monkeypatch.setattr(key_stores, "_dpapi", refused)
    with pytest.raises(KeyStoreError) as raised:
        write_key(tmp_path, KEY)
    assert raised.value.user_message == "Windows could not encrypt the API key, so it was not saved."
    assert list(tmp_path.iterdir()) == []


def test_on_windows_a_key_left_in_the_plain_file_moves_into_the_encrypted_one(
    tmp_path: Path, windows: None
) -> None:
    (tmp_path / KEY_FILE_NAME).write_text(KEY, encoding="utf-8")
    assert read_key(tmp_path) == KEY
    assert not (tmp_path / KEY_FILE_NAME).exists()
    assert dpapi((tmp_path / f"{KEY_FILE_NAME}.dpapi").read_bytes(), protect=False) == KEY.encode()


def test_on_a_mac_each_services_key_is_its_own_keychain_item(tmp_path: Path, mac: Keychain) -> None:
    meshy = secrets.service_secret("MESHY")
    assert write_key(tmp_path, KEY, meshy) == "the macOS Keychain"
    assert mac.items == {meshy.account: KEY} and list(tmp_path.iterdir()) == []
    assert read_key(tmp_path, meshy) == KEY and read_key(tmp_path) == ""
    write_key(tmp_path, "", meshy)
    assert mac.items == {}


def test_on_a_mac_a_locked_keychain_is_a_sentence_and_the_key_stays_where_it_was(
    tmp_path: Path, mac: Keychain
) -> None:
    write_key(tmp_path, KEY)
    mac.locked = True
    with pytest.raises(KeyStoreError) as raised:
        write_key(tmp_path, "a newer key")
    assert raised.value.user_message == "The macOS Keychain did not take the API key."
    with pytest.raises(KeyStoreError) as raised:
        write_key(tmp_path, "")
    assert raised.value.user_message == "The macOS Keychain did not remove the API key."
    mac.locked = False
    assert read_key(tmp_path) == KEY


def test_on_a_mac_a_key_left_in_the_plain_file_moves_into_the_keychain(tmp_path: Path, mac: Keychain) -> None:
    (tmp_path / KEY_FILE_NAME).write_text(KEY, encoding="utf-8")
    assert read_key(tmp_path) == KEY
    assert mac.items == {"api_key": KEY} and not (tmp_path / KEY_FILE_NAME).exists()
