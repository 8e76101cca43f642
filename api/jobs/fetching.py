"""Following a sent job: polling its task, then downloading, checking and preparing the mesh.

Cache files are named from Kiln's own job id (:func:`cache_name`), never from anything the
service sent, and live only in Kiln's cache folder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..checks import fidelity
from ..checks.fidelity import Fidelity
from ..checks.glb import GlbInfo, check_glb, check_preview
from ..errors import CancelledError, InvalidMeshError, KilnError, NotFoundError
from ..http.models import Task, TaskStatus
from ..isolation import IsolationError
from ..words import catalogue as words
from ..words import message
from .disk import StoreError, ensure_folder
from .import_prep import prepare_import
from .model import Job, JobKind, JobState, cache_name, sentence
from .service_side import order_of
from .step_context import Step, WorkerStep

if TYPE_CHECKING:
    from ..services.base import GenerationService

log = logging.getLogger(__name__)

PREVIEW_MAX_BYTES = 16 * 1024 * 1024


class Fetcher(WorkerStep):
    """The poll and download steps: a task's progress, then its mesh and preview."""

    def poll(self, job_id: str) -> None:
        book = self.book
        with book.lock:
            job = book.current(job_id, JobState.QUEUED, JobState.RUNNING)
            if job is None:
                return
            if self._timed_out(job):
                return
            client = self.host.usable_client(job_id)
            if client is None:
                return
        cancel = self.host.deadlines.watch(job_id, job.deadline)
        try:
            task = client.get_task(job.task_id, handle=job.task_handle, cancel=cancel)
            stages = client.stages(order_of(job))
            task.raise_if_failed()
        except CancelledError:
            self._interrupted(job_id, Step.POLL)
            return
        except NotFoundError as exc:
            self._fail(job_id, message(words.SERVICE_FORGOT_JOB, details=exc.details))
            return
        except KilnError as exc:
            if self.host.policy.poll_again(exc):
                self._later(job_id, Step.POLL, exc, words.NOTE_TRYING_AGAIN)
            else:
                self._fail(job_id, exc.message)
            return
        finally:
            self.host.deadlines.done(job_id)
        self._after_poll(job_id, task, stages)

    def _after_poll(self, job_id: str, task: Task, stages: int = 1) -> None:
        book, config = self.book, self.host.config
        with book.lock:
            job = book.current(job_id, JobState.QUEUED, JobState.RUNNING)
            if job is None or config is None:
                return
            self._failures.pop(job_id, None)
            changes: dict[str, Any] = sentence("note", None)
            if task.progress is not None:  # a job in stages fills one bar: each stage its share
                changes["progress"] = (job.stage * 100.0 + float(task.progress)) / max(stages, job.stage + 1)
            if task.eta_seconds is not None:
                changes["eta_seconds"] = task.eta_seconds
            if task.status is TaskStatus.COMPLETED and job.stage + 1 < stages:
                self._next_stage(job_id)
                return
            if task.status is TaskStatus.COMPLETED:
                if not (task.result and task.result.mesh_url):
                    book.settle(
                        job_id,
                        JobState.FAILED,
                        error=message(words.SERVICE_DONE_WITHOUT_MESH, details=f"task {task.id}"),
                    )
                    return
                changes.update(
                    mesh_url=task.result.mesh_url,
                    preview_url=task.result.preview_image_url or "",
                    triangles=task.result.triangles,
                    progress=100.0,
                    state=JobState.DOWNLOADING,
                )
                book.emit(book.change(job_id, **changes))
                self.host.schedule(job_id, Step.DOWNLOAD, 0.0)
                return
            state = JobState.QUEUED if task.status is TaskStatus.QUEUED else JobState.RUNNING
            if state is not job.state:
                job = book.change(job_id, state=state, **changes)
            else:  # progress only: shown at once, saved with the next real change
                job = replace(job, **changes)
                book.put(job, save=False)
            book.emit(job)
            self.host.schedule(job_id, Step.POLL, self.host.policy.poll_interval(config.poll_interval))

    def _next_stage(self, job_id: str) -> None:
        """The service makes this job in stages and one is done: the next is sent as a submit is, the
        job on disk as being sent first (a crash then leaves "outcome unknown", never a second send)."""
        book = self.book
        job = book.jobs[job_id]
        changes = sentence("note", None)
        book.emit(
            book.change(job_id, state=JobState.SUBMITTING, stage=job.stage + 1, submit_sent=False, **changes)
        )
        self.host.schedule(job_id, Step.SEND, 0.0)

    # ----------------------------------------------------------------- download

    def download(self, job_id: str) -> None:
        book = self.book
        with book.lock:
            job = book.current(job_id, JobState.DOWNLOADING)
            if job is None or self._timed_out(job):
                return
            client = self.host.usable_client(job_id)
            if client is None:
                return
        try:
            ensure_folder(self.host.cache_dir, "save the downloaded mesh")
        except StoreError as exc:
            self._fail(job_id, exc.message, JobState.DOWNLOADING)
            return
        name = cache_name(job)
        mesh, preview = self.host.cache_dir / f"{name}.glb", self.host.cache_dir / f"{name}.png"
        if not self._fetched(job, client, mesh):
            return
        preview_ok = fetch_preview(client, job.preview_url, preview)
        likeness = measure_fidelity(job, mesh)
        blend = self._prepared(job, mesh, self.host.cache_dir / f"{name}.blend")
        if blend is None:
            return
        with book.lock:
            if book.current(job_id, JobState.DOWNLOADING) is None:
                book.discard(blend)
                return
            self._failures.pop(job_id, None)
            done = replace(book.jobs[job_id], mesh_path=str(mesh), blend_path=blend, fidelity=likeness.value)
            shown = str(preview) if preview_ok else ""
            book.put(replace(done, preview_path=shown, fidelity_view=likeness.view), save=False)
            book.settle(job_id, JobState.READY)

    def _count(self, job_id: str, triangles: int | None) -> None:
        """The mesh's triangles, where the service did not say them, kept with the job (saved when it
        is ready)."""
        with self.book.lock:
            current = self.book.current(job_id, JobState.DOWNLOADING)
            if current is not None:
                self.book.put(replace(current, triangles=triangles), save=False)

    def _fetched(self, job: Job, client: GenerationService, mesh: Path) -> bool:
        """The job's mesh in the cache, checked; False when it is not (the job was told why, or will
        try again)."""
        job_id = job.id
        cancel = self.host.deadlines.watch(job_id, job.deadline)
        try:
            if not mesh.is_file():  # a mesh in the cache was checked before it was renamed there
                checked: list[GlbInfo] = []
                client.download(
                    job.mesh_url,
                    mesh,
                    progress=self._progress(job_id),
                    check=lambda part: checked.append(check_glb(part)),
                    cancel=cancel,
                )
                if job.triangles is None and checked:  # a service that does not say: the file does
                    self._count(job_id, checked[0].triangles)
        except InvalidMeshError as exc:
            self._fail(job_id, exc.message, JobState.DOWNLOADING)
            return False
        except CancelledError:
            self._interrupted(job_id, Step.DOWNLOAD)
            return False
        except KilnError as exc:
            attempt = self._failures.get(job_id, 0) + 1
            if self.host.policy.download_again(exc, attempt):
                self._later(job_id, Step.DOWNLOAD, exc, words.NOTE_DOWNLOAD_TRYING_AGAIN)
            elif self.host.policy.transient(exc):  # tried in vain: the connection or the service's
                details = f"{exc.user_message} ({exc.details})" if exc.details else exc.user_message
                said = message(words.MESH_DOWNLOAD_FAILED, details=details)
                self._fail(job_id, said, JobState.DOWNLOADING)
            else:  # a link refused, an address Kiln will not open, the disk here: said as it is
                self._fail(job_id, exc.message, JobState.DOWNLOADING)
            return False
        finally:
            self.host.deadlines.done(job_id)
        return True

    def _prepared(self, job: Job, mesh: Path, blend: Path) -> str | None:
        """The helper's .blend of the mesh ("" when it is imported in place), or None when the job
        ends here (failed, cancelled, or the engine is stopping: it then resumes next start)."""
        config = self.host.config
        assert config is not None
        job_id = job.id
        try:
            return prepare_import(
                config,
                self.host.import_helper,
                mesh,
                blend,
                job.triangles,
                cancelled=lambda: self._gone(job_id),
                note=lambda said: self.book.note(job_id, said),
                game=job.request.game,
                label=job.request.label,
            )
        except CancelledError:
            return None
        except IsolationError as exc:
            self._fail(job_id, exc.message, JobState.DOWNLOADING)
            return None

    def _progress(self, job_id: str) -> Callable[[int, int | None], None]:
        def report(done: int, total: int | None) -> None:
            if total:
                self.book.note(job_id, message(words.NOTE_DOWNLOADING, percent=done * 100 // total))

        return report

    def _gone(self, job_id: str) -> bool:
        """The engine is stopping or the job was cancelled: its helper must not outlive that."""
        with self.book.lock:
            return self.host.stop.is_set() or self.book.current(job_id, JobState.DOWNLOADING) is None


def measure_fidelity(job: Job, mesh: Path) -> Fidelity:
    """How well an image job's checked mesh matches the image sent (a measure only: it never fails the
    job, and a job with no image on this computer is "not measured")."""
    request = job.request
    image = request.image_sent or request.image_path
    if request.kind is not JobKind.IMAGE or not image or not Path(image).is_file():
        return Fidelity(None)
    return fidelity.measure(mesh, image)


def fetch_preview(client: GenerationService, url: str, dest: Path) -> bool:
    """The thumbnail is a nicety: a missing or broken one never fails the job."""
    if not url:
        return False
    try:
        if not dest.is_file():  # a preview in the cache was checked before it was renamed there
            client.download(url, dest, max_bytes=PREVIEW_MAX_BYTES, check=check_preview)
    except KilnError as exc:
        log.warning("Preview %s not usable: %s (%s)", dest.name, exc.user_message, exc.details)
        return False
    return True
