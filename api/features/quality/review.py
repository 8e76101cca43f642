"""The review page of a batch: an HTML file beside its summary JSON, with the sheet, the table, and
every failed line with its sentence. Plain Python; every value is escaped (names and errors come
from prompt files and the service)."""

from __future__ import annotations

import html
from typing import Any

from ...words import catalogue as words
from ...words import english
from .verdict import VERDICT_WORDS

STYLE = (
    "body{font-family:sans-serif;background:#222;color:#ddd;margin:2em}"
    "table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #444;text-align:left}"
    ".ready{color:#6c6}.check{color:#db4}.problems,.failed{color:#e55}img{max-width:100%}"
)


def review_html(title: str, summary: dict[str, Any], sheet_name: str) -> str:
    """The page for ``summary`` (``api.features.batch.summarize``), showing the sheet file ``sheet_name``."""
    e = html.escape
    rows = []
    for row in summary["jobs"]:
        kind = row.get("verdict") or ("failed" if row["state"] != "imported" else "")
        shown = english(VERDICT_WORDS[kind]) if kind in VERDICT_WORDS else kind
        reasons = "; ".join(row.get("reasons") or [])
        outcome = (
            row["error"] if row["error"] else "; ".join(filter(None, (reasons, row.get("fidelity_said"))))
        )
        triangles = f"{row['triangles']:,}" if row.get("triangles") is not None else ""
        rows.append(
            f"<tr><td>{e(row['name'])}</td><td class='{e(kind)}'>{e(shown or row['state'])}</td>"
            f"<td>{triangles}</td><td>{e(row['task_id'] or '')}</td><td>{e(outcome)}</td></tr>"
        )
    failed = [
        f"<li><b>{e(row['name'])}</b>: {e(row['error'] or row['state'])}</li>"
        for row in summary["jobs"]
        if row["state"] != "imported"
    ]
    failures = f"<h2>{e(english(words.REVIEW_FAILED))}</h2><ul>{''.join(failed)}</ul>" if failed else ""
    imported = english(words.BATCH_IMPORTED, imported=summary["imported"], n=len(summary["jobs"]))
    heads = (
        words.REVIEW_NAME,
        words.REVIEW_VERDICT,
        words.REVIEW_TRIANGLES,
        words.REVIEW_TASK,
        words.REVIEW_NOTES,
    )
    header = "".join(f"<th>{e(english(head))}</th>" for head in heads)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{e(title)}</h1>"
        f"<p>{e(imported)}</p>"
        f"<img src='{e(sheet_name)}' alt='{e(english(words.REVIEW_SHEET))}'>{failures}"
        f"<h2>{e(english(words.REVIEW_EVERY_LINE))}</h2><table><tr>{header}</tr>{''.join(rows)}</table>"
        "</body></html>\n"
    )
