"""A project's AI disclosure report: one row per Kiln result, as CSV and as an HTML table.

A store's reviewer (Fab, Sketchfab, the Unity Asset Store, Steam: ``docs/provenance.md``) asks
what in a project was made with AI; the Blender side (``session.disclosure``) reads the open file
and the library into :class:`Row` values, and this module writes them, every cell HTML-escaped.
The CSV's columns are names scripts rely on; the HTML's headings are the artist's words, given.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass

from .provenance import DIGITAL_SOURCE_TYPE, Provenance

#: The CSV's columns, in order (a contract: scripts read them).
COLUMNS = ("name", "where", "service", "request", "task_id", "date", "credit", "done_since", "source_type")


@dataclass(frozen=True)
class Row:
    """One result: its name and where it is ("file" or "library"), and its record."""

    name: str
    where: str
    record: Provenance

    def cells(self) -> tuple[str, ...]:
        r = self.record
        done = "; ".join(r.history)
        kind = DIGITAL_SOURCE_TYPE
        return (self.name, self.where, r.service, r.request, r.task_id, r.date, r.credit, done, kind)


def to_csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_csv_safe(cell) for cell in row.cells()])
    return out.getvalue()


def _csv_safe(cell: str) -> str:
    """A cell a spreadsheet shows as text: a prompt that starts like a formula gets a quote first
    (OWASP, "CSV Injection")."""
    return f"'{cell}" if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


def to_html(rows: Sequence[Row], title: str, intro: str, headings: Sequence[str], empty: str) -> str:
    """A page a reviewer can read: ``title``, ``intro`` and a table with ``headings`` (one per column)."""
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row.cells()) + "</tr>\n" for row in rows)
    if not rows:
        body = f'<tr><td colspan="{len(headings)}">{esc(empty)}</td></tr>\n'
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:4px 8px;text-align:left;vertical-align:top}"
        "th{background:#eee}</style></head>\n"
        f"<body><h1>{esc(title)}</h1>\n<p>{esc(intro)}</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table></body></html>\n"
    )
