"""A second file system for the shared-library tests: one folder exported over SFTP, mounted with
sshfs (FUSE) once per Kiln, as separate machines would mount a studio share.

Why sshfs: this machine's kernel has no NFS or SMB client (no ``nfs``/``cifs`` in
/proc/filesystems), but it has FUSE. An sshfs mount is a network file system with its own client
caches per mount, atomic rename over SFTP's posix-rename, and no file locks shared between
mounts: the case where locks are not honoured. Needs root (mounting), ``sshd`` and ``sshfs``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")


def unavailable() -> str:
    """Why the share cannot be made here ("" when it can)."""
    if os.name != "posix" or os.geteuid() != 0:
        return "mounting a share needs root"
    if not SSHD.exists() or shutil.which("sshfs") is None or shutil.which("ssh-keygen") is None:
        return "needs sshd, ssh-keygen and sshfs (apt-get install openssh-server sshfs)"
    if not Path("/dev/fuse").exists():
        return "no /dev/fuse"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def shared_mounts(work: Path, count: int) -> Iterator[tuple[Path, list[Path]]]:
    """The exported folder and ``count`` sshfs mounts of it (each a "machine"), removed afterwards."""
    keys, export = work / "ssh", work / "export"
    keys.mkdir(parents=True)
    export.mkdir()
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
    port = _free_port()
    (keys / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host_key'}\n"
        f"AuthorizedKeysFile {keys / 'client_key.pub'}\nPermitRootLogin prohibit-password\n"
        f"PasswordAuthentication no\nStrictModes no\nSubsystem sftp internal-sftp\n"
        f"PidFile {keys / 'sshd.pid'}\n",
        encoding="utf-8",
    )
    Path("/run/sshd").mkdir(exist_ok=True)
    sshd = subprocess.Popen([str(SSHD), "-D", "-f", str(keys / "sshd_config"), "-E", str(keys / "sshd.log")])
    mounts: list[Path] = []
    try:
        options = f"IdentityFile={keys / 'client_key'},StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null"
        for i in range(count):
            mount = work / f"machine-{i}"
            mount.mkdir()
            for _attempt in range(50):  # sshd takes a moment to listen
                done = subprocess.run(
                    ["sshfs", "-p", str(port), "-o", options, f"root@127.0.0.1:{export}", str(mount)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode == 0:
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"sshfs could not mount the share: {done.stderr}")
            mounts.append(mount)
        yield export, mounts
    finally:
        for mount in mounts:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)
        sshd.terminate()
        sshd.wait(10)
