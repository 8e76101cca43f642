"""One helper Blender process: started below the artist's Blender, its marked answers read, its
memory watched.

``HelperProcess`` is what ``helper.ImportHelper`` starts, asks and ends: the process itself, the
thread reading its output (only lines with :data:`MARK` are answers; the rest is kept as a tail for
what a crash left behind), and the thread that polls its resident size and kills it past its
ceiling. Worker threads only: every method may block.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import CancelledError
from ..words import catalogue as words
from .errors import HelperCrashed, HelperOutOfMemory, HelperUnavailable, IsolationError
from .memory import resident_bytes
from .priority import creation_flags, run_below

log = logging.getLogger(__name__)

MARK = "KILN-HELPER "  # the same string is in helper_blender/request_loop.py
POLL_SECONDS = 0.05
WATCH_SECONDS = 0.1
TAIL_LINES = 12
#: How long an idle helper asked to end (its input closed) has to end as Blender ends before it is killed.
END_SECONDS = 10.0
#: Words in a crashed helper's last output that say it ran out of memory (Blender's allocator, C++, Python),
#: compared case-blind. Blender's allocator says "Malloc returns null" or "Calloc returns null" (and then
#: often dies of SIGSEGV).
OUT_OF_MEMORY_WORDS = (
    "MemoryError",
    "alloc returns null",
    "out of memory",
    "bad_alloc",
    "Cannot allocate memory",
)


class HelperProcess:
    """One helper process, the thread reading its output and the thread watching its memory."""

    def __init__(self, command: Sequence[str], ceiling: int) -> None:
        self.ceiling = ceiling
        self.peak = 0
        self.over_ceiling = False
        #: A line of its output said an allocation failed (kept: a traceback after it fills the tail).
        self.said_out_of_memory = False
        self.messages: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        argv = [*command, "--", "--memory-limit", str(ceiling)]
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                creationflags=creation_flags(),
            )
        except OSError as exc:
            raise HelperUnavailable(
                details=f"the helper Blender could not start ({argv[0]}: {exc.strerror or exc})"
            ) from exc
        run_below(self.process.pid)  # below the artist's Blender (``priority``)
        for target, name in ((self._read, "reader"), (self._watch, "memory")):
            threading.Thread(target=target, name=f"kiln-helper-{name}", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            at = line.find(MARK)
            if at >= 0:
                try:
                    self.messages.put(json.loads(line[at + len(MARK) :]))
                    continue
                except ValueError:
                    pass
            if line.strip():
                self.tail.append(line.strip())
                log.debug("helper: %s", line.strip())
                lowered = line.lower()
                if any(word.lower() in lowered for word in OUT_OF_MEMORY_WORDS):
                    self.said_out_of_memory = True
        self.messages.put(None)

    def _watch(self) -> None:
        while self.alive():
            resident = resident_bytes(self.pid)
            if resident is not None:
                self.peak = max(self.peak, resident)
                if resident > self.ceiling:
                    log.warning(
                        "The helper Blender holds %d MB, over its ceiling: stopping it", resident >> 20
                    )
                    self.over_ceiling = True
                    self.kill()
                    return
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(WATCH_SECONDS)

    def send(self, request: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except OSError as exc:
            raise self.ended() from exc

    def receive(
        self, deadline: float, cancelled: Callable[[], bool], late: Callable[[], IsolationError]
    ) -> dict[str, Any]:
        """The next marked message; waits in short steps so a cancel is noticed within one."""
        while True:
            try:
                message = self.messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if cancelled():
                    raise CancelledError(words.OPENING_CANCELLED) from None
                if time.monotonic() > deadline:
                    raise late() from None
                continue
            if message is None:
                raise self.ended()
            return message

    def ended(self) -> IsolationError:
        """The helper's output ended: why (memory, or a crash), from what it left behind."""
        try:
            code = self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.returncode
        said = " | ".join(self.tail)
        detail = f"exit code {code}: {said or 'no output'}"
        if self.ran_out_of_memory():
            return HelperOutOfMemory(self.ceiling, detail)
        return HelperCrashed(details=detail)

    def ran_out_of_memory(self) -> bool:
        """Over the ceiling, or its output said an allocation failed (before a crash, or before an
        importer error that only follows from it, such as "foreach_set sequence length mismatch")."""
        return self.over_ceiling or self.said_out_of_memory

    def end(self) -> None:
        """Close its input, so it ends as Blender ends and removes its own temporary folder (a killed
        Blender leaves one behind in the artist's temp folder, for every helper); killed if it has
        not ended within END_SECONDS. Returns at once: a thread of its own waits."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        threading.Thread(target=self._end_or_kill, name="kiln-helper-end", daemon=True).start()

    def _end_or_kill(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(END_SECONDS)
        self.kill()

    def kill(self) -> None:
        if self.alive():
            self.process.kill()
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            log.error("The helper Blender (pid %d) did not stop when killed", self.pid)
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
