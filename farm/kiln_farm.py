"""Kiln on a render farm: the one script every farm task runs (OpenJD and Flamenco alike).

    blender -b --factory-startup -P farm/kiln_farm.py -- generate \
        --prompts P --output O --kiln-zip Z --items 1-2 [--resolution AUTO] [--max-credits N]
        [--fix-merge 1] [--fix-normals 1] [--fix-loose 0.01] [--triangles N] [--lods 0.5,0.25]
        [--collision HULL] [--engine UNREAL|UNITY|GODOT]
    blender -b --factory-startup -P farm/kiln_farm.py -- summarize --prompts P --output O --kiln-zip Z
    python farm/kiln_farm.py estimate P [--resolution AUTO] [--kiln-zip Z]

``--kiln-repository URL`` (the studio's extension repository, ``make repo``; docs/studio.md) may
stand for ``--kiln-zip``: the zip the repository lists is fetched and its sha256 checked first.
Shipped beside the add-on in the repository, not inside the extension zip: a farm needs it before
Kiln is installed (it installs Kiln from that zip into the task's own Blender user folder).
``--items`` are prompt numbers (the n-th usable line of the prompt file, 1-based), so comments
and blank lines never shift the chunks.

Nothing is paid twice. ``OutputDir/ledger/<asset>.json`` is written (atomically) *before* a line
is sent, and again with the task id the moment the service answers; a rerun on any machine
follows a recorded task id instead of sending, never re-sends a line whose send may have reached
the service, and skips an asset whose ``.blend`` and ``.glb`` are already in ``OutputDir/assets``.
The key and service URL come from the worker's environment (``KILN_API_KEY``, ``KILN_BASE_URL``)
and are never written or logged here.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import importlib.util
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.parse
import urllib.request
import zipfile
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger("kiln.farm")

ADDON = "bl_ext.user_default.kiln"
HERE = Path(__file__).resolve().parent
#: Seconds to wait for the service's task id after a send (the engine's own deadlines end it sooner).
TASK_ID_WAIT = 600.0
SLUG_CHARS = 40
#: The largest repository listing read (a listing of a few extensions is a few kB).
MAX_LISTING = 4 * 1024 * 1024


class FarmError(Exception):
    """A sentence for the farm's log; the task exits non-zero."""


# --------------------------------------------------------------------------------- arguments


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kiln_farm.py", description="Kiln on a render farm.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("generate", "summarize"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--prompts", type=Path, required=True, help="the .txt or .csv prompt file")
        cmd.add_argument("--output", type=Path, required=True, help="the job's shared output folder")
        cmd.add_argument("--kiln-zip", default="", help="the built Kiln extension zip")
        cmd.add_argument("--kiln-repository", default="", help="or the URL of a repository listing Kiln")
        cmd.add_argument(
            "--resolution", default="AUTO", help="AUTO, 1024 or 1536 (where quality is a resolution)"
        )
        cmd.add_argument(
            "--service", default="", help="a service's id in Kiln (empty: the first Kiln offers)"
        )
    generate = sub.choices["generate"]
    generate.add_argument("--items", default="", help="prompt numbers of this task, e.g. 3-4 (all if empty)")
    generate.add_argument("--max-credits", type=int, default=0, help="cap over the whole job; 0 = none")
    # Game-ready output (docs/game-ready.md); a CSV's triangles, lods and export columns win per line.
    generate.add_argument("--fix-merge", type=int, default=0, help="1: merge vertices by distance")
    generate.add_argument("--fix-normals", type=int, default=0, help="1: every part faces out")
    generate.add_argument("--fix-loose", type=float, default=0.0, help="delete parts below this share")
    generate.add_argument("--triangles", type=int, default=0, help="triangle budget; 0 = none")
    generate.add_argument("--lods", default="", help="LOD ratios, e.g. 0.5,0.25")
    generate.add_argument("--collision", default="NONE", help="NONE or HULL")
    generate.add_argument("--engine", default="NONE", help="NONE, UNREAL, UNITY or GODOT (exports)")
    estimate = sub.add_parser("estimate", help="what the whole prompt file will cost, before submitting")
    estimate.add_argument("prompts", type=Path)
    estimate.add_argument("--resolution", default="AUTO")
    estimate.add_argument(
        "--service", default="", help="a service's id in Kiln (empty: the first Kiln offers)"
    )
    estimate.add_argument("--kiln-zip", default="", help="Kiln to read with (default: here)")
    estimate.add_argument("--kiln-repository", default="", help="or the URL of a repository listing Kiln")
    return parser.parse_args(argv)


def script_args() -> list[str]:
    """Arguments after ``--`` (Blender's convention), else after the script name."""
    return sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:]


