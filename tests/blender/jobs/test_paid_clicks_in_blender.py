"""An artist's first hour, inside Blender against the services' stand-ins over real HTTP: no paid work
is lost by a click (a stopped job comes back with Resume, a task is added by its id on the service it
ran on), and every click that can spend asks first (Cancel on Service, Re-texture, a second identical
Generate, a price above the balance)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sandbox.server import Sandbox

KEYS = {
    "TRIPO": ("tripo", "tsk_live_firsthourtripo00", "KILN_TRIPO_BASE_URL", "KILN_TRIPO_API_KEY"),
    "MESHY": ("meshy", "msy_live_firsthourmeshy00", "KILN_MESHY_BASE_URL", "KILN_MESHY_API_KEY"),
    "RODIN": ("rodin", "rodin_live_firsthourrodin0", "KILN_RODIN_BASE_URL", "KILN_RODIN_API_KEY"),
}


def wait_for(check: Callable[[], object], timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def stand_in(
    blender: Any, fresh_jobs: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, float], Sandbox]]:
    """Start a service's stand-in at a speed, Kiln pointed at it through the environment."""
    started: list[Sandbox] = []

    def start(sid: str, speed: float = 50.0) -> Sandbox:
        standin, key, base_env, key_env = KEYS[sid]
        server = Sandbox(service=standin, keys=[key], speed=speed, credits=100_000).start()
        started.append(server)
        monkeypatch.setenv(base_env, server.base_url)
        monkeypatch.setenv(key_env, key)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def asking(kiln_module: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """As in the UI: somebody can answer (background mode never asks), Ask Above off, prices known."""
    for name in ("session.spending", "operators.job_actions"):
        monkeypatch.setattr(kiln_module(name), "blocks", lambda op=None: False)
    prefs = kiln_module("preferences").get()
    prefs.ask_above = 0
    yield prefs
    prefs.ask_above = 0


class Asked:
    """A window manager that records the question an operator asks (the artist's answer: not now)."""

    def __init__(self, blender: Any) -> None:
        self.questions: list[dict[str, Any]] = []
        self.context = SimpleNamespace(
            window_manager=SimpleNamespace(invoke_confirm=self.invoke_confirm),
            preferences=blender.context.preferences,
        )

    def invoke_confirm(self, op: Any, event: Any, **said: Any) -> set[str]:
        self.questions.append(said)
        return {"CANCELLED"}


def clicked(**fields: Any) -> SimpleNamespace:
    """An operator as a click makes it: its fields, and an execute that records it ran."""
    ran: list[bool] = []
    return SimpleNamespace(ran=ran, execute=lambda context: ran.append(True) or {"FINISHED"}, **fields)


def test_a_stopped_job_comes_back_with_resume_and_no_second_task(
    stand_in: Any, blender: Any, kiln_module: Any
) -> None:
    """Stop Waiting on Tripo (no cancel there): the panel offers Resume, which brings the mesh in."""
    server = stand_in("TRIPO", 0.5)
    assert blender.ops.kiln.generate_from_text(prompt="a lamp", service="TRIPO", wait=False) == {"FINISHED"}
    engine = kiln_module("session.runtime").engine()
    job = engine.jobs()[-1]
    assert wait_for(lambda: bool(engine.get(job.id).task_id))
    assert blender.ops.kiln.cancel_job(job_id=job.id) == {"FINISHED"}
    stopped = engine.get(job.id)
    assert stopped.state.value == "cancelled"
    assert "Resume brings its mesh in at no extra cost" in str(stopped.note_message)
    assert kiln_module("api.jobs.service_side").resumable(stopped)
    assert blender.ops.kiln.resume_job(job_id=job.id) == {"FINISHED"}
    assert blender.ops.kiln.wait_jobs(job_ids=job.id) == {"FINISHED"}
    assert engine.get(job.id).state.value == "imported"
    assert len(_submits(server)) == 1


def test_a_job_cancelled_on_meshy_offers_no_resume(stand_in: Any, blender: Any, kiln_module: Any) -> None:
    """Meshy deletes a cancelled task: there is nothing to come back to, and Resume is not offered."""
    stand_in("MESHY", 0.01)
    blender.ops.kiln.generate_from_text(prompt="a lamp", service="MESHY", wait=False)
    engine = kiln_module("session.runtime").engine()
    job = engine.jobs()[-1]
    assert wait_for(lambda: bool(engine.get(job.id).task_id))
    assert blender.ops.kiln.cancel_job(job_id=job.id) == {"FINISHED"}
    assert wait_for(lambda: "Cancelled on Meshy" in engine.get(job.id).note)
    assert not kiln_module("api.jobs.service_side").resumable(engine.get(job.id))


@pytest.mark.parametrize("chosen", [True, False])
def test_add_job_by_id_follows_the_task_on_its_service(
    stand_in: Any, blender: Any, kiln_module: Any, chosen: bool
) -> None:
    """A Tripo task id, added by its id (``service='TRIPO'``, or Tripo chosen in the preferences): its
    mesh lands, asked of Tripo, with no new task."""
    server = stand_in("TRIPO")
    assert blender.ops.kiln.generate_from_text(prompt="a lamp", service="TRIPO") == {"FINISHED"}
    engine = kiln_module("session.runtime").engine()
    task_id = engine.jobs()[-1].task_id
    prefs = kiln_module("preferences").get()
    try:
        if chosen:
            prefs.service = "TRIPO"
            result = blender.ops.kiln.resume_task(task_id=task_id, name="the lamp again")
        else:
            result = blender.ops.kiln.resume_task(task_id=task_id, name="the lamp again", service="TRIPO")
    finally:
        prefs.service = "INTERFACE"
    assert result == {"FINISHED"}
    added = engine.jobs()[-1]
    assert added.request.service_id == "TRIPO" and added.state.value == "imported"
    assert len(_submits(server)) == 1


def test_add_job_by_id_on_rodin_brings_the_mesh_in_with_no_new_task(
    stand_in: Any, blender: Any, kiln_module: Any
) -> None:
    """A Rodin task id alone (no subscription key) is asked of Rodin's Download Results."""
    server = stand_in("RODIN")
    assert blender.ops.kiln.generate_from_text(prompt="a lamp", service="RODIN") == {"FINISHED"}
    engine = kiln_module("session.runtime").engine()
    task_id = engine.jobs()[-1].task_id
    assert blender.ops.kiln.resume_task(task_id=task_id, name="the lamp again", service="RODIN") == {
        "FINISHED"
    }
    added = engine.jobs()[-1]
    assert added.request.service_id == "RODIN" and added.state.value == "imported"
    assert len([r for r in server.requests if r.method == "POST" and r.path == "/api/v2/rodin"]) == 1


def test_add_job_by_id_says_why_where_the_service_cannot_be_asked_by_id(
    blender: Any, fresh_jobs: Path, kiln_module: Any
) -> None:
    """A service asked about a job only by what its first answer gave: the call says so in a sentence,
    and the operator's tooltip gives that reason."""
    services = kiln_module("api.services")
    services.register_service("TOYNOID", "toy_service_no_by_id", package="")
    try:
        with pytest.raises(RuntimeError, match="cannot be added there by its ID"):
            blender.ops.kiln.resume_task(task_id="abc-123", service="TOYNOID")
        operator = blender.types.KILN_OT_resume_task
        props = SimpleNamespace(is_property_set=lambda name: name == "service", service="TOYNOID")
        assert "cannot be added there by its ID" in operator.description(blender.context, props)
        props.service = "RODIN"
        assert "cannot be added" not in operator.description(blender.context, props)
    finally:
        services.unregister_service("TOYNOID")


def test_cancel_on_meshy_asks_first_and_says_what_it_does_to_the_credits(
    stand_in: Any, blender: Any, kiln_module: Any, asking: Any
) -> None:
    stand_in("MESHY", 0.01)
    blender.ops.kiln.generate_from_text(prompt="a lamp", service="MESHY", wait=False)
    engine = kiln_module("session.runtime").engine()
    job = engine.jobs()[-1]
    assert wait_for(lambda: bool(engine.get(job.id).task_id))
    asked = Asked(blender)
    op = clicked(job_id=job.id)
    assert blender.types.KILN_OT_cancel_job.invoke(op, asked.context, None) == {"CANCELLED"}
    assert not op.ran and engine.get(job.id).state.is_active  # nothing happens before the answer
    (question,) = asked.questions
    # "Delete", not "Cancel": the dialog's other button is Blender's own Cancel, which asks nothing.
    assert question["title"] == "Delete on Meshy?" and question["confirm_text"] == "Delete on Meshy"
    assert "cannot be resumed" in question["message"] and "count as spent" in question["message"]


def test_stop_waiting_does_not_ask(stand_in: Any, blender: Any, kiln_module: Any, asking: Any) -> None:
    """Stopping costs nothing more (Resume brings the mesh later): it goes at once."""
    stand_in("TRIPO", 0.5)
    blender.ops.kiln.generate_from_text(prompt="a lamp", service="TRIPO", wait=False)
    engine = kiln_module("session.runtime").engine()
    job = engine.jobs()[-1]
    assert wait_for(lambda: bool(engine.get(job.id).task_id))
    asked = Asked(blender)
    op = clicked(job_id=job.id)
    blender.types.KILN_OT_cancel_job.invoke(op, asked.context, None)
    assert op.ran and asked.questions == []


def test_retexture_asks_above_ask_above_with_its_price(blender: Any, kiln_module: Any, asking: Any) -> None:
    asking.ask_above = 5
    request = kiln_module("api.jobs").JobRequest(kind="retexture").to_service("MESHY")
    asked = Asked(blender)
    op = clicked(priced_request=lambda: request)
    assert blender.types.KILN_OT_retexture_selected.invoke(op, asked.context, None) == {"CANCELLED"}
    assert not op.ran
    (question,) = asked.questions
    assert question["message"] == "Send 1 job? It costs 10 credits."
    asking.ask_above = 0
    blender.types.KILN_OT_retexture_selected.invoke(op, asked.context, None)
    assert op.ran and len(asked.questions) == 1  # below the artist's figure: sent on one click


def test_a_second_identical_generate_asks_another_one(
    stand_in: Any, blender: Any, kiln_module: Any, asking: Any
) -> None:
    """A double click on Generate while the same prompt runs asks before paying twice; another prompt,
    or the same one on another service, does not."""
    stand_in("TRIPO", 0.2)
    assert blender.ops.kiln.generate_from_text(prompt="a brass lamp", service="TRIPO", wait=False) == {
        "FINISHED"
    }
    text_request = kiln_module("session.job_requests").text_request
    spending = kiln_module("session.spending")
    asked = Asked(blender)
    same = text_request("  a Brass lamp ", "AUTO").to_service("TRIPO")
    op = clicked()
    spending.confirm_spend(op, asked.context, None, same, "Generate")
    assert not op.ran
    (question,) = asked.questions
    assert question["title"] == "Another One?"
    assert question["message"].startswith("“a brass lamp” is already being made. Send another one? It costs ")
    for other in (text_request("a brass chair", "AUTO").to_service("TRIPO"), same.to_service("MESHY")):
        op = clicked()
        spending.confirm_spend(op, asked.context, None, other, "Generate")
        assert op.ran
    assert len(asked.questions) == 1


def test_scripts_are_never_stopped_by_a_question(stand_in: Any, blender: Any, kiln_module: Any) -> None:
    """Background mode: the same prompt twice is the script's own business; both are sent."""
    server = stand_in("TRIPO", 0.2)
    for _ in range(2):
        blender.ops.kiln.generate_from_text("INVOKE_DEFAULT", prompt="a lamp", service="TRIPO", wait=False)
    assert wait_for(lambda: len(_submits(server)) == 2)


def test_a_price_above_the_last_known_balance_says_so_before_sending(
    stand_in: Any, blender: Any, kiln_module: Any, asking: Any
) -> None:
    """Test Connection's balance shows under the price, less what Kiln sent the service since; a job
    above what is left asks first, saying so."""
    stand_in("MESHY")
    credits = kiln_module("api.features.credits")
    words = kiln_module("api.words")
    spending = kiln_module("session.spending")
    answer = words.message(words.catalogue.CONNECTED_WITH_BALANCE, n=42, amount="42.5", service="Meshy")
    credits.note_balance("MESHY", answer, at=time.time() - 1)
    try:
        assert spending.balance_line("MESHY") == "Meshy: 42.5 credits left"
        # Meshy 6 publishes its price (30 credits a textured text job); Meshy 7.1, the default, none.
        assert blender.ops.kiln.generate_from_text(prompt="a lamp", service="MESHY", tier="meshy-6") == {
            "FINISHED"
        }
        assert spending.balance_line("MESHY") == "Meshy: 12.5 credits left"  # the text job's 30 credits
        request = kiln_module("api.jobs").JobRequest(kind="image").to_service("MESHY", tier="meshy-6")
        asked = Asked(blender)
        op = clicked()
        spending.confirm_spend(op, asked.context, None, request, "Generate")
        assert not op.ran
        (question,) = asked.questions
        assert "more than the 12.5 credits left on Meshy" in question["message"]
    finally:
        credits._balances.clear()


def test_the_add_job_by_id_dialog_shows_the_chosen_service(blender: Any, kiln_module: Any) -> None:
    prefs = kiln_module("preferences").get()
    shown: list[str] = []
    context = SimpleNamespace(
        window_manager=SimpleNamespace(
            invoke_props_dialog=lambda op: shown.append(op.service) or {"RUNNING_MODAL"}
        ),
        preferences=blender.context.preferences,
    )
    op = SimpleNamespace(properties=SimpleNamespace(is_property_set=lambda name: False), service="INTERFACE")
    try:
        prefs.service = "MESHY"
        assert blender.types.KILN_OT_resume_task.invoke(op, context, None) == {"RUNNING_MODAL"}
    finally:
        prefs.service = "INTERFACE"
    assert shown == ["MESHY"]


def test_a_settled_job_asks_its_service_the_balance_again(
    stand_in: Any, blender: Any, kiln_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a window, a job that settles asks its service the balance off the main thread (a free
    call), so the Sidebar shows what is left without a Test Connection; background mode never asks."""
    server = stand_in("MESHY")
    balances = kiln_module("session.balances")
    credits = kiln_module("api.features.credits")
    balances.ask_again(blender.context, "MESHY")  # background mode: a script is not slowed
    assert credits.known_balance("MESHY") is None and not balances._asking
    monkeypatch.setattr(balances, "blocks", lambda op=None: False)
    try:
        balances.ask_again(blender.context, "MESHY")
        assert wait_for(lambda: credits.known_balance("MESHY") is not None)
        assert credits.known_balance("MESHY").amount == 100_000
        assert [r for r in server.requests if "balance" in r.path]
        balances.ask_again(blender.context, "INTERFACE")  # the interface document has no balance call
        assert credits.known_balance("INTERFACE") is None
    finally:
        credits._balances.clear()
        balances._asking.clear()


def _submits(server: Any) -> list[Any]:
    """The paid calls the stand-in received (Tripo's v3 generation paths)."""
    return [r for r in server.requests if r.method == "POST" and "/v3/generation/" in r.path]
