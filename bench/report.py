"""The issue's rows, each with its target and whether it is met: printed, as JSON, and as bench/RESULTS.md."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

from bench.reference import REFERENCE_BEAT_S

TICK_P99_MS, TICK_MAX_MS = 1.0, 5.0
APPEND_STALL_S = {"65k": 0.030, "1.2M": 0.100}
IMPORT_RATIO = 20.0
WARM_HELPER_S = 0.6
BEYOND_POLL_S = 0.5
MEMORY_MB = 64.0
REGISTER_MS = 50.0
#: Where this machine moves absolute figures (the same fixed work up to a third slower from one second
#: to the next), a row is also judged against a reference measured in the same run: Kiln's cold
#: register against Blender enabling its own glTF add-on cold (imported afresh in the same process),
#: the watcher beat's p99 against a reference beat's (sized to a calm watcher beat's median).
REGISTER_RATIO = 12.0
TICK_P99_RATIO = 2.0
STALL_MS = 5.0
WORKERS = 4  # Kiln's worker threads, each keeping one keep-alive connection
STORE_UI_MS = 5.0  # submit, import bookkeeping, one draw of every panel, with 5,000 jobs stored
STORE_START_MS = 50.0
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
GAME_APPEND_S = 0.100  # the UI thread's part of a finished 1.2M result: the append
BUDGET_TOLERANCE = 0.05
LOD1_MEAN_SHARE, LOD1_HAUSDORFF_SHARE = 0.005, 0.02
#: The report on hostile UVs takes at most this many times what it takes on the grid's own UVs.
UV_LAYOUT_RATIO = 2.0
#: An image job's checks: the preflight of a 4K concept "well under a second", the fidelity of a
#: 200k-triangle mesh, both on a worker; the UI thread only hands the check over.
PREFLIGHT_S, FIDELITY_S, IMAGE_UI_MS = 0.8, 1.5, 5.0


@dataclass(frozen=True)
class Row:
    number: int
    what: str
    result: str
    target: str
    met: bool | None  # None: context, no target


def rows(r: dict[str, Any]) -> list[Row]:
    out = []
    for count, t in r["ticks"].items():
        ratio = t["p99_ms"] / t["reference_p99_ms"]
        out.append(
            Row(
                1,
                f"Watcher beat, {count} job(s) in flight",
                f"median {t['median_ms']:.3f} / p99 {t['p99_ms']:.3f} / max {t['max_ms']:.3f} ms; "
                f"p99 {ratio:.2f}× the reference beat's ({t['reference_p99_ms']:.3f} ms)",
                f"p99 ≤ {TICK_P99_MS:g} ms or {TICK_P99_RATIO:g}× the reference's, max ≤ {TICK_MAX_MS:g} ms",
                (t["p99_ms"] <= TICK_P99_MS or ratio <= TICK_P99_RATIO) and t["max_ms"] <= TICK_MAX_MS,
            )
        )
    out += import_rows(r["imports"])
    lat = r["latency"]
    m = lat["median_s"]
    out.append(
        Row(
            3,
            "Completion → in scene (median)",
            f"{m['total']:.2f} s = polling {m['poll_wait']:.2f} + download {m['download']:.3f} "
            f"+ import {m['import']:.3f} + rest {m['beyond']:.3f}",
            f"rest (beyond polling, download, import) ≤ {BEYOND_POLL_S:g} s",
            m["beyond"] <= BEYOND_POLL_S,
        )
    )
    worst = max(lat["requests_per_task"])
    out.append(
        Row(
            4,
            "HTTP requests per task",
            f"{worst} at most ({lat['task_seconds']:.1f} s tasks, poll {lat['poll_interval_s']:g} s)",
            f"≤ ceil(task s / poll) + 3 = {min(lat['request_budget'])}",
            all(n <= b for n, b in zip(lat["requests_per_task"], lat["request_budget"], strict=True)),
        )
    )
    out.append(
        Row(
            4,
            "TCP connections opened",
            f"{lat['connections_opened']} for {lat['requests_total']} requests ({lat['jobs']} tasks)",
            f"reused (≤ {WORKERS}: one per worker)",
            lat["connections_opened"] <= WORKERS,
        )
    )
    dl = r["download"]
    out.append(
        Row(
            5,
            "Memory growth, 500 MB download",
            f"{dl['growth_mb']:.1f} MB ({dl['bytes'] / dl['seconds'] / 1e6:.0f} MB/s)",
            f"≤ {MEMORY_MB:g} MB",
            dl["growth_mb"] <= MEMORY_MB,
        )
    )
    reg = r["register"]
    ratio = reg["cold_ms"] / reg["reference_ms"]
    out.append(
        Row(
            6,
            "Register the add-on",
            f"{reg['cold_ms']:.0f} ms cold (imports + register; fastest of {reg['runs']:.0f} starts, median "
            f"{reg['cold_median_ms']:.0f}), {reg['warm_ms']:.1f} ms register() alone; {ratio:.1f}× Blender "
            f"enabling its glTF add-on cold ({reg['reference_ms']:.1f} ms)",
            f"≤ {REGISTER_MS:g} ms or ≤ {REGISTER_RATIO:g}× the glTF add-on's",
            reg["cold_ms"] <= REGISTER_MS or ratio <= REGISTER_RATIO,
        )
    )
    stall = r["stall"]
    out.append(
        Row(
            8,
            f"Longest UI-thread stall, {stall['jobs']:.0f} jobs changing state "
            f"({stall['history']:,.0f} finished in the store)",
            f"max {stall['max_ms']:.2f} ms (median {stall['median_ms']:.3f}, p99 {stall['p99_ms']:.2f} "
            f"over {stall['samples']:.0f} beats; own CPU at most {stall['max_cpu_ms']:.2f} ms)",
            f"≤ {STALL_MS:g} ms",
            stall["max_ms"] <= STALL_MS,
        )
    )
    naive, kiln = r["naive"]["stall_per_job_s"], lat["main_thread_s_per_job"]
    out.append(
        Row(
            7,
            "Main-thread stall per job: naive vs Kiln",
            f"naive {naive:.2f} s, Kiln {kiln * 1000:.1f} ms: {naive / kiln:.0f}× less",
            "— (context: the other add-ons)",
            None,
        )
    )
    if "store" in r:
        out.extend(store_rows(r["store"]))
    if "game_ready" in r:
        out.extend(game_ready_rows(r["game_ready"]))
    if "uv_layouts" in r:
        out.extend(uv_layout_rows(r["uv_layouts"]))
    if "image_checks" in r:
        out.extend(image_check_rows(r["image_checks"]))
    return out


def image_check_rows(i: dict[str, Any]) -> list[Row]:
    """Row 11: an image job's preflight at 4K and fidelity at 200k triangles (workers), and the UI thread."""
    likeness = "not measured" if i["fidelity"] is None else f"{i['fidelity']:.2f}"
    return [
        Row(
            11,
            f"Image preflight and preparation, 4096² PNG (worker, Blender {i['blender']})",
            f"{i['preflight_s']:.3f} s ({i['preflight_cpu_s']:.3f} s own CPU; load {i['load']:.1f} on "
            f"{os.cpu_count()} CPUs)",
            f"≤ {PREFLIGHT_S:g} s",
            i["preflight_s"] <= PREFLIGHT_S,
        ),
        Row(
            11,
            f"Fidelity, 200,000-triangle mesh against its concept (worker, Blender {i['blender']})",
            f"{i['fidelity_s']:.3f} s (five silhouettes at 256², measured {likeness})",
            f"≤ {FIDELITY_S:g} s",
            i["fidelity_s"] <= FIDELITY_S,
        ),
        Row(
            11,
            f"UI thread, an image job's check handed to a thread (Blender {i['blender']})",
            f"median {i['ui_ms']:.2f} ms own CPU (wall {i['ui_wall_ms']:.1f} ms, the GIL shared)",
            f"≤ {IMAGE_UI_MS:g} ms",
            i["ui_ms"] <= IMAGE_UI_MS,
        ),
        Row(
            11,
            "Kiln's zip per platform (make build: the add-on and its Pillow wheels)",
            ", ".join(f"{name} {mb:.1f} MB" for name, mb in i["zips_mb"].items()),
            "— (context)",
            None,
        ),
    ]