def item_range(text: str, count: int) -> range:
    """``3-4`` or ``5`` (1-based, inclusive) as indexes into the batch's items."""
    if not text.strip():
        return range(count)
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+))?\s*", text)
    if not match:
        raise FarmError(f"--items {text!r} is not a range of prompt numbers such as 3-4.")
    first, last = int(match[1]), int(match[2] or match[1])
    return range(max(first, 1) - 1, min(last, count))


# --------------------------------------------------------------------------------- Kiln's zip and api


def kiln_zip(args: argparse.Namespace, fallback: Path | None = None) -> Path:
    """The Kiln to use: the zip ``--kiln-repository`` lists, else ``--kiln-zip``, else ``fallback``."""
    if args.kiln_repository.strip():
        return zip_from_repository(args.kiln_repository.strip())
    if args.kiln_zip.strip():
        return Path(args.kiln_zip)
    if fallback is None:
        raise FarmError("Say where Kiln comes from: KilnZip (--kiln-zip) or KilnRepository.")
    return fallback


def zip_from_repository(url: str) -> Path:
    """Download the Kiln zip a studio repository lists (``index.json`` from ``server-generate``).

    The URL may name the folder or its ``index.json`` (``file://`` or ``http(s)://``); the
    download must match the listing's size and sha256, as Blender's own installer requires.
    """
    index_url = url if url.endswith(".json") else url.rstrip("/") + "/index.json"
    try:
        with urllib.request.urlopen(index_url, timeout=60) as answer:
            listing = json.loads(answer.read(MAX_LISTING))
        entry = next(item for item in listing["data"] if item.get("id") == "kiln" and _for_this_machine(item))
        archive_url = urllib.parse.urljoin(index_url, entry["archive_url"])
        size, digest = int(entry["archive_size"]), str(entry["archive_hash"]).removeprefix("sha256:")
    except StopIteration:
        raise FarmError(f"The repository {index_url} lists no Kiln (KilnRepository).") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise FarmError(f"Could not read the repository listing {index_url} (KilnRepository): {exc}") from exc
    folder = Path(tempfile.mkdtemp(prefix="kiln-farm-zip-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / f"kiln-{entry.get('version', 'listed')}.zip"
    try:
        with urllib.request.urlopen(archive_url, timeout=300) as answer:
            data = answer.read(size + 1)
    except OSError as exc:
        raise FarmError(f"Could not download Kiln from {archive_url}: {exc}") from exc
    if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
        raise FarmError(f"Kiln downloaded from {archive_url} does not match the repository's listing.")
    path.write_bytes(data)
    log.info("Kiln %s from %s", entry.get("version", "?"), archive_url)
    return path


def _for_this_machine(entry: dict[str, Any]) -> bool:
    """Whether a listing's entry is Kiln's zip for this worker (one zip per platform: its wheels)."""
    system = {"darwin": "macos"}.get(platform.system().lower(), platform.system().lower())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(platform.machine().lower(), "")
    platforms = entry.get("platforms") or []
    return not platforms or f"{system}-{machine}" in platforms


def api_from(source: Path) -> ModuleType:
    """Kiln's Blender-free ``api`` package, from the built zip or a source tree, as ``kiln_farm_api``."""
    if source.suffix == ".zip":
        folder = Path(tempfile.mkdtemp(prefix="kiln-farm-api-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with zipfile.ZipFile(source) as archive:
            archive.extractall(folder, [n for n in archive.namelist() if n.startswith("api/")])
        source = folder
    init = source / "api" / "__init__.py"
    if not init.is_file():
        raise FarmError(f"{source} holds no Kiln (no api/__init__.py): pass the built zip with --kiln-zip.")
    where = [str(init.parent)]
    spec = importlib.util.spec_from_file_location("kiln_farm_api", init, submodule_search_locations=where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kiln_farm_api"] = module
    spec.loader.exec_module(module)
    return with_parts(module)


def with_parts(api: ModuleType) -> ModuleType:
    """The api package with the modules the farm uses imported (a package does not import them itself)."""
    for name in (
        "features.batch",
        "features.credits",
        "errors",
        "features.quality.options",
        "features.quality.sheet",
        "features.quality.review",
    ):
        importlib.import_module(f"{api.__name__}.{name}")
    return api


def read_items(api: ModuleType, prompts: Path, resolution: str, service: str) -> list[Any]:
    """The usable lines of the prompt file (Kiln's own batch parser), each going to ``service``;
    problems go to the log."""
    services = api.services
    service = service or services.first_service()
    if not services.is_registered(service):
        raise FarmError(f"Service {service!r} is not one of {', '.join(services.service_ids())}.")
    service = services.service_id(service)
    try:
        res = api.features.batch.parse_resolution(resolution, None)
        batch = api.features.batch.read_batch(prompts, resolution=res)
    except api.errors.InputError as exc:
        raise FarmError(exc.user_message) from None
    for note in batch.notes:
        log.warning("%s", note)
    for problem in batch.problems:
        log.warning("%s: skipped, %s", prompts.name, problem)
    return [api.features.batch.going_to(item, service) for item in batch.items]


def asset_name(line: int, label: str) -> str:
    """``0007-a-red-chair``: stable, filesystem-safe, unique (the line number leads)."""
    ascii_label = unicodedata.normalize("NFKD", label).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_label.lower()).strip("-")[:SLUG_CHARS].strip("-")
    return f"{line:04d}-{slug or 'asset'}"


def source_of(request: Any) -> dict[str, str]:
    if str(request.kind) == "text":
        return {"prompt": request.prompt}
    return {"image": request.image_path or request.image_url}


def check_credits(api: ModuleType, items: list[Any], max_credits: int) -> str:
    """The whole job's estimate as a sentence; raises FarmError when it is above ``max_credits``."""
    cost = api.features.credits.estimate(item.request for item in items)
    needs = f"{cost.known:,} credit{'s' if cost.known != 1 else ''}"
    if cost.unpriced:
        plural = "s" if cost.unpriced != 1 else ""
        needs += f" plus {cost.unpriced} text prompt{plural} (the service publishes no text price)"
    if max_credits > 0 and cost.exceeds(max_credits):
        raise FarmError(
            f"Nothing was sent: the whole job needs {needs}, more than MaxCredits ({max_credits:,}). "
            "Raise MaxCredits or shorten the prompt file."
        )
    return f"The whole job ({len(items)} prompts) is estimated at {needs}."


# --------------------------------------------------------------------------------- files in OutputDir


def write_json(path: Path, data: Any) -> None:
    """Whole or not at all: a temp file beside it, flushed to disk, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).chmod(0o644)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise FarmError(f"{path} cannot be read ({exc}); it is left as it is: look at it.") from None
    return data if isinstance(data, dict) else None


class Output:
    """Where things land: ``assets/``, ``ledger/``, ``manifests/``, ``export/``, ``review/``,
    ``summary.json`` (with ``summary.html`` and ``summary.png``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.assets = root / "assets"
        self.ledger = root / "ledger"
        self.manifests = root / "manifests"
        self.exports = root / "export"
        #: Each asset's picture for summary.png (kept apart: assets/ holds the .blend and .glb only).
        self.pictures = root / "review"

    def files(self, name: str) -> list[Path]:
        return [self.assets / f"{name}.blend", self.assets / f"{name}.glb"]

    def done(self, name: str) -> bool:
        return all(path.is_file() for path in self.files(name))

    def entry(self, name: str) -> dict[str, Any] | None:
        return read_json(self.ledger / f"{name}.json")

    def record(self, name: str, line: int, task_id: str) -> None:
        write_json(self.ledger / f"{name}.json", {"line": line, "task_id": task_id, "at": time.time()})


# --------------------------------------------------------------------------------- generate (in Blender)


def install_kiln(zip_path: Path, service: str) -> ModuleType:
    """Install the zip into this task's Blender user folder and turn online access on; the workers'
    environment must hold ``service``'s key."""
    import bpy

    if not zip_path.is_file():
        raise FarmError(f"The Kiln zip {zip_path} does not exist (KilnZip).")
    install = bpy.ops.extensions.package_install_files
    install(filepath=str(zip_path), repo="user_default", enable_on_install=True)
    prefs = bpy.context.preferences
    if prefs is None or ADDON not in sys.modules or ADDON not in prefs.addons:
        raise FarmError(f"Kiln from {zip_path} did not install and enable; see Blender's messages above.")
    prefs.system.use_online_access = True
    kiln = sys.modules[ADDON]
    found = importlib.import_module(f"{ADDON}.api.services").info(service)
    key_env = found.key_env
    if found.needs_key and not os.environ.get(key_env):
        raise FarmError(f"{key_env} is not set on this worker: give workers the key in their environment.")
    return kiln


def generate(args: argparse.Namespace) -> int:
    kiln = install_kiln(kiln_zip(args), args.service)
    api = with_parts(kiln.api)
    items = read_items(api, args.prompts, args.resolution, args.service)
    log.info("%s", check_credits(api, items, args.max_credits))
    mine = [items[i] for i in item_range(args.items, len(items))]
    out = Output(args.output)
    game = game_options(api, args, out)
    out.assets.mkdir(parents=True, exist_ok=True)
    engine = kiln.session.runtime.engine()
    rows: dict[str, dict[str, Any]] = {}
    following: dict[str, tuple[Any, Any]] = {}
    try:
        for item in mine:
            name = asset_name(item.line, item.request.label)
            row = rows[name] = {"line": item.line, "name": name, **source_of(item.request), "task_id": ""}
            options = replace(item.row.apply(game, str(out.exports)), review=True)  # for summary.png
            request = checked_image(kiln, out, replace(item.request, game=options.to_text()), name, row)
            job = start(kiln, engine, out, item.line, request, name, row) if request is not None else None
            if job is not None:
                following[name] = (item, job)
        engine.wait([job.id for _, job in following.values()])
        for name, (_item, job) in following.items():
            finish(kiln, engine, out, name, engine.get(job.id), rows[name])
    finally:
        kiln.session.runtime.shutdown()
    first, last = (mine[0].line, mine[-1].line) if mine else (0, 0)
    write_json(out.manifests / f"lines-{first:04d}-{last:04d}.json", {"assets": list(rows.values())})
    failed = [row for row in rows.values() if row["state"] != "done"]
    for row in failed:
        log.error("line %s (%s): %s", row["line"], row["name"], row["error"])
    log.info("%d of %d assets on disk in %s", len(rows) - len(failed), len(rows), out.assets)
    return 1 if failed else 0


def game_options(api: ModuleType, args: argparse.Namespace, out: Output) -> Any:
    """The job's fix-ups and outputs; an engine exports every result to ``OutputDir/export``."""
    try:
        return api.features.quality.options.GameOptions(
            fix_merge=bool(args.fix_merge),
            fix_normals=bool(args.fix_normals),
            fix_loose=args.fix_loose,
            triangles=args.triangles,
            lods=api.features.quality.options.parse_lods(args.lods),
            collision=args.collision.upper(),
            engine=args.engine.upper(),
            export_dir=str(out.exports) if args.engine.upper() != "NONE" else "",
        )
    except api.errors.InputError as exc:
        raise FarmError(exc.user_message) from None


def checked_image(kiln: ModuleType, out: Output, request: Any, name: str, row: dict[str, Any]) -> Any:
    """An image line not sent yet, checked and prepared as Kiln's image jobs are (Pillow from Kiln's
    zip); None when its image is refused, said in its row and the log, and nothing is sent."""
    if str(request.kind) != "image" or out.done(name) or out.entry(name) is not None:
        return request
    concept_image = importlib.import_module(f"{kiln.__name__}.api.features.concept_image")
    english = importlib.import_module(f"{kiln.__name__}.api.words").english
    checked = concept_image.check_request(request, prepare=True, uploads=out.root / "uploads")
    said = [english(f.entry, **f.values) for f in checked.preflight.findings]
    for sentence in said:
        log.warning("%s: %s", name, sentence)
    if checked.preflight.refusal is not None:
        row.update(state="refused", error=" ".join(said))
        return None
    return checked.request


def start(
    kiln: ModuleType, engine: Any, out: Output, line: int, request: Any, name: str, row: dict[str, Any]
) -> Any:
    """Skip, follow a recorded task, or send (ledger first, then Kiln's one way to start a job:
    ``session.starting.start_job``); None when there is nothing to wait for."""
    if out.done(name):
        files = [p.name for p in out.files(name)]
        row.update(state="done", files=files, error="", task_id=_task_of(out, name))
        return None
    entry = out.entry(name)
    if entry is not None:
        if not entry.get("task_id"):
            row.update(
                state="outcome unknown",
                error="A send of this line may have reached the service when an earlier run stopped, so it "
                f"is not sent again. To send it anyway (it may cost twice), delete ledger/{name}.json.",
            )
            return None
        row["task_id"] = entry["task_id"]
        log.info("line %s: following task %s recorded by an earlier run", line, entry["task_id"])
        return engine.resume_task(entry["task_id"], request)
    out.record(name, line, "")
    job = importlib.import_module(f"{kiln.__name__}.session.starting").start_job(None, request)
    deadline = time.monotonic() + TASK_ID_WAIT
    while (current := engine.get(job.id)) is not None and not current.task_id and current.state.is_active:
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if current is not None and current.task_id:
        out.record(name, line, current.task_id)
        row["task_id"] = current.task_id
        log.info("line %s: sent, task %s", line, current.task_id)
    elif current is not None and not current.submit_sent:
        (out.ledger / f"{name}.json").unlink(missing_ok=True)  # surely never reached the service
    return job


def _task_of(out: Output, name: str) -> str:
    entry = out.entry(name)
    return str(entry.get("task_id") or "") if entry else ""


def finish(kiln: ModuleType, engine: Any, out: Output, name: str, job: Any, row: dict[str, Any]) -> None:
    """A ready job becomes ``<name>.glb`` (the checked download), ``<name>.blend`` (it alone, finished
    as asked, with its quality report), and ``review/<name>.png`` (its picture for summary.png)."""
    row.update(task_id=job.task_id or row["task_id"], triangles=job.triangles, files=[], error=job.error)
    if str(job.state) != "ready" or not job.mesh_path:
        row["state"] = str(job.state)
        row["error"] = job.error or f"the job ended {job.state}"
        return
    blend, glb = out.files(name)
    try:
        save_blend(kiln, job, blend, row)
        picture = picture_of(kiln, job)
        if picture:
            out.pictures.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(picture, out.pictures / f"{name}.png")
        tmp = glb.with_name(f".{glb.name}.tmp")
        shutil.copyfile(job.mesh_path, tmp)
        tmp.replace(glb)
    except (OSError, RuntimeError) as exc:
        row.update(state="failed", error=f"could not write {name}: {exc}")
        return
    engine.mark_imported(job.id, [])
    row.update(state="done", files=[blend.name, glb.name])


def picture_of(kiln: ModuleType, job: Any) -> str:
    """The helper's review rendering of the result, else the service's preview ("" when neither)."""
    if job.blend_path:
        rendered = kiln.api.isolation.review_picture(Path(job.blend_path))
        if rendered.is_file():
            return str(rendered)
    return job.preview_path if job.preview_path and Path(job.preview_path).is_file() else ""


def save_blend(kiln: ModuleType, job: Any, blend: Path, row: dict[str, Any]) -> None:
    """The result alone in a fresh file, saved beside the others: the helper Blender's file (imported,
    finished and reported on there), or, where no helper ran, the GLB imported and finished here."""
    import bpy

    game_ready = importlib.import_module(f"{kiln.__name__}.finishing.game_ready")  # loaded on first use
    reading = importlib.import_module(f"{kiln.__name__}.session.quality_report")
    if job.blend_path and Path(job.blend_path).is_file():
        bpy.ops.wm.open_mainfile(filepath=job.blend_path, load_ui=False)
        objects = list(bpy.data.objects)
    else:
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=job.mesh_path)
        options = kiln.api.features.quality.options.GameOptions.from_text(job.request.game)
        objects = game_ready.finish_in_place(list(bpy.data.objects), options, job.request.label)
    for obj in objects:
        obj["kiln_task_id"] = job.task_id
        obj["kiln_prompt"] = row.get("prompt") or row.get("image", "")
    report = reading.job_report(replace(job, objects=[obj.name for obj in objects]))
    if report is not None:
        row.update(triangles=report.triangles, verdict=report.verdict, reasons=report.reasons)
    tmp = blend.with_name(f".{blend.stem}.tmp.blend")
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp), copy=True, compress=True)
    tmp.replace(blend)


# --------------------------------------------------------------------------------- summarize, estimate


def summarize(args: argparse.Namespace) -> int:
    """``summary.json``: one row per prompt of the whole file, from the task manifests and the disk."""
    api = api_from(kiln_zip(args))
    items = read_items(api, args.prompts, args.resolution, args.service)
    out = Output(args.output)
    reported: dict[str, dict[str, Any]] = {}
    for manifest in sorted(out.manifests.glob("lines-*.json")):
        for row in (read_json(manifest) or {}).get("assets", []):
            reported[row["name"]] = row
    rows = []
    for item in items:
        name = asset_name(item.line, item.request.label)
        row = {"line": item.line, "name": name, **source_of(item.request), "task_id": _task_of(out, name)}
        seen = reported.get(name, {})
        done = out.done(name)
        row.update(
            state="done" if done else seen.get("state", "not generated"),
            triangles=seen.get("triangles"),
            verdict=seen.get("verdict"),
            reasons=seen.get("reasons", []),
            files=[p.name for p in out.files(name)] if done else [],
            error="" if done else seen.get("error", "no Generate task reported this line"),
        )
        rows.append(row)
    count = sum(row["state"] == "done" for row in rows)
    write_json(out.root / "summary.json", {"assets": rows, "done": count, "failed": len(rows) - count})
    write_review(api, out, rows, count)
    log.info("%d of %d assets done; summary in %s", count, len(rows), out.root / "summary.json")
    return 0


def write_review(api: ModuleType, out: Output, rows: list[dict[str, Any]], count: int) -> None:
    """``summary.png`` (each asset's preview, name, triangles, verdict) and ``summary.html`` beside it."""
    tiles = [
        api.features.quality.sheet.Tile(
            read_png(out.pictures / f"{row['name']}.png"),
            row["name"],
            row.get("triangles"),
            row.get("verdict") or ("failed" if row["state"] != "done" else ""),
        )
        for row in rows
    ]
    png = out.root / "summary.png"
    write_bytes(png, api.features.quality.sheet.encode_png(api.features.quality.sheet.contact_sheet(tiles)))
    table = {
        "jobs": [{**row, "state": "imported" if row["state"] == "done" else row["state"]} for row in rows],
        "imported": count,
    }
    page = api.features.quality.review.review_html("summary", table, png.name)
    write_bytes(out.root / "summary.html", page.encode("utf-8"))


def read_png(path: Path) -> Any:
    """A preview as rows x columns x RGB bytes (Blender's image loader; None without Blender or file)."""
    if not path.is_file():
        return None
    try:
        import bpy
        import numpy
    except ImportError:
        return None
    image = bpy.data.images.load(str(path), check_existing=False)
    try:
        width, height = image.size
        pixels = numpy.empty(width * height * 4, dtype=numpy.float32)
        image.pixels.foreach_get(pixels)
        rgba = pixels.reshape(height, width, 4)[::-1]
        return (numpy.clip(rgba[..., :3], 0.0, 1.0) * 255).astype(numpy.uint8)
    finally:
        bpy.data.images.remove(image)


def write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def estimate(args: argparse.Namespace) -> int:
    api = api_from(kiln_zip(args, HERE.parent))
    items = read_items(api, args.prompts, args.resolution, args.service)
    sys.stdout.write(f"{check_credits(api, items, 0)}\nPromptCount: {len(items)}\n")
    return 0


# --------------------------------------------------------------------------------- entry


def reexec_with_own_user_folder(argv: list[str]) -> int:
    """Blender reads BLENDER_USER_RESOURCES at start: run again with a fresh, task-local one."""
    import bpy

    folder = Path(tempfile.mkdtemp(prefix="kiln-farm-user-"))
    exe = bpy.app.binary_path
    command = [exe, "-b", "--factory-startup", "-P", __file__] if exe else [sys.executable, __file__]
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(folder)}
    try:
        return subprocess.run([*command, "--", *argv], env=env, check=False).returncode
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    argv = script_args()
    args = parse_args(argv)
    try:
        if args.command == "estimate":
            return estimate(args)
        if args.command == "summarize":
            return summarize(args)
        if not os.environ.get("BLENDER_USER_RESOURCES"):
            return reexec_with_own_user_folder(argv)
        return generate(args)
    except FarmError as exc:
        log.error("%s", exc)
        return 2


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.exit(code)
