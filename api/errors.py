"""One exception family for everything that can go wrong between Kiln and the service.

Every error carries ``message``: a catalogue sentence an artist can act on (what happened, what to
do), said later in the artist's language (:class:`api.words.Message`), and ``details``: the
internals behind it (statuses, the service's own words, ids, paths of Kiln's own) for the console
and Copy Details only. ``user_message`` is the sentence in English, and ``str(exc)`` is the same.
Structured facts (status, retry_after, idempotency_key, …) sit in attributes for the job engine.
No text here ever contains the API key: server text is redacted by the client before it gets here.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import Any, Self

from .words import Entry, Message, as_message, english_message
from .words import catalogue as words


def _joined(*parts: str | None) -> str:
    """Details from several facts, the empty ones left out."""
    return "; ".join(part.strip() for part in parts if part and part.strip())


class KilnError(Exception):
    """Base of the family; catch this to catch every Kiln failure.

    Made from a catalogue entry and its values (or a ready ``Message``); a text from outside the
    catalogue is kept as it is, untranslated (an agent tool's words).
    """

    def __init__(self, said: Entry | Message, /, *, details: str = "", **values: Any) -> None:
        self.message: Message = as_message(said, details=details, **values)
        super().__init__(english_message(self.message))

    @property
    def user_message(self) -> str:
        """The sentence in English (the contract name outside checks read)."""
        return english_message(self.message)

    def reworded(self, said: Entry | Message, /, *, details: str | None = None, **values: Any) -> Self:
        """This error said with another sentence, its class and its facts (status, retry_after) kept:
        a service's own words for what the family says in general."""
        self.message = as_message(said, details=self.details if details is None else details, **values)
        self.args = (english_message(self.message),)
        return self

    def named(self, service: str) -> Self:
        """This error with the service's name in front ("Tripo: …"), once: an artist with several
        services reads whose account, key or limit it is about."""
        if self.message.name == "SERVICE_SAID":
            return self
        inner = Message(self.message.name, self.message.values)
        return self.reworded(words.SERVICE_SAID, service=service, said=inner)

    @property
    def details(self) -> str:
        """The internals behind the sentence, for the console and Copy Details only."""
        return self.message.details


class InputError(KilnError):
    """The caller's input is unusable; raised before any request is sent."""


class CancelledError(KilnError):
    """A wait or download was interrupted because the caller asked Kiln to stop."""

    def __init__(
        self, said: Entry | Message = words.REQUEST_CANCELLED, /, *, details: str = "", **values: Any
    ) -> None:
        super().__init__(said, details=details, **values)


class AuthError(KilnError):
    """401/403: the key is missing, wrong, revoked or not allowed."""

    def __init__(self, status: int, detail: str | None = None) -> None:
        entry = words.SERVICE_KEY_FORBIDDEN if status == 403 else words.SERVICE_KEY_REJECTED
        super().__init__(entry, details=_joined(f"HTTP {status}", detail))
        self.status = status


class CreditsError(KilnError):
    """402: the account cannot pay for the task."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(words.SERVICE_OUT_OF_CREDITS, details=_joined("HTTP 402", detail))
        self.status = 402


class RateLimitError(KilnError):
    """429: too many requests; ``retry_after`` is the server's requested wait in seconds, if any."""

    def __init__(self, retry_after: float | None = None, detail: str | None = None) -> None:
        details = _joined("HTTP 429", detail)
        if retry_after is None:
            super().__init__(words.SERVICE_BUSY, details=details)
        else:
            super().__init__(words.SERVICE_BUSY_WAIT, details=details, n=max(1, round(retry_after)))
        self.status = 429
        self.retry_after = retry_after


class BadRequestError(KilnError):
    """400/404/409/413/415/422 and other 4xx: the service refused the request.

    ``detail`` is the service's own words (details only); ``said`` replaces the general sentence.
    """

    def __init__(
        self, status: int, detail: str | None = None, said: Entry | None = None, **values: Any
    ) -> None:
        super().__init__(
            said or words.SERVICE_REFUSED_REQUEST, details=_joined(f"HTTP {status}", detail), **values
        )
        self.status = status
        self.detail = detail


class NotFoundError(BadRequestError):
    """404: for a poll this means the service no longer knows the task (expired or forgotten)."""

    def __init__(
        self,
        detail: str | None = None,
        *,
        task_id: str | None = None,
        said: Entry | None = None,
        **values: Any,
    ) -> None:
        if said is None:
            said = words.SERVICE_FORGOT_JOB if task_id is not None else words.SERVICE_ADDRESS_WRONG
        super().__init__(404, _joined(f"task {task_id}" if task_id else "", detail), said, **values)
        self.task_id = task_id


class ServiceMovedError(NotFoundError):
    """404/410 on a documented path of a service whose address Kiln knows: the service moved on
    (a retired API version or model), so the sentence asks for a newer Kiln, never a new address."""

    def __init__(self, status: int, detail: str | None = None) -> None:
        super().__init__(
            detail if status == 404 else _joined(f"HTTP {status}", detail), said=words.SERVICE_MOVED
        )


class ServiceError(KilnError):
    """5xx, or an answer Kiln cannot read (HTML page, broken JSON, unexpected redirect).

    ``retry_after`` is set when a 503 said when to come back; ``detail`` (details only) says what
    was wrong with the answer.
    """

    def __init__(
        self, status: int | None, detail: str | None = None, *, retry_after: float | None = None
    ) -> None:
        problem = status is not None and status >= 500
        super().__init__(
            words.SERVICE_PROBLEM if problem else words.SERVICE_ANSWER_UNUSABLE,
            details=_joined(f"HTTP {status}" if status is not None else "", detail),
        )
        self.status = status
        self.retry_after = retry_after


class NetworkError(KilnError):
    """DNS failure, refused connection, timeout or dropped connection.

    ``reason`` is what went wrong, for the details; ``said`` the sentence for that kind of failure.
    ``sent`` tells whether the request may have reached the server (False only when it surely did
    not: DNS or connect failure).
    """

    def __init__(
        self, host: str, reason: str, *, sent: bool, said: Entry = words.NETWORK_NO_CONNECTION
    ) -> None:
        super().__init__(said, details=reason, host=host)
        self.host = host
        self.reason = reason
        self.sent = sent


#: The sentence for a certificate that could not be verified, by system: where a company proxy's or
#: antivirus's root certificate goes so that Kiln (which checks against the system's store) accepts it.
UNTRUSTED_CERTIFICATE = {
    "win32": words.CERTIFICATE_UNTRUSTED_WINDOWS,
    "darwin": words.CERTIFICATE_UNTRUSTED_MAC,
    "linux": words.CERTIFICATE_UNTRUSTED_LINUX,
}


#: What an IT team needs (in the details only: Copy Details carries it to them).
FOR_IT = (
    "for IT: add the inspecting proxy's root certificate to the system's trusted roots (Windows: certlm.msc "
    "> Trusted Root Certification Authorities; macOS: System keychain, Always Trust; Linux: "
    "update-ca-certificates or update-ca-trust), or set REQUESTS_CA_BUNDLE or SSL_CERT_FILE to a bundle "
    "that includes it"
)


class TLSError(KilnError):
    """Certificate or TLS handshake problem. Kiln never turns verification off."""

    def __init__(self, host: str, detail: str | None = None, *, platform: str = sys.platform) -> None:
        entry = UNTRUSTED_CERTIFICATE.get(platform, words.CERTIFICATE_UNTRUSTED_LINUX)
        super().__init__(entry, details=_joined(detail, FOR_IT), host=host)
        self.host = host


class OutcomeUnknownError(KilnError):
    """A submit may or may not have reached the service; it was deliberately not re-sent.

    ``idempotency_key`` is the key the request carried: resubmitting with the same key lets a
    service that honours it answer with the original task instead of charging twice.
    ``task_id`` is the id the service's answer carried when one could be read from an answer
    Kiln could not otherwise use (checked like any task id: safe to record and to poll), else None.
    ``refused_id`` is an id the answer carried that Kiln refuses to use (:mod:`api.http.ids`), escaped
    for display: never polled, but kept (and in the details) so the artist can quote it to the service.
    """

    def __init__(
        self,
        idempotency_key: str,
        reason: str,
        *,
        status: int | None = None,
        task_id: str | None = None,
        refused_id: str | None = None,
    ) -> None:
        seen = f"its answer named task {task_id}" if task_id else ""
        if refused_id and not task_id:
            seen = f"its answer named task “{refused_id}”, which Kiln cannot follow"
        super().__init__(
            words.OUTCOME_UNKNOWN,
            details=_joined(
                reason,
                f"HTTP {status}" if status is not None else "",
                seen,
                f"idempotency key {idempotency_key}",
            ),
        )
        self.idempotency_key = idempotency_key
        self.reason = reason
        self.status = status
        self.task_id = task_id
        self.refused_id = refused_id


class UnsafeAddressError(InputError):
    """A web address from the service (download, preview, redirect) that Kiln refuses to open.

    Raised before any connection; not worth retrying, the same address would be refused again.
    ``what`` (which address) and ``problem`` (why) are for the details.
    """

    def __init__(self, *, what: str, problem: str) -> None:
        super().__init__(words.SERVICE_SENT_BAD_ADDRESS, details=f"{what}: {problem}")
        self.what = what
        self.problem = problem


class TaskFailedError(KilnError):
    """The service reported the task as failed; ``reason`` is its error as one sentence (details only).
    ``plain`` is the service's own reason in plain words (a refused prompt, moderation), when it gave
    one: the artist reads it, quoted as the service's, after Kiln's sentence; codes stay in the details."""

    def __init__(self, task_id: str, reason: str, plain: str | None = None) -> None:
        details = _joined(f"task {task_id}", f"the service said: {reason}")
        if plain:
            super().__init__(words.TASK_REFUSED, details=details, reason=plain)
        else:
            super().__init__(words.TASK_FAILED, details=details)
        self.task_id = task_id
        self.reason = reason


class InvalidMeshError(KilnError):
    """A downloaded GLB (or any download) is damaged, truncated or too large.

    ``problem`` is what is wrong with the file (a glTF field, a size), for the details.
    """

    def __init__(self, said: Entry = words.MESH_DAMAGED, /, *, problem: str, **values: Any) -> None:
        super().__init__(said, details=problem, **values)
        self.problem = problem


class UnsupportedMeshError(InvalidMeshError):
    """A well-formed GLB that needs a glTF extension Blender's importer cannot read: Retry cannot help."""

    def __init__(self, extension: str, said: Entry = words.MESH_NEEDS_EXTENSION) -> None:
        super().__init__(said, problem=f"it requires the glTF extension {extension}")
        self.extension = extension


class InvalidPreviewError(KilnError):
    """A downloaded preview image is not a plausible PNG/JPEG/WebP; ``problem`` is for the details."""

    def __init__(self, *, problem: str) -> None:
        super().__init__(words.PREVIEW_DAMAGED, details=problem)
        self.problem = problem


def _file_trouble(error: OSError, locked: bool) -> Entry:
    """Which sentence a failed write says: the cause an artist can do something about."""
    if locked:
        return words.FILES_LOCKED
    code = error.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return words.FILES_DISK_FULL
    if code == errno.EROFS:
        return words.FILES_READ_ONLY
    if code in (errno.EACCES, errno.EPERM):
        return words.FILES_NO_PERMISSION
    if code in (errno.ENOTDIR, errno.EEXIST):
        return words.FILES_NOT_A_FOLDER
    if code == errno.ENOENT:
        return words.FILES_FOLDER_MISSING
    return words.FILES_FAILED


class StorageError(KilnError):
    """Writing, renaming or deleting a file failed (disk full, permissions, missing folder, a lock).

    ``path`` (a file of Kiln's own, most often) goes to the details, never into the sentence.
    """

    def __init__(self, path: Path, error: OSError, *, locked: bool = False) -> None:
        entry = _file_trouble(error, locked)
        named: dict[str, str] = {}
        if entry == words.FILES_NOT_A_FOLDER:  # the file in the way is named, and its folder opened
            culprit = next((p for p in path.parents if p.exists()), path.parent)
            named = {"name": culprit.name, "folder": str(culprit.parent)}
        super().__init__(entry, details=f"{path}: {error.strerror or error}", **named)
        self.path = path
        self.locked = locked
