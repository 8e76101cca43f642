"""Which pages an artist reads, named in one place, and the words that belong to the machine room.

An artist's page says what to press and what it costs; variables, files of Kiln's code and the
parts of Kiln's engine belong to the developers' pages (development.md, scripting.md, farm.md,
architecture.md…). The words follow ``catalogue_match.INTERNAL`` (what a sentence on screen must
not say) and add what only pages could say: module paths, variables, the engine's parts. Plain
Python: the doc tests of ``tests/python/words`` read them.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The pages an artist reads (paths from the repository's root; a folder's pages by a glob). Every
#: other page under docs/ is a developer's page (``DEVELOPER_PAGES``): a new page goes in one of them.
ARTIST_PAGES: tuple[str, ...] = (
    "README.md",
    "docs/getting-started.md",
    "docs/platforms.md",
    "docs/artists.md",
    "docs/sidebar.md",
    "docs/troubleshooting.md",
    "docs/services/*.md",
)
#: The pages for people who script, run farms or work on Kiln itself: machine-room words belong here.
DEVELOPER_PAGES: tuple[str, ...] = (
    "docs/agents.md",
    "docs/architecture.md",
    "docs/blender-builds.md",
    "docs/development.md",
    "docs/farm.md",
    "docs/game-ready.md",
    "docs/odd-ids-and-damaged-job-lists.md",
    "docs/performance.md",
    "docs/provenance.md",
    "docs/scripting.md",
    "docs/services-for-developers.md",
    "docs/studio.md",
    "docs/translating.md",
    "docs/trust.md",
)
#: README's part for developers starts here; what comes before it is the artist's front door.
README_DEVELOPERS = "\n## For developers"

#: Machine-room words, each with what an artist's page says instead (patterns, case ignored unless
#: they hold capitals that matter).
MACHINE_ROOM: dict[str, str] = {
    r"(?i)\bheartbeats?\b": "say what the artist sees",
    r"(?i)\bhelper Blender\b": "a separate background Blender",
    r"(?i)\btracebacks?\b": "a sentence",
    r"(?i)\bthreads?\b": "in the background",
    r"\bJSON\b": "a file (developer pages name its format)",
    r"(?i)\b(?:stdin|stdout|stderr|standard (?:input|output|error))\b": "Kiln's log",
    r"\b(?:REQUESTS_CA_BUNDLE|SSL_CERT_FILE)\b": "your system's certificates",
    r"\bKILN_[A-Z0-9_<>]+": "scripting.md's table of variables",
    r"(?i)\benvironment variables?\b": "scripting.md",
    r"\b[\w/]+\.py\b": "a developer page",
    r"\b(?:api|session|panels|operators|sandbox|tests|tools)/\w": "a developer page",
    r"\bbpy\b": "scripting.md",
    r"(?i)\b(?:SQLite|sqlite3|write-ahead|WAL)\b": "Kiln's job list",
    r"(?i)\b(?:subprocess|process id|pid)\b": "a separate background Blender",
    r"(?i)\b(?:exceptions?|stack traces?)\b": "what went wrong",
    r"(?i)\b(?:endpoints?|payloads?|status codes?)\b": "the service's answer",
    r"\b(?:DPAPI|secret-tool)\b": "platforms.md's plain words",
    r"(?i)\b(?:idempotenc\w*|base64|Authorization|accessors?|bufferView)\b": "a developer page",
    r"(?i)\b(?:task|request) ids?\b": "the job's ID",
}
#: A web address, which may hold any word (https://kiln-3d.github.io/kiln/index.json).
ADDRESS = re.compile(r"\b(?:https?|file)://[^\s)>\]`\"”]+")


def artist_pages() -> list[Path]:
    """Every artist's page, in ``ARTIST_PAGES``' order."""
    return [path for pattern in ARTIST_PAGES for path in sorted(ROOT.glob(pattern))]


def developer_pages() -> list[Path]:
    return [path for pattern in DEVELOPER_PAGES for path in sorted(ROOT.glob(pattern))]


def artist_text(path: Path) -> str:
    """What an artist reads of ``path``: README up to its part for developers, every other page
    whole; web addresses taken out (an address is a name, not words)."""
    text = path.read_text(encoding="utf-8")
    if path == ROOT / "README.md":
        text = text.split(README_DEVELOPERS, 1)[0]
    return ADDRESS.sub("", text)


def machine_words(text: str) -> list[str]:
    """The machine-room words ``text`` says, as “word” (say instead), one per line they are on."""
    return [
        f"line {n}: “{match.group(0)}” ({instead})"
        for n, line in enumerate(text.splitlines(), 1)
        for pattern, instead in MACHINE_ROOM.items()
        for match in re.finditer(pattern, line)
    ]
