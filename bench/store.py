"""Kiln's UI thread with a long history: 5,000 finished jobs already in the job store.

The rows: the UI-thread cost of a submit (the operator, as a click runs it) and of an import's
bookkeeping (``mark_imported``), one draw of every Kiln panel (the job list's filter and its
visible rows included), and the engine's start. The sandbox runs in its own process, slowly, so
the submits are really sent while the UI thread is timed. ``python -m bench.store`` runs just
these rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import addon
from bench.reference import reference_summary, reference_work, timed_beat
from bench.sandbox_process import KEY, sandbox_process
from bench.stats import summary_ms

HISTORY = 5_000
SUBMITS = 20
SUBMIT_GAP = 0.05
IMPORTS = 20
DRAWS = 50
STARTS = 5
SLOW = 0.05  # sandbox speed: nothing finishes while the rows are measured


class _Layout:
    """A stand-in UILayout that accepts every call, so the panels' own draw code runs whole."""

    def __getattr__(self, name: str) -> Callable[..., _Layout]:
        return lambda *args, **kwargs: _Layout()


def seed(folder: Path, count: int = HISTORY) -> None:
    """``count`` finished jobs as months of use leave them (prompt, task id, files, objects), spread
    over the four services."""
    jobs, store_module = addon.module("api.jobs"), addon.module("api.jobs.store")
    owner = jobs.Owner(pid=1, started=1_700_000_000.0, label="another Blender window")
    services = addon.module("api.services").service_ids()
    records = []
    for n in range(count):
        job = jobs.Job(
            id=f"h{n:011d}",
            # Spread over every service, as an artist with several accounts leaves them.
            request=jobs.JobRequest(
                kind="text",
                prompt=f"a weathered oak chair, variant {n}, carved legs",
                service=services[n % len(services)],
            ),
            origin=f"/projects/set_{n % 40}/scene.blend",
            state=jobs.JobState.IMPORTED,
            task_id=f"task_{n:032x}",
            progress=100.0,
            created_at=1_700_000_000.0 + n * 600,
            finished_at=1_700_000_000.0 + n * 600 + 90,
            mesh_url=f"https://cdn.example.com/files/task_{n:032x}.glb",
            preview_url=f"https://cdn.example.com/files/task_{n:032x}.png",
            resolution=1024,
            triangles=65_000 + n,
            mesh_path=str(folder / "cache" / f"h{n:011d}.glb"),
            preview_path=str(folder / "cache" / f"h{n:011d}.png"),
            objects=["geometry_0", "geometry_0.001"],
            owner=owner,
        )
        records.append(job.to_json())
    store = store_module.JobStore(folder)
    store.open()
    store.insert_records(records)
    store.close()


def _time(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _draw_all_panels(bpy: Any) -> None:
    """Every Kiln panel's draw(), the job list's filter over all rows and its visible rows."""
    panels, jobs_panel = addon.module("panels"), addon.module("panels.jobs")
    context, wm = bpy.context, bpy.context.window_manager
    for cls in panels.classes:
        if issubclass(cls, bpy.types.Panel):
            cls.draw(_Stand(layout=_Layout()), context)
    ul = _Stand(filter_name="", bitflag_filter_item=1 << 30, layout_type="DEFAULT")
    jobs_panel.KILN_UL_jobs.filter_items(ul, context, wm, "kiln_jobs")
    for index, item in enumerate(wm.kiln_jobs[: jobs_panel.LIST_ROWS]):
        jobs_panel.KILN_UL_jobs.draw_item(ul, context, _Layout(), wm, item, 0, wm, "kiln_job_index", index)


class _Stand:
    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def run() -> dict[str, Any]:
    import bpy

    runtime, preferences = addon.module("session.runtime"), addon.module("preferences")
    results: dict[str, Any] = {"history": HISTORY}
    work = reference_work()  # a reference beat is timed after each sample, in the same conditions
    with sandbox_process(SLOW) as base_url:
        addon.use_service(base_url, KEY)
        addon.reset_jobs()
        seed(preferences.user_dir())

        starts = []
        for _ in range(STARTS):
            runtime.shutdown()
            starts.append(_time(lambda: runtime.engine(bpy.context)))
        engine = runtime.engine(bpy.context)
        history_s = _time(lambda: engine._writer.synced.wait(60))
        assert len(engine.jobs()) >= HISTORY, "the history was not read"
        results["start"] = {**summary_ms(starts), "history_read_s": history_s}

        addon.module("session.job_rows").sync_now(bpy.context.window_manager)
        _draw_all_panels(bpy)  # the first draw loads what later draws reuse (icons, the rows)
        some = engine.jobs()[0].id
        words = addon.module("api.words")
        draws, references = [], []
        # A running job's note changes before every draw, as while jobs run; the rows and the details
        # are drawn from it anew, the filter and the credits line only when a job's standing changes.
        for n in range(DRAWS):
            engine.book.note(some, words.message(words.catalogue.NOTE_DOWNLOADING, percent=n))
            draws.append(_time(lambda: _draw_all_panels(bpy)))
            references.append(timed_beat(work))
        results["draw"] = {**summary_ms(draws), **reference_summary(references)}

        submits, references = [], []
        for n in range(SUBMITS):  # a click, then the UI goes on (back to back, other threads' GIL turns show)
            submits.append(
                _time(lambda n=n: bpy.ops.kiln.generate_from_text(prompt=f"a chair {n}", wait=False))
            )
            references.append(timed_beat(work))  # while the submit's sending thread wants the GIL too
            time.sleep(SUBMIT_GAP)
        results["submit"] = {**summary_ms(submits), **reference_summary(references)}
        results["submit"]["samples_ms"] = [round(t * 1000, 2) for t in submits]

        ready = addon.module("api.jobs").JobState.READY
        history = [job for job in engine.jobs() if job.state.value == "imported"][:IMPORTS]
        for job in history:  # made ready by this Kiln, as a download would leave them
            engine.book.put(replace(job, state=ready, owner=engine.book.owner))
        imports, references = [], []
        for job in history:
            imports.append(_time(lambda j=job: engine.mark_imported(j.id, ["geometry_0"])))
            references.append(timed_beat(work))
        results["import_bookkeeping"] = {**summary_ms(imports), **reference_summary(references)}
        for job in engine.own_jobs():
            if job.state.is_active:
                engine.cancel(job.id)
        addon.reset_jobs()
    return results


def main() -> int:
    """Just these rows: ``python -m bench.store``."""
    import shutil

    from bench import report

    user_dir = addon.isolate()
    try:
        import bpy

        addon.mount(user_dir)
        addon.enable()
        results = run()
        bpy.ops.preferences.addon_disable(module=addon.ADDON_MODULE)
    finally:
        shutil.rmtree(user_dir, ignore_errors=True)
    print(report.table(report.store_rows(results)))
    print("submits (ms):", results["submit"]["samples_ms"])
    print(
        f"history read by the store thread in {results['start']['history_read_s']:.2f} s (off the UI thread)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
