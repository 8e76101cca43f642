"""The warm helper Blender: one long-lived child that turns GLBs into .blend files, one at a time.

Protocol, JSON lines: the child (``helper_blender/request_loop.py``) prints ``MARK {"ready": …}`` once
started, then answers each request ``{"glb": …, "blend": …}`` read from its stdin with
``MARK {"ok": true, "peak_rss": …}`` or ``MARK {"ok": false, "error": "memory"|"import", …}``.
Blender and its importer print freely on the same stdout, so only marked lines count.

Limits: a memory ceiling (on Linux the child caps its own address space with ``RLIMIT_AS``; its
watchdog thread, in ``child``, polls its resident size on every OS and kills it past the ceiling), a
time limit per mesh and one for starting. Any failure kills the child and the next mesh starts a fresh one.
The child ends after some idle minutes, on ``close()`` (engine shutdown: add-on disabled), at
interpreter exit, and by itself when its stdin closes (the artist's Blender quit or crashed). An
idle child is ended by closing its stdin, so Blender ends as it should and removes its temporary
folder; a sick or busy one is killed.
The limit is not set through ``preexec_fn``: CPython documents running Python between fork and
exec as unsafe in a threaded process, and Blender is one.

Worker threads only: every method may block.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import fs
from ..errors import CancelledError, StorageError
from ..words import catalogue as words
from .child import POLL_SECONDS, HelperProcess
from .errors import (
    HelperCrashed,
    HelperOutOfMemory,
    HelperTimedOut,
    HelperUnavailable,
    IsolationError,
    MeshRejected,
)
from .limits import HelperLimits
from .route import NO_BLENDER_PROGRAM

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """What the helper made: the .blend, and what finishing the result said."""

    blend: Path
    #: The quality report (``kiln_quality`` JSON), also on every object in ``blend``.
    quality: str = ""
    exported: tuple[str, ...] = ()
    #: Finishing failed (the import did not): the reason, for the log and the job's note.
    finish_error: str = ""
    #: The picture rendered for a review sheet (``review_picture(blend)``), when one was asked and made.
    picture: Path | None = None

    @classmethod
    def from_answer(cls, blend: Path, answer: dict[str, Any]) -> Prepared:
        exported = answer.get("exported")
        return cls(
            blend=blend,
            quality=str(answer.get("quality") or ""),
            exported=tuple(str(p) for p in exported) if isinstance(exported, list) else (),
            finish_error=str(answer.get("finish_error") or ""),
            picture=review_picture(blend) if answer.get("picture") else None,
        )


def review_picture(blend: Path) -> Path:
    """Where the helper renders a result's review-sheet picture: beside its .blend, named by Kiln."""
    return blend.with_name(f"{blend.stem}.review.png")


