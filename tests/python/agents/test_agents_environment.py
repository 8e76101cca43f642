"""KILN_AGENT_PORT and KILN_AGENT_TOKEN: both or neither, a real port, a token nobody can guess."""

from __future__ import annotations

import pytest

from api.agents import new_token
from api.agents.environment import agent_settings_from
from api.errors import InputError


def test_both_variables_name_the_server_and_neither_leaves_it_to_the_preferences() -> None:
    token = new_token()
    assert agent_settings_from({"KILN_AGENT_PORT": "8765", "KILN_AGENT_TOKEN": token}) == (8765, token)
    assert agent_settings_from({"KILN_AGENT_PORT": " 0 ", "KILN_AGENT_TOKEN": f" {token}\n"}) == (0, token)
    assert agent_settings_from({}) is None
    assert agent_settings_from({"KILN_AGENT_PORT": "", "KILN_AGENT_TOKEN": "  "}) is None


@pytest.mark.parametrize(
    ("port", "token", "said"),
    [
        ("8765", "", "Set both KILN_AGENT_PORT and KILN_AGENT_TOKEN"),
        ("", "x" * 40, "Set both"),
        ("65536", "x" * 40, "a port number from 0"),
        ("８７６５", "x" * 40, "a port number from 0"),
        ("-1", "x" * 40, "a port number from 0"),
        ("8765", "secret", "at least 32 characters"),
        ("8765", "x" * 31, "at least 32 characters"),
        ("8765", "x" * 40 + " y", "at least 32 characters"),
        ("8765", "x" * 40 + "\r\nX-Evil: 1", "at least 32 characters"),
    ],
)
def test_an_unusable_pair_is_a_sentence(port: str, token: str, said: str) -> None:
    with pytest.raises(InputError, match=said):
        agent_settings_from({"KILN_AGENT_PORT": port, "KILN_AGENT_TOKEN": token})
