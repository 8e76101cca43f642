"""Every error api/ raises says a catalogue sentence, and keeps what is behind it in its details.

Each KilnError subclass of api/ (the agents' room aside: its tool words are English for agents) is
made here with the internals a real failure carries — a status, the service's own words, a task id,
a glTF field, a path of Kiln's own, a process id — and the sentence must come from the catalogue and
carry none of them, while the details keep them for Copy Details and the console. A subclass added
without a case here fails the first test.
"""

from __future__ import annotations

import errno
import importlib
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import api
from api.errors import (
    AuthError,
    BadRequestError,
    CancelledError,
    CreditsError,
    InputError,
    InvalidMeshError,
    InvalidPreviewError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
    StorageError,
    TaskFailedError,
    TLSError,
    UnsafeAddressError,
    UnsupportedMeshError,
)
from api.features.key_stores import KeyStoreError
from api.isolation import (
    HelperCrashed,
    HelperOutOfMemory,
    HelperTimedOut,
    HelperUnavailable,
    IsolationError,
    MeshRejected,
)
from api.jobs.disk import StoreError, store_error
from api.jobs.engine import EngineNotRunning, JobElsewhere
from api.words import Plural, english_message, message
from api.words import catalogue as words

#: Words of the machine room an artist never reads in a sentence (they belong in the details).
INTERNAL_WORDS = (
    "HTTP",
    "JSON",
    "task ",
    "helper Blender",
    "outcome unknown",
    "write-ahead",
    "SQLite",
    "-wal",
    "idempotency",
    "endpoint",
    "accessor",
    "bufferView",
    "pid",
)

KILN_FOLDER = Path("/home/artist/.config/blender/extensions/.user/kiln")

#: For each error class: how a real failure makes it, and an internal its details must keep.
CASES: dict[type[KilnError], tuple[Callable[[], KilnError], str]] = {
    KilnError: (lambda: KilnError(words.REQUEST_CANCELLED, details="pid 4242"), "pid 4242"),
    InputError: (lambda: InputError(words.PROMPT_FILE_MISSING, path="/art/props.txt"), ""),
    CancelledError: (lambda: CancelledError(details="stopped by the engine"), "stopped by the engine"),
    AuthError: (lambda: AuthError(401, "Invalid API key"), "HTTP 401"),
    CreditsError: (lambda: CreditsError("Need 4 credits"), "Need 4 credits"),
    RateLimitError: (lambda: RateLimitError(7.0, "Slow down"), "HTTP 429"),
    BadRequestError: (lambda: BadRequestError(422, "resolution: must be 1024"), "must be 1024"),
    NotFoundError: (lambda: NotFoundError("Unknown task", task_id="task_77"), "task_77"),
    ServiceMovedError: (lambda: ServiceMovedError(410, "v2 is shut down"), "v2 is shut down"),
    ServiceError: (lambda: ServiceError(502, "an HTML page"), "HTTP 502"),
    NetworkError: (
        lambda: NetworkError("api.example.com", "its name could not be found (DNS)", sent=False),
        "DNS",
    ),
    TLSError: (lambda: TLSError("api.example.com", "self-signed certificate"), "self-signed"),
    OutcomeUnknownError: (
        lambda: OutcomeUnknownError("key-123", "it answered HTTP 502", status=502, refused_id="t\\x00"),
        "idempotency key key-123",
    ),
    UnsafeAddressError: (
        lambda: UnsafeAddressError(what="redirect", problem="it points at this computer (http://127.0.0.1/)"),
        "127.0.0.1",
    ),
    TaskFailedError: (
        lambda: TaskFailedError("task_9", "The model could not make a mesh (code generation_failed)."),
        "The model could not make a mesh",
    ),
    InvalidMeshError: (
        lambda: InvalidMeshError(problem="accessors[3] claims 99 elements but bufferViews[1] has 12"),
        "accessors[3]",
    ),
    UnsupportedMeshError: (lambda: UnsupportedMeshError("KHR_future_thing"), "KHR_future_thing"),
    InvalidPreviewError: (
        lambda: InvalidPreviewError(problem="the PNG chunk b'IDAT' fails its checksum"),
        "IDAT",
    ),
    StorageError: (
        lambda: StorageError(KILN_FOLDER / "cache" / "abc.glb", PermissionError(errno.EACCES, "denied")),
        str(KILN_FOLDER),
    ),
    IsolationError: (lambda: IsolationError(words.MESH_UNREADABLE, details="exit code 1"), "exit code 1"),
    HelperUnavailable: (
        lambda: HelperUnavailable(details="the helper Blender could not start (blender: not found)"),
        "helper Blender",
    ),
    HelperCrashed: (lambda: HelperCrashed(details="exit code -11: Segmentation fault"), "exit code -11"),
    HelperOutOfMemory: (lambda: HelperOutOfMemory(4 * 1024**3, "Malloc returns null"), "Malloc"),
    HelperTimedOut: (lambda: HelperTimedOut(120.0), ""),
    MeshRejected: (lambda: MeshRejected(details="KeyError: 'POSITION'"), "POSITION"),
    StoreError: (
        lambda: store_error(KILN_FOLDER, OSError(errno.ENOSPC, "No space left on device")),
        str(KILN_FOLDER),
    ),
    EngineNotRunning: (lambda: EngineNotRunning(words.ENGINE_NOT_RUNNING), ""),
    JobElsewhere: (
        lambda: JobElsewhere(words.JOB_RUNS_ELSEWHERE_DO_THERE, details="process 4242", blender="a window"),
        "process 4242",
    ),
    KeyStoreError: (
        lambda: KeyStoreError(
            words.KEYRING_REFUSED_KEY,
            details="secret-tool store: no keyring",
            what=message(words.SECRET_AGENT_TOKEN),
        ),
        "secret-tool",
    ),
}


