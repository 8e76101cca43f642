"""The names outside checks drive Kiln by (the design notes' contract table) survive any move of rooms."""

from __future__ import annotations


def test_the_client_and_the_glb_check_keep_their_contract_names() -> None:
    from api.checks.glb import check_glb as checked_in_its_room
    from api.client import Client
    from api.glb import check_glb
    from api.services.interface.client import Client as client_in_its_room

    assert Client is client_in_its_room and check_glb is checked_in_its_room


def test_the_errors_and_the_engine_keep_their_contract_names() -> None:
    from api.errors import InputError, KilnError
    from api.jobs import JobEngine, JobRequest, JobState, ServiceConfig
    from api.jobs.engine import JobEngine as engine_in_its_module

    assert issubclass(InputError, KilnError) and JobEngine is engine_in_its_module
    assert JobState("outcome unknown") is JobState.OUTCOME_UNKNOWN
    assert JobRequest(kind="text", prompt="a chair").prompt == "a chair"
    assert ServiceConfig(base_url="http://127.0.0.1:1", api_key="k").base_url.startswith("http://")
