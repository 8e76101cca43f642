"""One exception family for everything that can go wrong between Kiln and the service.

Every error carries ``user_message``: a plain sentence an artist can act on (what happened, what
to do). ``str(exc) == exc.user_message`` so the UI and ``self.report`` can show it as is.
Structured details (status, retry_after, idempotency_key, …) sit in attributes for the job engine.
No message ever contains the API key: server text is redacted by the client before it gets here.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _clause(text: str | None) -> str:
    """Server words made embeddable in our sentence (no trailing full stop, never empty)."""
    return (text or "").strip().rstrip(".").strip()


class KilnError(Exception):
    """Base of the family; catch this to catch every Kiln failure."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class InputError(KilnError):
    """The caller's input is unusable; raised before any request is sent."""


class CancelledError(KilnError):
    """A wait or download was interrupted because the caller asked Kiln to stop."""

    def __init__(self, user_message: str = "The request was cancelled.") -> None:
        super().__init__(user_message)


class AuthError(KilnError):
    """401/403: the key is missing, wrong, revoked or not allowed."""

    def __init__(self, status: int, detail: str | None = None) -> None:
        said = f": {_clause(detail)}" if _clause(detail) else ""
        if status == 403:
            head = f"The service refused this API key access (HTTP 403{said})."
        else:
            head = f"The service rejected the API key (HTTP {status}{said})."
        super().__init__(
            f"{head} Check the key in Kiln's preferences, "
            "or create a new secret key in the provider's dashboard."
        )
        self.status = status


class CreditsError(KilnError):
    """402: the account cannot pay for the task."""

    def __init__(self, detail: str | None = None) -> None:
        said = f" (the service said: {_clause(detail)})" if _clause(detail) else ""
        super().__init__(
            f"Your account does not have enough credits for this{said}. "
            "Top up credits in the provider's dashboard, or use resolution 1024, which costs less."
        )
        self.status = 402


class RateLimitError(KilnError):
    """429: too many requests; ``retry_after`` is the server's requested wait in seconds, if any."""

    def __init__(self, retry_after: float | None = None, detail: str | None = None) -> None:
        wait = f" and asked Kiln to wait {retry_after:.0f} s" if retry_after is not None else ""
        said = f" ({_clause(detail)})" if _clause(detail) else ""
        super().__init__(
            f"The service is receiving too many requests{wait}{said}. "
            "Wait a minute and try again, or run fewer jobs at once."
        )
        self.status = 429
        self.retry_after = retry_after


class BadRequestError(KilnError):
    """400/404/409/413/415/422 and other 4xx: the service refused the request, in its own words."""

    def __init__(self, status: int, detail: str | None = None, user_message: str | None = None) -> None:
        said = f": {_clause(detail)}" if _clause(detail) else ""
        super().__init__(
            user_message
            or f"The service refused the request (HTTP {status}{said}). "
            "Check the prompt, image and options, then try again."
        )
        self.status = status
        self.detail = detail


class NotFoundError(BadRequestError):
    """404: for a poll this means the service no longer knows the task (expired or forgotten)."""

    def __init__(
        self, detail: str | None = None, *, task_id: str | None = None, user_message: str | None = None
    ) -> None:
        said = f": {_clause(detail)}" if _clause(detail) else ""
        if user_message is None and task_id is not None:
            user_message = (
                f"The service no longer knows task {task_id} (HTTP 404{said}). "
                "It may have expired; start a new generation."
            )
        elif user_message is None:
            user_message = (
                f"The service address does not offer this endpoint (HTTP 404{said}). "
                "Check the service URL in Kiln's preferences."
            )
        super().__init__(404, detail, user_message)
        self.task_id = task_id


class ServiceError(KilnError):
    """5xx, or an answer Kiln cannot read (HTML page, broken JSON, unexpected redirect).

    ``retry_after`` is set when a 503 said when to come back.
    """

    def __init__(
        self, status: int | None, detail: str | None = None, *, retry_after: float | None = None
    ) -> None:
        said = f" ({_clause(detail)})" if _clause(detail) else ""
        if status is not None and status >= 500:
            head = f"The 3D service had a problem (HTTP {status}){said}."
        elif status is not None:
            head = f"The 3D service sent an answer Kiln could not use (HTTP {status}){said}."
        else:
            head = f"The 3D service sent an answer Kiln could not use{said}."
        super().__init__(f"{head} This is usually temporary: try again in a few minutes.")
        self.status = status
        self.retry_after = retry_after


class NetworkError(KilnError):
    """DNS failure, refused connection, timeout or dropped connection.

    ``sent`` tells whether the request may have reached the server (False only when it surely
    did not: DNS or connect failure).
    """

    def __init__(self, host: str, reason: str, *, sent: bool) -> None:
        super().__init__(
            f"Could not reach {host}: {_clause(reason)}. "
            "Check your internet connection and the service URL in Kiln's preferences."
        )
        self.host = host
        self.reason = reason
        self.sent = sent