def uv_layout_rows(u: dict[str, Any]) -> list[Row]:
    """Row 10: the report alone at 1.2M triangles, the grid's own UVs against two hostile layouts."""
    ordinary = u["ordinary"]["report_s"]
    out = []
    for layout, g in u.items():
        said = (g["uv_said"] or f"UV overlap measured: {g['uv_overlap']:.1%}").rstrip(".")
        own = layout == "ordinary"
        out.append(
            Row(
                10,
                f"Quality report alone, {g['triangles']:,.0f} triangles, UVs {layout}",
                f"{g['report_s']:.2f} s ({said})",
                "— (context)" if own else f"≤ {UV_LAYOUT_RATIO:g}× the grid's own UVs ({ordinary:.2f} s)",
                None if own else g["report_s"] <= UV_LAYOUT_RATIO * ordinary,
            )
        )
    return out


def game_ready_rows(g: dict[str, Any]) -> list[Row]:
    """Row 10: game-ready work on a 1.2M-triangle textured result, in the warm helper."""
    size = f"{g['triangles']:,.0f} triangles"
    budget = 50_000
    return [
        Row(
            10,
            f"Quality report, {size} (helper)",
            f"{g['report_s']:.2f} s; the helper's conversion with it {g['convert_with_report_s']:.2f} s",
            "— (context; off the UI thread)",
            None,
        ),
        Row(
            10,
            f"Report + merge, faces out, loose parts, {size} (helper)",
            f"{g['fixes_s']:.2f} s whole conversion (+{g['fixes_s'] - g['convert_with_report_s']:.2f} s)",
            "— (context; off the UI thread)",
            None,
        ),
        Row(
            10,
            f"Triangle budget {size} → {budget:,} (helper)",
            f"{g['budget_triangles']:,.0f} triangles in {g['budget_s']:.2f} s whole conversion",
            f"within {BUDGET_TOLERANCE:.0%} of {budget:,}",
            abs(g["budget_triangles"] - budget) <= BUDGET_TOLERANCE * budget,
        ),
        _against_reference(
            10,
            f"UI thread, finished {size} (the append)",
            g["append_s"] * 1000,
            g["append_reference_s"] * 1000,
            GAME_APPEND_S * 1000,
            f"{g['append_s'] * 1000:.0f} ms",
        ),
        Row(
            10,
            f"LOD1 at 50% ({g['lod1_triangles']:,.0f} of {g['lod0_triangles']:,.0f}), sampled distance",
            f"mean {g['lod1_mean_share']:.2e}, Hausdorff {g['lod1_hausdorff_share']:.2e} of the diagonal",
            f"mean ≤ {LOD1_MEAN_SHARE:.1%}, Hausdorff ≤ {LOD1_HAUSDORFF_SHARE:.0%}",
            g["lod1_mean_share"] <= LOD1_MEAN_SHARE and g["lod1_hausdorff_share"] <= LOD1_HAUSDORFF_SHARE,
        ),
    ]


