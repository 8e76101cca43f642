"""A fresh Kiln chooses no service for the artist: what each service costs and needs in one line,
and where a job naming no service goes (a pipeline's environment keeps working)."""

from __future__ import annotations

import pytest

from api.features.service_access import service_for_jobs
from api.services import NOT_CHOSEN, all_services, info, register_service
from api.words import catalogue as words


def test_each_service_says_in_one_line_what_it_costs_and_needs() -> None:
    lines = {found.id: found.cost_line() for found in all_services()}
    assert lines == {
        "INTERFACE": words.SERVICE_COSTS_KEY_ADDRESS,
        "TRIPO": words.SERVICE_COSTS_KEY_CREDITS,
        "MESHY": words.SERVICE_COSTS_KEY_CREDITS,
        "RODIN": words.SERVICE_COSTS_KEY_CREDITS,
        "FAL": words.SERVICE_COSTS_KEY_DOLLARS,
        "COMFYUI": words.SERVICE_COSTS_LOCAL,
        "HUNYUAN3D": words.SERVICE_COSTS_LOCAL,
    }
    assert words.SERVICE_COSTS_LOCAL == "runs on your studio's server, no credits, no key"


def test_a_chosen_service_is_where_jobs_go_whatever_the_environment() -> None:
    assert service_for_jobs("RODIN", {}) == "RODIN"
    assert service_for_jobs("rodin", {"KILN_BASE_URL": "http://127.0.0.1:9"}) == "RODIN"


@pytest.mark.parametrize("variable", ["KILN_BASE_URL", "KILN_API_KEY"])
def test_with_none_chosen_a_pipelines_variables_send_to_the_custom_service(variable: str) -> None:
    assert service_for_jobs(NOT_CHOSEN, {variable: "http://127.0.0.1:9"}) == "INTERFACE"
    assert service_for_jobs(NOT_CHOSEN, {variable: "   "}) == ""


def test_with_none_chosen_and_no_pipeline_no_service_is_chosen() -> None:
    assert service_for_jobs(NOT_CHOSEN, {}) == ""
    assert service_for_jobs("", {"KILN_TRIPO_API_KEY": "tsk_x"}) == ""  # another service's key chooses none


def test_not_chosen_is_no_service_id() -> None:
    with pytest.raises(ValueError, match="reserved"):
        register_service(NOT_CHOSEN, "api.services.interface")
    assert info(NOT_CHOSEN).id == "INTERFACE"  # read as a record naming no service, as before
