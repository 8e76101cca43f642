"""Row 10: the quality report at 1.2M triangles on three UV layouts, each as the helper makes it.

The textured grid with its own UVs (one packed square), with its UVs scaled x1000 (a texture
repeated a thousand times across, every triangle spanning more than a tile) and with every UV at
random in ±1,000,000: Blender's glTF importer, then ``game_ready.measure`` timed alone, median of
three. The report's work is bounded by the triangles, so each layout takes the same order of time.

``python -m bench.uv_layouts`` runs just these rows (a few minutes) and writes them into
bench/RESULTS.md in place of their last numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import addon, game_ready
from bench.meshes import write_textured_glb

TRIANGLES = 1_200_000
LAYOUTS = ("ordinary", "scaled x1000", "random")


def run(workdir: Path) -> dict[str, Any]:
    """Per layout: seconds of the report alone, and what it said of the UV overlap."""
    results: dict[str, Any] = {}
    for layout in LAYOUTS:
        glb = workdir / f"grid-1.2M-{layout.replace(' ', '-')}.glb"
        count = write_textured_glb(glb, TRIANGLES, uvs=layout)
        seconds, report = game_ready.report_seconds(glb)
        results[layout] = {
            "triangles": float(count),
            "report_s": seconds,
            "uv_overlap": report.uv_overlap,
            "uv_said": report.not_measured.get("uv_overlap") or report.estimated.get("uv_overlap") or "",
        }
    return results


def main() -> int:
    """Just these rows: the add-on enabled from the working tree in a throwaway user folder; the
    rows are printed and written into bench/RESULTS.md."""
    from bench import report

    with addon.enabled_alone() as work:
        results = run(work)
    rows = report.uv_layout_rows(results)
    print(report.table(rows))
    report.merge(rows, "python -m bench.uv_layouts")
    print(f"\nwritten to {report.RESULTS.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