def store_rows(s: dict[str, Any]) -> list[Row]:
    """Row 9: the UI thread with a long history in the job store."""
    history = f"{s['history']:,} jobs stored"
    out = []
    for key, what, target in (
        ("submit", "Submit (the operator, UI thread)", STORE_UI_MS),
        ("import_bookkeeping", "Import bookkeeping (mark_imported)", STORE_UI_MS),
        ("draw", "One draw of every Kiln panel", STORE_UI_MS),
        ("start", "Engine start (UI thread)", STORE_START_MS),
    ):
        t, name = s[key], f"{what}, {history}"
        figure = f"median {t['median_ms']:.2f} / max {t['max_ms']:.2f} ms"
        if key == "start":
            out.append(Row(9, name, figure, f"≤ {target:g} ms", t["median_ms"] <= target))
        else:
            out.append(_against_reference(9, name, t["max_ms"], t["reference_max_ms"], target, figure))
    return out


def _against_reference(
    number: int, what: str, ms: float, reference_ms: float, target_ms: float, figure: str
) -> Row:
    """A row met by its absolute figure, or where the machine moved it, by its ratio to the reference
    beats timed beside it (the longest against the longest, the median against the median)."""
    # In reference beats, the target is its absolute figure over a calm reference beat's length.
    ratio, allowed = ms / reference_ms, target_ms / (REFERENCE_BEAT_S * 1000)
    return Row(
        number,
        what,
        f"{figure}; {ratio:.1f}× the reference beat beside it ({reference_ms:.2f} ms)",
        f"≤ {target_ms:g} ms or {allowed:g}× the reference",
        ms <= target_ms or ratio <= allowed,
    )


