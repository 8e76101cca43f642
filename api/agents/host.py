"""What the tools ask of the Blender side (the host), and the plain values that cross between them.

The layer calls the host from its HTTP worker threads. The host answers from plain values it copied
on the main thread, or hops there with :class:`~api.agents.bridge.MainThreadBridge` (every touch of
bpy, the job engine's submit, the library's append); it never makes a worker wait on the UI longer
than the bridge's deadline. A host method that refuses raises :class:`~api.errors.KilnError` with a
sentence (the agent reads it as a tool error); anything else it raises is a fault of Kiln's, logged
and said in general words.

Every job an agent can see was asked for by an agent: :attr:`JobView.agent` names it, and the tools
treat a job with an empty ``agent`` (the artist's own) as unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..jobs import JobKind, JobRequest, JobState


@dataclass(frozen=True)
class AgentRequest:
    """A generate call's request, checked: the job to make, and the image's bytes when it has them.

    ``image`` holds the checked bytes of an image sent as data or read from an allowed folder (the
    host saves them where Kiln keeps its inputs and sets ``image_path``); None for a text job or an
    image given by its https address (``request.image_url``).
    """

    request: JobRequest
    image: bytes | None
    agent: str
    #: The views after the front by position (back, left, right): each its checked bytes (saved by
    #: the host like ``image``), or None where it is given by address in ``request.views`` or missing.
    views: tuple[bytes | None, ...] = ()


@dataclass(frozen=True)
class LibraryMatch:
    """An identical earlier request in the Kiln asset library: using it is free."""

    label: str
    date: str


@dataclass(frozen=True)
class JobView:
    """One job as the tools report it; ``progress`` in percent."""

    id: str
    state: JobState
    kind: JobKind
    label: str
    agent: str
    progress: float = 0.0
    error: str = ""
    created: float = 0.0
    cost: int | None = None
    objects: tuple[str, ...] = ()
    triangles: int | None = None
    verdict: str = ""
    reasons: tuple[str, ...] = ()
    has_preview: bool = False
    #: Ready, and nothing brings it into the scene until import_job is called (it was started from
    #: another .blend than the open one, or automatic import is off).
    waits_for_import: bool = False
    #: Where the result came from (``api.features.provenance.Provenance.summary``), once it has a task.
    provenance: dict[str, Any] | None = None
    #: An image job's check before sending: what was found (codes and sentences) and what was prepared.
    image_check: Mapping[str, Any] | None = None
    #: How well an image job's mesh matches its image, 0–1; None: not measured (or not an image job).
    fidelity: float | None = None

    @property
    def settled(self) -> bool:
        """Nothing more happens to it without a call: get_job's waiting ends here."""
        if self.state is JobState.READY:
            return self.waits_for_import
        return not self.state.is_active


class AgentHost(Protocol):
    """The Blender side of the agent server (phase 2 implements it; tests use a small stand-in)."""

    def secrets(self) -> tuple[str, ...]:
        """Texts never to show or log (the API key); answered from a plain value, no bpy."""
        ...

    def default_service(self) -> str:
        """The service the artist chose: where a job goes when the agent names none."""
        ...

    def text_cost(self) -> int | None:
        """The artist's figure for a text job's credits, or None when it is not set."""
        ...

    def library_match(self, ask: AgentRequest) -> LibraryMatch | None:
        """The library's copy of an identical request, or None (an image by address never matches)."""
        ...

    def reuse(self, ask: AgentRequest, match: LibraryMatch) -> Sequence[str]:
        """Place the library's copy in the scene as a fresh import would be; the objects' names."""
        ...

    def submit(self, ask: AgentRequest) -> JobView:
        """Start a job (recorded on disk before anything is sent); returns at once.

        Raises KilnError when nothing was sent (Kiln not set up, the key missing, …): the layer then
        gives the reserved budget back. The job is marked as an agent's in the Sidebar's job list.
        """
        ...

    def job(self, job_id: str) -> JobView | None:
        """The job, or None when there is no such job."""
        ...

    def jobs(self) -> Sequence[JobView]:
        """Every job the host knows (the layer keeps the agents' ones)."""
        ...

    def cancel(self, job_id: str) -> JobView:
        """Stop the job (a sent job may still be charged: the budget does not get it back)."""
        ...

    def import_job(self, job_id: str) -> JobView:
        """Start bringing a ready job into the open scene; returns at once (get_job follows it)."""
        ...

    def preview_path(self, job_id: str) -> Path | None:
        """The job's preview picture on disk (Kiln's cache), or None when there is none yet."""
        ...