class ImportHelper:
    """The warm helper: started with the first mesh, reused, ended when idle or closed."""

    def __init__(self) -> None:
        self._busy = threading.Lock()  # one mesh at a time
        self._child: HelperProcess | None = None
        self._key: tuple[tuple[str, ...], int] | None = None
        self._idle: threading.Timer | None = None
        self._generation = 0
        self._unstartable: dict[tuple[str, ...], str] = {}  # command → why it could not start
        self.peak_bytes = 0
        _live.add(self)

    @property
    def pid(self) -> int | None:
        """The running helper's process id (None when none runs)."""
        child = self._child
        return child.pid if child is not None and child.alive() else None

    def convert(
        self,
        command: Sequence[str],
        limits: HelperLimits,
        glb: Path,
        blend: Path,
        *,
        cancelled: Callable[[], bool],
    ) -> Path:
        """Have the helper write ``blend`` from ``glb``; returns ``blend`` (see :meth:`prepare`)."""
        return self.prepare(command, limits, glb, blend, cancelled=cancelled).blend

    def prepare(
        self,
        command: Sequence[str],
        limits: HelperLimits,
        glb: Path,
        blend: Path,
        *,
        cancelled: Callable[[], bool],
        game: str = "",
        label: str = "",
        asset: dict[str, Any] | None = None,
        provenance: str = "",
    ) -> Prepared:
        """Have the helper write ``blend`` from ``glb``, finished as ``game`` asks (``api.features.quality``);
        with ``asset`` (what describes it, plain values) ``blend`` holds the result as a library asset;
        ``provenance`` (``api.features.provenance``, JSON) goes into an export it writes.

        Raises HelperUnavailable (import in place instead), another IsolationError (a sentence for
        the job; the helper is restarted for the next mesh) or CancelledError.
        """
        self._refuse_unstartable(command)
        self._take_turn(cancelled)
        generation = self._generation
        part = blend.with_name(blend.name + ".part")
        try:
            self._cancel_idle()
            child = self._ready_child(tuple(command), limits, cancelled)
            sent = time.monotonic()
            request = {"glb": str(glb), "blend": str(part), "game": game, "label": label}
            request["picture"] = str(review_picture(blend))
            if provenance:
                request["provenance"] = provenance
            answer = self._ask(child, {**request, "asset": asset} if asset else request, limits, cancelled)
            if not part.is_file():
                raise HelperCrashed(details="the helper answered but wrote no file")
            fs.replace(part, blend)
            log.debug(
                "Helper made %s in %.3f s (%.3f s of it importing, finishing and saving)",
                blend.name,
                time.monotonic() - sent,
                float(answer.get("seconds") or 0.0),
            )
            return Prepared.from_answer(blend, answer)
        except StorageError:
            raise  # a locked or full disk here, not a sick helper: it stays warm
        except IsolationError as exc:
            self._discard()
            if generation != self._generation:
                raise CancelledError(
                    words.OPENING_CANCELLED, details="Kiln stopped its helper Blender"
                ) from exc
            log.warning("The helper Blender failed on %s: %s (%s)", glb.name, type(exc).__name__, exc.details)
            raise
        except BaseException:
            self._discard()
            raise
        finally:
            self._tidy(part, limits)

    def _refuse_unstartable(self, command: Sequence[str]) -> None:
        if not command:
            raise HelperUnavailable(words.MESHES_OPEN_HERE_NO_PROGRAM, details=NO_BLENDER_PROGRAM)
        if tuple(command) in self._unstartable:
            # It failed to start once this session: do not make every job wait for it again.
            raise HelperUnavailable(details=self._unstartable[tuple(command)])

    def _tidy(self, part: Path, limits: HelperLimits) -> None:
        """After a request, whatever came of it: no part file left, the helper kept warm, the turn over."""
        # Blender saves through "<name>@" and renames; a killed helper may leave either behind.
        for leftover in (part, part.with_name(part.name + "@")):
            if leftover.exists():
                fs.discard(leftover)
        if self._child is not None:
            self._arm_idle(limits.idle_seconds)
        self._busy.release()

    def _ask(
        self,
        child: HelperProcess,
        request: dict[str, Any],
        limits: HelperLimits,
        cancelled: Callable[[], bool],
    ) -> dict[str, Any]:
        """One request to a ready helper and its answer; a refusal raised as the error it names."""
        child.send(request)
        answer = child.receive(
            time.monotonic() + limits.seconds_per_mesh,
            cancelled,
            lambda: HelperTimedOut(limits.seconds_per_mesh),
        )
        self.peak_bytes = max(self.peak_bytes, child.peak, int(answer.get("peak_rss") or 0))
        if not answer.get("ok"):
            detail = str(answer.get("detail", ""))
            raise (
                HelperOutOfMemory(child.ceiling, detail)
                if answer.get("error") == "memory" or child.ran_out_of_memory()
                else MeshRejected(details=detail)
            )
        return answer

    def close(self) -> None:
        """End the helper now (add-on disabled, engine stopped, Blender quitting): an idle one as
        Blender ends, one opening a mesh killed (the job resumes at the next start)."""
        self._cancel_idle()
        self._generation += 1
        if self._busy.acquire(blocking=False):
            try:
                self._discard(idle=True)
            finally:
                self._busy.release()
        else:
            self._discard()

    def _take_turn(self, cancelled: Callable[[], bool]) -> None:
        while not self._busy.acquire(timeout=POLL_SECONDS):
            if cancelled():
                raise CancelledError(words.OPENING_CANCELLED)

    def _ready_child(
        self, command: tuple[str, ...], limits: HelperLimits, cancelled: Callable[[], bool]
    ) -> HelperProcess:
        key = (command, limits.ceiling)
        if self._child is not None and self._child.alive() and self._key == key:
            return self._child
        self._discard(idle=True)
        try:
            return self._start(command, limits, cancelled)
        except HelperUnavailable as exc:
            self._unstartable[command] = exc.details
            raise

    def _start(
        self, command: tuple[str, ...], limits: HelperLimits, cancelled: Callable[[], bool]
    ) -> HelperProcess:
        started = time.monotonic()
        child = HelperProcess(command, limits.ceiling)
        self._child, self._key = child, (command, limits.ceiling)
        try:
            hello = child.receive(
                started + limits.start_seconds,
                cancelled,
                lambda: HelperUnavailable(
                    details=f"the helper Blender did not start within {limits.start_seconds:.0f} s"
                ),
            )
        except HelperCrashed as exc:
            raise HelperUnavailable(
                details=f"the helper Blender stopped while starting ({exc.details})"
            ) from exc
        if not hello.get("ready"):
            raise HelperUnavailable(details=f"the helper Blender answered {hello!r} instead of starting")
        log.info(
            "Helper Blender %s started (pid %d) in %.1f s",
            hello.get("blender", ""),
            child.pid,
            time.monotonic() - started,
        )
        return child

    def _discard(self, idle: bool = False) -> None:
        """Forget the helper: an ``idle`` one (this thread holds the turn) is asked to end, any other
        (failed, or opening a mesh nobody waits for now) is killed."""
        child, self._child, self._key = self._child, None, None
        if child is None:
            return
        if idle:
            child.end()
        else:
            child.kill()

    def _arm_idle(self, seconds: float) -> None:
        self._cancel_idle()
        timer = threading.Timer(seconds, self._end_if_idle)
        timer.daemon = True
        timer.name = "kiln-helper-idle"
        self._idle = timer
        timer.start()

    def _cancel_idle(self) -> None:
        timer, self._idle = self._idle, None
        if timer is not None:
            timer.cancel()

    def _end_if_idle(self) -> None:
        if self._busy.acquire(blocking=False):
            try:
                if self._child is not None:
                    log.info("Helper Blender idle: ending it")
                self._discard(idle=True)
            finally:
                self._busy.release()


_live: weakref.WeakSet[ImportHelper] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Blender quitting: no helper outlives it (each would also end on its own when stdin closes)."""
    for helper in list(_live):
        helper.close()
