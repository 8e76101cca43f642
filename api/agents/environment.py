"""``KILN_AGENT_PORT`` and ``KILN_AGENT_TOKEN``: the agent server for scripts and farms, read once.

When both are set, Kiln starts its agent server as it is enabled (the Blender side decides when),
on that port with that token, whatever the preferences say; when neither is, the preferences decide.
One without the other, a port that is no port, or a token an attacker could guess (shorter than
:data:`MIN_TOKEN_CHARS`, or holding anything but the letters, digits and ``-._~+/=`` a header
carries as is) is a sentence, and no server starts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import InputError
from . import words

PORT_VARIABLE = "KILN_AGENT_PORT"
TOKEN_VARIABLE = "KILN_AGENT_TOKEN"
#: As long as the tokens Kiln makes itself (``security.new_token``: 43 characters).
MIN_TOKEN_CHARS = 32
MAX_TOKEN_CHARS = 512
_TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]+")


def agent_settings_from(environ: Mapping[str, str]) -> tuple[int, str] | None:
    """(port, token) from the environment, None when it names no agent server; InputError if unusable."""
    port_text = environ.get(PORT_VARIABLE, "").strip()
    token = environ.get(TOKEN_VARIABLE, "").strip()
    if not port_text and not token:
        return None
    if not port_text or not token:
        raise InputError(words.ENV_HALF.format(port=PORT_VARIABLE, token=TOKEN_VARIABLE))
    if not port_text.isascii() or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise InputError(words.ENV_BAD_PORT.format(name=PORT_VARIABLE))
    if not usable_token(token):
        raise InputError(words.ENV_WEAK_TOKEN.format(name=TOKEN_VARIABLE, least=MIN_TOKEN_CHARS))
    return int(port_text), token


def usable_token(token: str) -> bool:
    """Long enough that nobody guesses it, and carried by a header as is (the environment's, an
    operator's argument, or one read back from the secret store)."""
    return MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS and _TOKEN.fullmatch(token) is not None
