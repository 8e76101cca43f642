"""Fixtures for isolated imports: the helper, a stand-in helper that misbehaves on request, the corpus.

The helper is real: this very Python (the bpy module) running ``helper_blender/main.py``, the
command Kiln would use if it were given one (``bpy.app.binary_path`` is empty here). The stand-in
is that same script with its ``convert`` wrapped, so it can hang, crash or grab memory mid-import
while everything else (start, protocol, limits) stays Kiln's own.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.meshes import write_textured_glb

HERE = Path(__file__).resolve().parent

STANDIN = """
import os, pathlib, resource, runpy, sys, time

helper = runpy.run_path({script!r})["request_loop"]()  # the entry point's own way to load the loop
mode_file = pathlib.Path(sys.argv[1])
real_convert = helper.convert


def convert(glb, blend, *finishing):
    mode = mode_file.read_text().strip() if mode_file.exists() else ""
    (mode_file.parent / "busy").write_text(str(os.getpid()))
    if mode == "hang":
        time.sleep(600)
    elif mode == "crash":
        os.abort()  # as a segfault in the importer would
    elif mode == "grow":
        # Past the address-space cap too, so only the parent's watchdog can stop it.
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        hoard = []
        for _ in range(64):
            hoard.append(b"x" * (64 << 20))
            time.sleep(0.01)
    return real_convert(glb, blend, *finishing)


helper.convert = convert
sys.exit(helper.main(sys.argv))
"""


@pytest.fixture
def isolation(kiln_module: Any) -> Any:
    module = kiln_module("api.isolation")
    module.in_place_notice.reset()
    yield module
    module.in_place_notice.reset()


@pytest.fixture
def jobs(kiln_module: Any) -> Any:
    return kiln_module("api.jobs")


@pytest.fixture
def helper(isolation: Any) -> Iterator[Any]:
    """A warm helper of this test's own, ended afterwards."""
    helper = isolation.ImportHelper()
    yield helper
    helper.close()


@pytest.fixture
def standin(tmp_path: Path, isolation: Any) -> tuple[tuple[str, ...], Path]:
    """(command, mode file): write "hang", "crash" or "grow" to the file to make the next import misbehave."""
    script = tmp_path / "standin_helper.py"
    script.write_text(textwrap.dedent(STANDIN.format(script=str(isolation.route.SCRIPT))))
    mode = tmp_path / "mode"
    mode.write_text("")
    return (sys.executable, str(script), str(mode)), mode


@pytest.fixture
def make_engine(tmp_path: Path, jobs: Any) -> Iterator[Any]:
    engines: list[Any] = []

    def make(sandbox: Any, key: str, **overrides: Any) -> Any:
        config = jobs.ServiceConfig(
            base_url=sandbox.base_url, api_key=key, poll_interval=0.2, timeout_seconds=90.0, **overrides
        )
        engine = jobs.JobEngine(tmp_path / "state", workers=2)
        engine.start(config)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.shutdown()


@pytest.fixture(scope="module")
def large_glb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("large") / "large.glb"
    return path, write_textured_glb(path, 250_000)


@pytest.fixture(scope="module")
def small_glb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("small") / "small.glb"
    return path, write_textured_glb(path, 2_000)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The corpus, made once per session: Blender's own exporter in a child bpy process, and trimesh."""
    folder = tmp_path_factory.mktemp("corpus")
    made = subprocess.run(
        [sys.executable, str(HERE / "make_corpus.py"), str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    write_unpadded_glb(folder / "unpadded.glb")
    return {path.stem: path for path in sorted(folder.glob("*.glb"))}


def write_unpadded_glb(path: Path) -> None:
    """A textured trimesh GLB whose JSON chunk length is not a multiple of 4 (the BIN chunk follows at once).

    The glTF spec asks for padding; some writers skip it and Blender's importer reads such files.
    """
    import trimesh
    from trimesh.exchange.gltf import export_glb

    glb = export_glb(trimesh.creation.icosphere(subdivisions=2), include_normals=False)
    json_length = struct.unpack_from("<I", glb, 12)[0]
    document = json.loads(glb[20 : 20 + json_length])
    document["asset"]["generator"] = "kiln-tests"
    packed = json.dumps(document, separators=(",", ":")).encode()
    if len(packed) % 4 == 0:
        packed += b" "
    rest = glb[20 + json_length :]
    body = struct.pack("<II", len(packed), 0x4E4F534A) + packed + rest
    path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)
