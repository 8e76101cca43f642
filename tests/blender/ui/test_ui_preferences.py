"""Kiln's preferences: key, service, Test Connection on a worker, cache size and Clear."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from guards import main_thread_must_not_wait
from recording_layout import Recorder, draw_preferences, wait_for


def draw_prefs(ui: Any) -> Recorder:
    return draw_preferences(ui.preferences)


@pytest.fixture(autouse=True)
def custom_service_chosen(blender: Any, ui: Any) -> Iterator[None]:
    """These tests are about the custom service's key, address and check: it is chosen (a fresh Kiln
    chooses none and shows no key field: ``test_ui_first_choice``)."""
    prefs = ui.preferences.get()
    prefs.service = "INTERFACE"
    yield
    prefs.property_unset("service")


@pytest.fixture
def check(ui: Any) -> Iterator[Any]:
    """The session's connection check, forgotten before and after, with the calls waiting for the main
    thread (the bpy module runs no timer: an earlier test's would still wait there)."""
    current = ui.prefs_actions.connection_check
    current.reset()
    ui.main_thread.forget()
    yield current
    current.reset()
    ui.main_thread.forget()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback address that accepts connections and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield f"http://127.0.0.1:{server.getsockname()[1]}"


def test_every_setting_is_shown(blender: Any, fresh_jobs: Any, ui: Any) -> None:
    layout = draw_prefs(ui)
    assert layout.props() == [
        # Service
        "service",
        "api_key",
        "service_address",
        # Jobs
        "poll_interval",
        "max_in_flight",
        "timeout_minutes",
        "log_level",
        # Credits
        "text_cost",
        "ask_above",
        "ask_unknown_price",
        # Import
        "auto_import",
        "placement",
        "collection_name",
        "import_in_place",
        "large_import_triangles",
        "origin_at_base",
        "apply_scale",
        "smooth_by_angle",
        "smooth_angle",
        "target_height",
        "fix_merge",
        "fix_normals",
        "fix_loose",
        "triangles",
        "library_dir",
        "credit_line",
        # Agents
        "allow_agents",
        "agent_port",
        "agent_credits",
        "agent_jobs",
        "agent_folder_1",
        "agent_folder_2",
        "agent_folder_3",
    ]
    ops = layout.operator_ids()
    assert {
        "kiln.test_connection",
        "kiln.open_cache_folder",
        "kiln.clear_cache",
        "kiln.copy_agent_config",
        "kiln.new_agent_token",
    } <= set(ops)
    prefs = ui.preferences.get()
    assert prefs.bl_rna.properties["api_key"].subtype == "PASSWORD"
    assert (
        prefs.bl_rna.properties["poll_interval"].hard_min,
        prefs.bl_rna.properties["poll_interval"].hard_max,
    ) == (
        2.0,
        3.0,
    )


def test_the_text_job_price_is_asked_only_where_the_service_does_not_publish_it(
    blender: Any, fresh_jobs: Any, ui: Any
) -> None:
    """Tripo, Meshy and Hyper3D Rodin's text prices are theirs: the artist's figure counts only for the
    custom service, so only its preferences ask for it."""
    prefs = ui.preferences.get()
    kept = prefs.service
    try:
        for service in ("TRIPO", "MESHY", "RODIN"):
            prefs.service = service
            assert "text_cost" not in draw_prefs(ui).props(), service
    finally:
        prefs.service = kept
    assert "text_cost" in draw_prefs(ui).props()


def test_env_key_override_is_labelled(blender: Any, fresh_jobs: Any, ui: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("KILN_API_KEY", "env_live_abcdefgh12345")
    said = "KILN_API_KEY is set in the environment and is used instead of this key."
    assert said in draw_prefs(ui).text()
    monkeypatch.delenv("KILN_API_KEY")
    assert said not in draw_prefs(ui).text()


def test_an_odd_key_gets_a_hint_not_a_refusal(
    blender: Any, fresh_jobs: Any, ui: Any, monkeypatch: Any
) -> None:
    monkeypatch.delenv("KILN_API_KEY", raising=False)
    prefs = ui.preferences.get()
    prefs.api_key = "12345"
    assert prefs.api_key == "12345"
    assert "does not look like a live API key" in draw_prefs(ui).text()
    prefs.api_key = "tsk_live_Abcdef0123456789"
    assert "does not look like" not in draw_prefs(ui).text()
    prefs.api_key = ""


def test_test_connection_runs_on_a_worker_and_the_answer_appears(
    service: Any, blender: Any, ui: Any, check: Any
) -> None:
    with main_thread_must_not_wait() as offences:
        assert blender.ops.kiln.test_connection() == {"FINISHED"}
        draw_prefs(ui)
    assert offences == []
    wait_for(lambda: check.state.value != "running", what="the answer")
    assert check.state.value == "ok"
    (look,) = ui.main_thread._followed  # what hands the answer to the main thread
    assert look() is None, "the look for an answer must end once the answer is in"
    layout = draw_prefs(ui)
    (answer,) = [c for c in layout.of("label") if c.text.startswith("Connected to")]
    assert answer.kwargs["icon"] == "CHECKMARK"
    assert not answer.alert


def test_a_slow_service_never_holds_the_ui(
    blender: Any, fresh_jobs: Any, ui: Any, check: Any, silent_server: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("KILN_BASE_URL", silent_server)
    monkeypatch.setenv("KILN_API_KEY", "sbx_live_test0000000000")
    with main_thread_must_not_wait() as offences:
        assert blender.ops.kiln.test_connection() == {"FINISHED"}
        layout = draw_prefs(ui)
        (look,) = ui.main_thread._followed
        assert look() == ui.main_thread.POLL_SECONDS
    assert offences == []
    assert check.state.value == "running"
    assert "Asking the service…" in layout.labels()
    assert blender.app.timers.is_registered(look)


def test_a_rejected_key_is_said_plainly(
    blender: Any, fresh_jobs: Any, ui: Any, check: Any, sandbox: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("KILN_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("KILN_API_KEY", "sbx_live_wrongkey00000")
    assert blender.ops.kiln.test_connection() == {"FINISHED"}
    wait_for(lambda: check.state.value != "running", what="the answer")
    assert check.state.value == "failed"
    layout = draw_prefs(ui)
    assert "did not accept your API key" in layout.text()
    errors = [c for c in layout.of("label") if c.kwargs.get("icon") == "ERROR"]
    assert errors and errors[0].alert
    assert "sbx_live_wrongkey00000" not in layout.text()


def test_test_connection_is_refused_offline(offline: Any, fresh_jobs: Any, check: Any) -> None:
    with pytest.raises(RuntimeError):
        offline.ops.kiln.test_connection()
    assert check.state.value == "idle"


def test_changing_the_url_forgets_the_old_answer(service: Any, blender: Any, ui: Any, check: Any) -> None:
    assert blender.ops.kiln.test_connection() == {"FINISHED"}
    wait_for(lambda: check.state.value == "ok", what="ok")
    ui.preferences.get().base_url = "https://other.example.com"
    assert check.state.value == "idle"
    assert not any(t.startswith("Connected to") for t in draw_prefs(ui).labels())
    ui.preferences.get().base_url = ""


def test_cache_size_and_clear_keep_files_of_unfinished_jobs(slow_service: Any, blender: Any, ui: Any) -> None:
    assert blender.ops.kiln.generate_from_text(prompt="still running", wait=False) == {"FINISHED"}
    engine = ui.runtime.engine()
    running = wait_for(lambda: engine.jobs()[-1].task_id and engine.jobs()[-1], what="a task id")
    cache = ui.preferences.cache_dir()
    assert cache == engine.cache_dir
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "old-task.glb").write_bytes(b"x" * 1500)
    (cache / "old-task.png").write_bytes(b"x" * 500)
    (cache / f"{running.id}.glb.part").write_bytes(b"x" * 100)
    ui.preferences.cache_size.forget()
    assert "Downloaded meshes and previews take 2.1 KB." in draw_prefs(ui).text()
    assert blender.ops.kiln.clear_cache() == {"FINISHED"}
    assert sorted(p.name for p in cache.iterdir()) == [f"{running.id}.glb.part"]
    assert "Downloaded meshes and previews take 100 B." in draw_prefs(ui).text()


def test_the_preferences_are_in_sections_with_a_unit_on_every_number(blender: Any, ui: Any) -> None:
    """Service, Jobs, Credits, Import and Agents, each a collapsible section (``layout.panel``); the
    sections a new artist needs first (Service, Credits) open; every number says its unit."""
    layout = draw_prefs(ui)
    sections = [(c.args[0], c.kwargs["default_closed"]) for c in layout.of("panel")]
    assert sections == [
        ("kiln_prefs_service", False),
        ("kiln_prefs_jobs", True),
        ("kiln_prefs_credits", False),
        ("kiln_prefs_import", True),
        ("kiln_prefs_agents", True),
    ]
    assert [t for t in layout.labels() if t in ("Service", "Jobs", "Credits", "Import", "Agents")] == [
        "Service",
        "Jobs",
        "Credits",
        "Import",
        "Agents",
    ]
    prefs = ui.preferences.get()
    units = ("(Seconds)", "(Minutes)", "(Triangles)", "(Credits)", "(Degrees)", "Budget", "at Once", "Port")
    for name in layout.props():
        rna = prefs.bl_rna.properties[name]
        if rna.type in {"INT", "FLOAT"} and rna.subtype not in {"FACTOR", "DISTANCE"}:
            assert any(unit in rna.name for unit in units), f"{rna.name}: no unit"
    said = " ".join(layout.labels())
    assert "0 = off: a single click is sent without asking" in said  # Ask Above's 0, said in words