def _api_error_classes() -> set[type[KilnError]]:
    """Every KilnError class defined in api/, the agents' room aside."""
    for module in pkgutil.walk_packages(api.__path__, "api."):
        if not module.name.startswith(("api.agents", "api.vendor")):
            importlib.import_module(module.name)

    def below(cls: type[KilnError]) -> Iterator[type[KilnError]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    return {cls for cls in (KilnError, *below(KilnError)) if not cls.__module__.startswith("api.agents")}


def internals_in(sentence: str) -> list[str]:
    return [word for word in INTERNAL_WORDS if word in sentence]


def test_every_error_class_of_api_has_a_case_here() -> None:
    assert _api_error_classes() == set(CASES)


@pytest.mark.parametrize("cls", list(CASES), ids=lambda cls: cls.__name__)
def test_each_error_says_a_catalogue_sentence_without_internals(cls: type[KilnError]) -> None:
    make, internal = CASES[cls]
    error = make()
    assert type(error) is cls
    entry = getattr(words, error.message.name, None)
    assert isinstance(entry, str | Plural) and error.message.name != "VERBATIM", error.message.name
    assert error.user_message == english_message(error.message) == str(error)
    assert not internals_in(error.user_message), error.user_message
    assert "{" not in error.user_message, "every field of the sentence is filled"
    assert str(KILN_FOLDER) not in error.user_message
    assert internal in error.details, error.details


def test_a_text_from_outside_the_catalogue_is_kept_verbatim() -> None:
    """An agent tool's English words (api/agents) still make an error; Kiln's own never do."""
    error = InputError("The tool needs a prompt.")
    assert error.message.name == "VERBATIM" and error.user_message == "The tool needs a prompt."


def test_the_service_words_are_said_once_by_kiln_never_repeated() -> None:
    """'The service could not make this mesh: The model could not make a mesh …' is gone."""
    error = TaskFailedError("task_9", "The model could not make a mesh.")
    assert error.user_message == (
        "The service could not make a mesh from this prompt or image. "
        "Try other words or another image, or try again later."
    )
    assert "The model could not make a mesh." in error.details and "task_9" in error.details


def test_outcome_unknown_says_what_it_means() -> None:
    error = OutcomeUnknownError("key-1", "the connection was dropped", task_id="task_5")
    assert error.user_message == (
        "Kiln cannot tell whether the service received this job, so it did not send it again, to "
        "avoid paying twice. Check the service's dashboard before you press Retry."
    )
    assert "task_5" in error.details and "the connection was dropped" in error.details