#: Where a company proxy's or antivirus's root certificate goes so that Kiln (which checks HTTPS
#: against the system's trust store) accepts it, by system.
TRUST_STORE_ADVICE = {
    "win32": "add its root certificate to Windows' certificate store (certlm.msc ▸ Trusted Root "
    "Certification Authorities; your IT team may do this for you)",
    "darwin": "add its root certificate to the System keychain in Keychain Access and set it to Always Trust",
    "linux": "add its root certificate to the system's CA store (update-ca-certificates or "
    "update-ca-trust), or point SSL_CERT_FILE at it",
}


class TLSError(KilnError):
    """Certificate or TLS handshake problem. Kiln never turns verification off."""

    def __init__(self, host: str, detail: str | None = None, *, platform: str = sys.platform) -> None:
        said = f" ({_clause(detail)})" if _clause(detail) else ""
        advice = TRUST_STORE_ADVICE.get(platform, TRUST_STORE_ADVICE["linux"])
        super().__init__(
            f"The secure connection to {host} failed: its certificate could not be verified{said}. "
            f"If a company proxy or antivirus inspects HTTPS, {advice}, or set REQUESTS_CA_BUNDLE to "
            "a CA bundle file that includes it. Kiln never turns verification off."
        )
        self.host = host


class OutcomeUnknownError(KilnError):
    """A submit may or may not have reached the service; it was deliberately not re-sent.

    ``idempotency_key`` is the key the request carried: resubmitting with the same key lets a
    service that honours it answer with the original task instead of charging twice.
    ``task_id`` is the id the service's answer carried when one could be read from an answer
    Kiln could not otherwise use (checked like any task id: safe to record and to poll), else None.
    ``refused_id`` is an id the answer carried that Kiln refuses to use (:mod:`api.service.ids`), escaped
    for display: never polled, but kept and shown so the artist can quote it to the service.
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
        seen = f" Its answer named task {task_id}." if task_id else ""
        if refused_id and not task_id:
            seen = f" Its answer named task “{refused_id}”, which Kiln cannot follow."
        super().__init__(
            f"Kiln cannot tell whether the service received the request ({_clause(reason)}), "
            f"so it did not send it again to avoid paying twice.{seen} "
            "Check the provider's dashboard for a new task before retrying."
        )
        self.idempotency_key = idempotency_key
        self.status = status
        self.task_id = task_id
        self.refused_id = refused_id


class UnsafeAddressError(InputError):
    """A web address from the service (download, preview, redirect) that Kiln refuses to open.

    Raised before any connection; not worth retrying, the same address would be refused again.
    """

    def __init__(self, what: str, problem: str) -> None:
        super().__init__(
            f"The service sent a {what} Kiln will not open: {_clause(problem)}. "
            "Nothing was downloaded; if this keeps happening, report it to the service's provider."
        )
        self.what = what
        self.problem = problem


class TaskFailedError(KilnError):
    """The service reported the task as failed; ``reason`` is its error as one sentence."""

    def __init__(self, task_id: str, reason: str) -> None:
        super().__init__(
            f"The service could not make this mesh: {_clause(reason)}. "
            "Try a different prompt or image, or try again later."
        )
        self.task_id = task_id
        self.reason = reason


class InvalidMeshError(KilnError):
    """A downloaded GLB (or any download) is damaged, truncated or too large."""

    def __init__(self, problem: str, user_message: str | None = None) -> None:
        super().__init__(
            user_message
            or f"The downloaded mesh is damaged ({_clause(problem)}). "
            "Download it again; if this keeps happening, the service sent a broken file."
        )
        self.problem = problem


class UnsupportedMeshError(InvalidMeshError):
    """A well-formed GLB that needs a glTF extension Blender's importer cannot read: Retry cannot help."""

    def __init__(self, extension: str, feature: str | None = None) -> None:
        needs = f"{feature} ({extension})" if feature else f"the glTF extension {extension}"
        super().__init__(
            f"it requires {extension}",
            f"This mesh needs {needs}, which Blender's glTF importer cannot read. "
            "Ask the service for a plain GLB, or open the file in another tool.",
        )
        self.extension = extension


class InvalidPreviewError(KilnError):
    """A downloaded preview image is not a plausible PNG/JPEG/WebP."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"The preview image is damaged ({_clause(problem)}). The mesh itself may still be fine."
        )
        self.problem = problem


class StorageError(KilnError):
    """Writing, renaming or deleting a file failed (disk full, permissions, missing folder, a lock)."""

    def __init__(self, path: Path, error: OSError, *, locked: bool = False) -> None:
        if locked:
            advice = (
                "Another program (an antivirus, a backup or sync tool, another Blender) keeps it open: "
                "try again in a moment, or exclude Kiln's folder from that program."
            )
        else:
            advice = "Check free disk space and that the folder is writable."
        super().__init__(f"Could not write {path}: {error.strerror or error}. {advice}")
        self.path = path
