"""Child Blender reading a shared Kiln library while other Kilns add to it (the shared-library tests).

Usage: ``python library_reader.py -- LIBRARY STOP_FILE EXPECTED``. Until ``STOP_FILE`` exists,
opens every .blend the index lists and every .blend the folder shows (what the Asset Browser
reads), each once; one that cannot be read or holds no object is "bad". Then goes on until it
has seen EXPECTED entries (at most two minutes): on a network share another machine's new files
show only when this client's caches expire. Prints one ``REPORT {json}`` line: entries seen,
.blend files opened, the bad ones, and the seconds after STOP_FILE until all were seen.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bpy

from api.features.library_index import LibraryIndex

args = sys.argv[sys.argv.index("--") + 1 :]
folder, stop, expected = Path(args[0]), Path(args[1]), int(args[2])
opened: set[str] = set()
bad: dict[str, str] = {}
entries = 0


def open_blend(path: Path) -> None:
    try:
        with bpy.data.libraries.load(str(path)) as (source, _target):
            names = list(source.objects)
        if not names:
            bad[path.name] = "no objects"
    except Exception as exc:  # any failure to read is what this child looks for
        bad[path.name] = str(exc)
    opened.add(path.name)


def one_pass() -> None:
    global entries
    listed = LibraryIndex(folder).entries()
    entries = len(listed)
    for entry in listed.values():
        if entry.blend not in opened:
            open_blend(folder / entry.blend)
    for path in sorted(folder.glob("*.blend")):
        if path.name not in opened:
            open_blend(path)


while not stop.exists():
    one_pass()
    time.sleep(0.05)
stopped = time.monotonic()
one_pass()
while entries < expected and time.monotonic() - stopped < 120:
    time.sleep(0.25)
    one_pass()
settle = round(time.monotonic() - stopped, 2)
report = {"entries": entries, "opened": len(opened), "bad": bad, "settle": settle}
print("REPORT " + json.dumps(report), flush=True)
