"""A large GLB becomes a .blend in a helper Blender process, so the artist's Blender only appends it.

Blender's glTF importer runs on the main thread and freezes the UI for seconds on a 1M-triangle
mesh; appending a .blend made elsewhere costs a few hundredths of that. A worker thread starts
the helper (the command is built on the main thread, see :func:`helper_command`), watches it,
kills it on cancel or timeout, and leaves no temp file behind. The script the helper runs imports
bpy, so it lives in ``operators/``, not here.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from .errors import CancelledError, KilnError

log = logging.getLogger(__name__)

SCRIPT = Path(__file__).resolve().parent.parent / "operators" / "glb_to_blend.py"
HELPER_TIMEOUT = 300.0
WATCH_SECONDS = 0.05
OUTPUT_TAIL = 600


class ConversionError(KilnError):
    """The helper could not make the .blend; the caller imports the GLB in-process instead."""


def helper_command(blender_binary: str) -> tuple[str, ...]:
    """The helper's command line, minus its file arguments; call on the main thread.

    ``blender_binary`` is ``bpy.app.binary_path``: empty when Blender runs as the bpy module,
    whose Python can then run the script itself.
    """
    if blender_binary:
        return (blender_binary, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(SCRIPT))
    return (sys.executable, str(SCRIPT))


def convert_to_blend(
    command: Sequence[str],
    glb: Path,
    blend: Path,
    *,
    cancelled: Callable[[], bool],
    timeout: float = HELPER_TIMEOUT,
) -> Path:
    """Run the helper on ``glb``; returns ``blend`` once it holds the saved file.

    Raises CancelledError when ``cancelled()`` turns true (the helper is killed first) and
    ConversionError for anything else that goes wrong. Call from a worker thread only.
    """
    if not command:
        raise ConversionError("no helper Blender is configured")
    part = blend.with_name(blend.name + ".part")
    argv = [*command, "--", str(glb), str(part)]
    try:
        with tempfile.TemporaryFile() as output:
            process = _start(argv, output)
            try:
                _watch(process, cancelled, timeout)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            if process.returncode != 0 or not part.is_file():
                raise ConversionError(
                    f"the helper ended with code {process.returncode}: {_tail(output) or 'no output'}"
                )
        part.replace(blend)
    finally:
        # Blender saves through "<name>@" and renames; a killed helper may leave either behind.
        for leftover in (part, part.with_name(part.name + "@")):
            leftover.unlink(missing_ok=True)
    return blend


def _start(argv: list[str], output: IO[bytes]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
        )
    except OSError as exc:
        raise ConversionError(f"the helper could not start ({argv[0]}: {exc.strerror or exc})") from exc


def _watch(process: subprocess.Popen[bytes], cancelled: Callable[[], bool], timeout: float) -> None:
    """Wait for the helper in short steps, so a cancel is noticed within a tick."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            process.wait(WATCH_SECONDS)
            return
        except subprocess.TimeoutExpired:
            pass
        if cancelled():
            raise CancelledError("The import preparation was cancelled.")
        if time.monotonic() > deadline:
            raise ConversionError(f"the helper did not finish within {timeout:.0f} s")


def _tail(output: IO[bytes]) -> str:
    output.seek(0)
    text = output.read().decode("utf-8", "replace").strip()
    return " ".join(text[-OUTPUT_TAIL:].split())
