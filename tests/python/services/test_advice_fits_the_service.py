"""No sentence gives advice with a control the job's service lacks: every catalogue entry that names a
control is walked against each service's capabilities, through the variant the job engine says."""

from __future__ import annotations

import re

import pytest

from api.services import advice, all_services
from api.services.capabilities import Capabilities, Tier
from api.words import Label, Message, Plural, catalogue

#: What an advice says → the control it names (``api.services.advice``); NOBODY: no service has it.
NOBODY = "a control no service has"
CONTROLS = (
    (r"\bresolution 1024\b", advice.RESOLUTION),
    (r"\bFace Limit\b", advice.FACE_LIMIT),
    (r"\bcheaper model\b", advice.CHEAPER_TIER),
    (r"\bplain GLB\b", NOBODY),
)
#: Labels that are the control itself: drawn only where the service has it (the panel asks it).
THE_CONTROL_ITSELF = {"ARG_POLYGONS"}
SERVICES = {service.id: service for service in all_services()}


def sentences() -> list[tuple[str, str]]:
    """Every English text of the catalogue, by entry name."""
    found = []
    for name, value in vars(catalogue).items():
        if name.startswith("_") or not name.isupper() or name in THE_CONTROL_ITSELF:
            continue
        if isinstance(value, Label):
            found += [(name, value.name), (name, value.tip)]
        elif isinstance(value, Plural):
            found += [(name, value.one), (name, value.other)]
        elif isinstance(value, str):
            found.append((name, value))
    return found


def named_controls(text: str) -> set[str]:
    return {control for pattern, control in CONTROLS if re.search(pattern, text)}


def own_service(name: str) -> str | None:
    """The one service a service's own sentence is said for (``TRIPO_…``), else None (any service)."""
    return next((sid for sid in SERVICES if name.startswith(f"{sid}_")), None)


def english_of(name: str) -> str:
    value = getattr(catalogue, name)
    return value.other if isinstance(value, Plural) else str(value)


@pytest.mark.parametrize("sid", sorted(SERVICES))
def test_no_sentence_names_a_control_the_service_lacks(sid: str) -> None:
    capabilities = SERVICES[sid].capabilities
    wrong = []
    for name, text in sentences():
        if not named_controls(text) or own_service(name) not in (None, sid):
            continue
        said = advice.fitted(Message(name, {}, ""), capabilities)
        shown = english_of(said.name) if said.name != name else text
        lacking = {c for c in named_controls(shown) if not advice.has_control(capabilities, c)}
        if lacking:
            wrong.append(f"{said.name}: names {', '.join(sorted(lacking))}")
    assert wrong == []


def test_the_walk_finds_advice_and_fails_on_a_service_without_its_control() -> None:
    """The test above can fail: a service without resolutions, polygons or tiers of different prices
    reads none of the advices; the old sentences would have named them."""
    bare = Capabilities(text_tiers=(Tier("one", catalogue.OPTION_TIER, 5),), text_default="one")
    for name in advice.VARIANTS:
        assert named_controls(english_of(name))  # each family's first sentence names a control
        plain = advice.fitted(Message(name, {}, ""), bare)
        assert plain.name != name and named_controls(english_of(plain.name)) == set()


@pytest.mark.parametrize(
    ("sid", "name", "said"),
    [
        ("INTERFACE", "SERVICE_OUT_OF_CREDITS", "SERVICE_OUT_OF_CREDITS"),
        ("TRIPO", "SERVICE_OUT_OF_CREDITS", "SERVICE_OUT_OF_CREDITS_CHEAPER_TIER"),
        # Meshy publishes one price of the two models it offers (meshy-7.1 has none): no cheaper one.
        ("MESHY", "SERVICE_OUT_OF_CREDITS", "SERVICE_OUT_OF_CREDITS_TOP_UP"),
        ("INTERFACE", "MESH_TOO_LARGE", "MESH_TOO_LARGE"),
        ("TRIPO", "MESH_TOO_LARGE", "MESH_TOO_LARGE_FACE_LIMIT"),
        ("RODIN", "MESH_OUT_OF_MEMORY", "MESH_OUT_OF_MEMORY_FACE_LIMIT"),
        ("MESHY", "MESH_TOO_LARGE_PLAIN", "MESH_TOO_LARGE_FACE_LIMIT"),  # a stored variant is fitted again
    ],
)
def test_each_service_reads_the_advice_it_can_follow(sid: str, name: str, said: str) -> None:
    given = Message(name, {"limit": 500, "gigabytes": 4.0}, "HTTP 402")
    fitted = advice.fitted(given, SERVICES[sid].capabilities)
    assert fitted.name == said
    assert (fitted.values, fitted.details) == (given.values, given.details)
