"""Kiln in this Blender as the agent server's tools reach it: ``api.agents.AgentHost``, implemented.

The server calls these methods on its HTTP worker threads, which never touch bpy. A worker answers
from plain values the main thread copied here on the watcher's last beat (:meth:`BlenderHost.refresh`:
the secrets, the price of a text job, where uploads go, the library's folder), does the work that
needs no Blender itself (an image's bytes saved where Kiln keeps its uploads, a look in the library's
index, which reads files: better a worker than the UI thread), and hops to the main thread through
the bridge for everything else (``agents.actions`` and ``agents.views``): a worker waits at most the
bridge's deadline, and the UI never waits on a worker.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import bpy

from .. import preferences
from ..api.agents import AgentRequest, HostBusy, JobView, LibraryMatch, MainThreadBridge
from ..api.agents import words as agent_words
from ..api.agents.logs import SECRETS
from ..api.checks.glb import image_kind
from ..api.errors import InputError, KilnError
from ..api.features.concept_image import check_request
from ..api.features.library_index import LibraryIndex, request_key
from ..api.jobs import UPLOADS_DIR, JobKind, JobRequest
from ..api.jobs.disk import ensure_folder
from ..api.services import service_ids
from ..session import library
from . import actions, views

log = logging.getLogger(__name__)

#: What an image sent as data is called in the job list when the agent gave it no name.
UPLOAD_PREFIX = "agent-image"


@dataclass(frozen=True)
class Plain:
    """What workers may know, copied on the main thread."""

    secrets: tuple[str, ...] = field(default=(), repr=False)
    text_cost: int | None = None
    service: str = ""
    library: Path = Path()
    #: Where the image checks keep the prepared images (Kiln's uploads folder).
    uploads: Path = Path()


class BlenderHost:
    def __init__(self, bridge: MainThreadBridge) -> None:
        """Made on the main thread (where the user folder is asked for)."""
        self.bridge = bridge
        self._plain = Plain()
        self._uploads = preferences.user_dir() / UPLOADS_DIR
        #: The workers' own reader of the library's index (the Sidebar's is the main thread's).
        self._index: LibraryIndex | None = None
        self._index_lock = threading.Lock()

    def refresh(self, context: bpy.types.Context) -> None:
        """Main thread, each beat: the plain values workers answer from (replaced whole)."""
        keys = (preferences.credentials(context, sid).api_key for sid in service_ids())
        self._plain = Plain(
            secrets=tuple(key for key in keys if key),
            text_cost=preferences.text_cost(context),
            service=preferences.chosen_service(context),
            library=library.library_dir(context),
            uploads=preferences.user_dir() / UPLOADS_DIR,
        )

    # --- answered from plain values ----------------------------------------------------------------
    def secrets(self) -> tuple[str, ...]:
        return self._plain.secrets

    def text_cost(self) -> int | None:
        return self._plain.text_cost

    def default_service(self) -> str:
        return self._plain.service

    # --- the library -------------------------------------------------------------------------------
    def library_match(self, ask: AgentRequest) -> LibraryMatch | None:
        self._refuse_secrets(ask)
        key = request_key(ask.request, ask.image)
        if key is None:  # an image by its address: nothing to compare
            return None
        folder = self._plain.library
        with self._index_lock:
            if self._index is None or self._index.folder != folder:
                self._index = LibraryIndex(folder)
            entry = self._index.lookup(key)
        return LibraryMatch(entry.label, entry.date) if entry is not None else None

    def reuse(self, ask: AgentRequest, match: LibraryMatch) -> Sequence[str]:
        key = request_key(ask.request, ask.image)
        if key is None:
            raise KilnError(agent_words.LIBRARY_COPY_GONE)
        return self.bridge.call(actions.reuse, key, replace(ask.request, agent=ask.agent))

    # --- jobs --------------------------------------------------------------------------------------
    def submit(self, ask: AgentRequest) -> JobView:
        self._refuse_secrets(ask)
        request = replace(ask.request, agent=ask.agent)
        upload = self._save_upload(ask.image) if ask.image is not None else None
        if upload is not None:
            request = replace(request, image_path=str(upload), name=request.name or upload.stem)
        saved = [self._save_upload(data) for data in ask.views if data is not None]
        if saved:
            request = replace(request, views=_with_saved(request.views, ask.views, saved))
        try:
            request = self._checked(request)  # here, on the server's worker: never on the main thread
            return self.bridge.call(actions.start_job, request)
        except (HostBusy, KilnError) as exc:
            if not (isinstance(exc, HostBusy) and exc.maybe_done):
                for path in (upload, *saved):  # nothing was recorded: nobody else will remove them
                    if path is not None:
                        path.unlink(missing_ok=True)
            raise

    def job(self, job_id: str) -> JobView | None:
        return self.bridge.call(views.of_id, job_id)

    def jobs(self) -> Sequence[JobView]:
        return self.bridge.call(views.agents_jobs)

    def cancel(self, job_id: str) -> JobView:
        return self.bridge.call(actions.cancel, job_id)

    def import_job(self, job_id: str) -> JobView:
        return self.bridge.call(actions.import_now, job_id)

    def preview_path(self, job_id: str) -> Path | None:
        return self.bridge.call(actions.preview_of, job_id)

    # --- on the worker -----------------------------------------------------------------------------
    def _checked(self, request: JobRequest) -> JobRequest:
        """An image job's image checked and prepared before a credit is spent; a refusal sends nothing.
        What was found rides with the job (``get_job``'s ``image_check``)."""
        if JobKind(request.kind) is not JobKind.IMAGE or not request.image_path:
            return request  # an agent's address is fetched by the service, never by Kiln (api.agents.images)
        checked = check_request(request, prepare=True, uploads=self._plain.uploads)
        refused = checked.refusal
        if refused is not None:
            raise InputError(refused.entry, **refused.values)
        return checked.request

    def _refuse_secrets(self, ask: AgentRequest) -> None:
        """Kiln's token or key in what an agent asks for would travel to the service and into the job
        list, the Sidebar and the logs: refused before anything else happens."""
        request = ask.request
        for text in (request.prompt, request.name, request.image_url):
            if text and (SECRETS.mask(text) != text or any(s in text for s in self._plain.secrets)):
                raise KilnError(agent_words.SECRET_IN_REQUEST)

    def _save_upload(self, image: bytes) -> Path:
        """The checked bytes where Kiln keeps what it uploads, under a name Kiln made."""
        folder = self._uploads
        ensure_folder(folder, "keep an image an agent sent")
        suffix = {"jpeg": ".jpg", "webp": ".webp"}.get(image_kind(image[:16]) or "", ".png")
        path = folder / f"{UPLOAD_PREFIX}-{uuid.uuid4().hex[:8]}{suffix}"
        try:
            path.write_bytes(image)
        except OSError as exc:
            log.warning("Could not keep an agent's image in %s: %s", folder, exc)
            raise KilnError(
                agent_words.UPLOAD_FAILED.format(reason=exc.strerror or "it cannot be written")
            ) from None
        return path


def _with_saved(
    addresses: tuple[str, ...], data: tuple[bytes | None, ...], saved: list[Path]
) -> tuple[str, ...]:
    """The views by position: an address as given, a saved file's path where bytes were sent."""
    files = iter(saved)
    padded = (*addresses, *("",) * (len(data) - len(addresses)))
    return tuple(
        str(next(files)) if sent is not None else address for address, sent in zip(padded, data, strict=True)
    )
