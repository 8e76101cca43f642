"""Where the API key lives on each system, and what happens when its file is locked or a keyring is away."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import fs
from api.features import secrets, service_access
from api.features.key_stores import KeyStoreError
from api.features.secrets import KEY_FILE_NAME, read_key, write_key

KEY = "tsk_live_Secret0123456789abcdef"

#: A stand-in for libsecret's `secret-tool`: keeps secrets in a folder, one file per account (the last
#: argument), and logs its command lines.
SECRET_TOOL = """#!/bin/sh
store="$(dirname "$0")/keyring"
echo "$@" >> "$store.argv"
for account; do :; done
if [ -n "$KEYRING_LOCKED" ]; then echo "Cannot create an item in a locked collection" >&2; exit 1; fi
case "$1" in
  store) mkdir -p "$store"; cat > "$store/$account" ;;
  lookup) [ -f "$store/$account" ] && cat "$store/$account" || exit 1 ;;
  clear) rm -f "$store/$account" ;;
esac
"""


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A headless Linux: no session bus, so the private file is the key's home."""
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)


@pytest.fixture
def keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A Linux desktop whose Secret Service is reached through `secret-tool` on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "secret-tool"
    tool.write_text(SECRET_TOOL)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus")
    yield bin_dir


def locked_renames(monkeypatch: pytest.MonkeyPatch, times: int) -> list[Path]:
    """Windows' sharing violation: the first ``times`` renames fail with PermissionError."""
    calls: list[Path] = []
    real = Path.replace

    def replace(self: Path, target: Path) -> Path:
        calls.append(Path(target))
        if len(calls) <= times:
            raise PermissionError(13, "The process cannot access the file because it is being used")
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    monkeypatch.setattr(fs, "RETRY_DELAYS", (0.01,) * len(fs.RETRY_DELAYS))
    return calls


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
def test_headless_key_is_a_private_file(tmp_path: Path, no_keyring: None) -> None:
    assert write_key(tmp_path, f"  {KEY}\n") == "a private file in Kiln's user folder"
    path = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_key(tmp_path) == KEY
    write_key(tmp_path, "")
    assert not path.exists() and read_key(tmp_path) == ""


def test_a_briefly_locked_key_file_is_saved_after_a_retry(
    tmp_path: Path, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = locked_renames(monkeypatch, times=2)
    write_key(tmp_path, KEY)
    assert len(calls) == 3
    assert read_key(tmp_path) == KEY


def test_a_key_file_locked_for_good_is_a_sentence_and_leaves_nothing_behind(
    tmp_path: Path, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_key(tmp_path, "tsk_live_old000000000000")
    locked_renames(monkeypatch, times=100)
    with pytest.raises(KeyStoreError) as caught:
        write_key(tmp_path, KEY)
    message = caught.value.user_message
    assert message.startswith("The API key was not saved") and "another Blender" in message
    assert str(tmp_path / KEY_FILE_NAME) in caught.value.details and str(tmp_path) not in message
    assert KEY not in message and KEY not in caught.value.details
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE_NAME]
    assert read_key(tmp_path) == "tsk_live_old000000000000"  # the old key, whole: never half a file


def test_desktop_keyring_holds_the_key_never_on_a_command_line(tmp_path: Path, keyring: Path) -> None:
    folder = tmp_path / "kiln"
    assert write_key(folder, KEY) == "your desktop's keyring"
    assert (keyring / "keyring" / "api_key").read_text() == KEY
    assert not (folder / KEY_FILE_NAME).exists()
    assert read_key(folder) == KEY
    assert KEY not in (keyring / "keyring.argv").read_text()
    write_key(folder, "")
    assert read_key(folder) == ""


def test_a_key_left_in_the_plain_file_moves_into_the_keyring(tmp_path: Path, keyring: Path) -> None:
    folder = tmp_path / "kiln"
    folder.mkdir()
    (folder / KEY_FILE_NAME).write_text(KEY)
    assert read_key(folder) == KEY
    assert (keyring / "keyring" / "api_key").read_text() == KEY
    assert not (folder / KEY_FILE_NAME).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
def test_a_locked_keyring_falls_back_to_the_private_file(
    tmp_path: Path, keyring: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEYRING_LOCKED", "1")
    assert secrets.system_store(tmp_path) is None
    assert write_key(tmp_path, KEY) == "a private file in Kiln's user folder"
    assert read_key(tmp_path) == KEY


def test_the_agents_token_has_an_entry_of_its_own_beside_the_key(tmp_path: Path, keyring: Path) -> None:
    folder = tmp_path / "kiln"
    token = "a-token-made-by-kiln-0123456789abcdefghijklmno"
    write_key(folder, KEY)
    write_key(folder, token, secrets.AGENT_TOKEN)
    assert read_key(folder) == KEY and read_key(folder, secrets.AGENT_TOKEN) == token
    argv = (keyring / "keyring.argv").read_text()
    assert "account agent_token" in argv and "Kiln agents' access token" in argv and token not in argv


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
def test_headless_the_token_is_a_private_file_of_its_own(tmp_path: Path, no_keyring: None) -> None:
    token = "a-token-made-by-kiln-0123456789abcdefghijklmno"
    write_key(tmp_path, KEY)
    write_key(tmp_path, token, secrets.AGENT_TOKEN)
    path = tmp_path / secrets.AGENT_TOKEN.file_name
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_key(tmp_path, secrets.AGENT_TOKEN) == token and read_key(tmp_path) == KEY
    write_key(tmp_path, "", secrets.AGENT_TOKEN)
    assert not path.exists() and read_key(tmp_path) == KEY


@pytest.mark.parametrize(
    ("asked", "base_url", "expected"),
    [
        ("0.2", "http://127.0.0.1:8765", 0.2),
        ("0.2", "http://localhost:8765", 0.2),
        ("0.2", "https://api.example.com", 2.5),  # a service elsewhere is polled as it asks
        ("", "http://127.0.0.1:8765", 2.5),
        ("soon", "http://127.0.0.1:8765", 2.5),
        ("-1", "http://127.0.0.1:8765", 2.5),
        ("nan", "http://127.0.0.1:8765", 2.5),
    ],
)
def test_the_environment_sets_the_poll_interval_of_a_service_on_this_machine_only(
    asked: str, base_url: str, expected: float
) -> None:
    environ = {service_access.ENV_POLL_INTERVAL: asked}
    assert service_access.poll_interval(2.5, base_url, environ) == expected