def import_rows(imports: dict[str, Any]) -> list[Row]:
    """Row 2: the append's stall against in place, the warm helper end to end, its peak memory."""
    out = []
    for label, target in APPEND_STALL_S.items():
        i = imports[label]
        big = label == "1.2M"
        out.append(
            Row(
                2,
                f"Import stall, {i['triangles']:,.0f} triangles ({i['glb_mb']:.0f} MB)",
                f"in place {i['in_process_s']:.3f} s, Kiln's append {i['kiln_s'] * 1000:.0f} ms: "
                f"{i['ratio']:.0f}× less (helper {i['helper_s']:.2f} s off the main thread)",
                f"≤ {target * 1000:.0f} ms" + (f" and ≥ {IMPORT_RATIO:g}× less" if big else ""),
                i["kiln_s"] <= target and (i["ratio"] >= IMPORT_RATIO or not big),
            )
        )
    small = imports["65k"]
    out.append(
        Row(
            2,
            "Downloaded → in the scene, warm helper, 65k textured",
            f"{small['warm_total_s']:.2f} s (helper {small['helper_s']:.2f} + append {small['kiln_s']:.3f})",
            f"≤ {WARM_HELPER_S:g} s",
            small["warm_total_s"] <= WARM_HELPER_S,
        )
    )
    out.append(
        Row(
            2,
            "Helper Blender peak memory (up to 1.2M triangles)",
            f"{imports['helper_peak_mb']:.0f} MB (ceiling {imports['helper_ceiling_mb'] / 1024:.1f} GB)",
            "— (context)",
            None,
        )
    )
    return out


def _met(row: Row) -> str:
    return "—" if row.met is None else ("met" if row.met else "NOT met")


def table(all_rows: list[Row]) -> str:
    header = ("#", "Measure", "Result", "Target", "Met")
    cells = [header, *((str(r.number), r.what, r.result, r.target, _met(r)) for r in all_rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(all_rows: list[Row]) -> str:
    lines = ["| # | Measure | Result | Target | Met |", "|---|---|---|---|---|"]
    lines += [_markdown_row(r) for r in all_rows]
    return "\n".join(lines) + "\n"


def _markdown_row(row: Row) -> str:
    return f"| {row.number} | {row.what} | {row.result} | {row.target} | {_met(row)} |"


def merge(new_rows: list[Row], command: str, page: Path = RESULTS) -> None:
    """Write rows measured alone (``command``, e.g. ``python -m bench.uv_layouts``) into ``page``: each
    in place of the row of the same measure, or after the last row of its number; a line under the
    run's says which rows are of which day."""
    lines = page.read_text(encoding="utf-8").splitlines()
    for row in new_rows:
        body = {i: line.split(" | ") for i, line in enumerate(lines) if line_is_row(line)}
        same = [i for i, cells in body.items() if cells[1] == row.what]
        kin = [i for i, cells in body.items() if cells[0] == f"| {row.number}"]
        if same:
            lines[same[0]] = _markdown_row(row)
        else:
            lines.insert((kin or list(body))[-1] + 1, _markdown_row(row))
    said = f"Rows measured alone by `{command}`"
    note = f"{said} on {date.today().isoformat()}: " + ", ".join(f"“{row.what}”" for row in new_rows) + "."
    for i in [i for i, line in enumerate(lines) if line.startswith(said)][::-1]:
        del lines[i : i + 2]  # the note and the blank line after it
    table = next(i for i, line in enumerate(lines) if line.startswith("| # |"))
    lines[table:table] = [note, ""]
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")


def line_is_row(line: str) -> bool:
    """A line of the table's body (not its head or the rule under it)."""
    return line.startswith("| ") and not line.startswith(("| # |", "|---"))


def results_page(machine: dict[str, Any], all_rows: list[Row], day: str) -> str:
    """bench/RESULTS.md: the latest table and the machine it was measured on, linked from the docs."""
    return (
        "# Kiln bench results\n\n"
        "Written by `make bench` (`bench/report.py`); do not edit by hand. How each row is measured,\n"
        "and the targets: [docs/performance.md](../docs/performance.md).\n\n"
        f"Run of {day}: Blender {machine['blender']} as the bpy module, Python {machine['python']}, "
        f"{machine['cpus']:.0f} CPUs, {machine['bench_seconds']:.0f} s.\n\n" + markdown(all_rows)
    )


def write(out_dir: Path, results: dict[str, Any], all_rows: list[Row], page: Path = RESULTS) -> Path:
    """The raw numbers to ``out_dir/latest.json`` (not kept) and the table to ``page`` (kept)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "latest.json"
    path.write_text(json.dumps({"results": results, "rows": [asdict(r) for r in all_rows]}, indent=1))
    page.write_text(results_page(results["machine"], all_rows, date.today().isoformat()), encoding="utf-8")
    return path
