"""The access token agents send: made by Kiln, kept as the API key is kept, never shown or saved in a .blend.

It lives in an entry of its own in the system's secret store (or a private file in Kiln's user
folder, ``api.features.secrets.AGENT_TOKEN``), read once and saved on a thread of its own. Kiln
makes one the first time agents are allowed, and a new one when the artist asks (Make New Token);
one read back that is no longer usable (edited by hand) is replaced. The token leaves Kiln only in
the client configuration the artist copies.
"""

from __future__ import annotations

import logging

from .. import preferences
from ..api import agents as agent_api
from ..api.agents.environment import usable_token
from ..api.features import secrets

log = logging.getLogger(__name__)

#: The token's home on this side: read once, saved off the UI thread.
token_home = secrets.KeyHome(preferences.user_dir, secrets.AGENT_TOKEN)


def token() -> str:
    """The access token, made and kept on first use."""
    kept = token_home.read()
    if usable_token(kept):
        return kept
    if kept:
        log.warning("The kept agents' access token is not usable (changed by hand?); Kiln made a new one")
    return renew()


def renew() -> str:
    """A new token in place of the old one (agents that have the old one are refused from now on)."""
    made = agent_api.new_token()  # loads the agents' security module on first use
    token_home.write(made)
    return made


def forget() -> None:
    """On unregister: let a pending save finish, and read the store anew when Kiln is enabled again."""
    token_home.finish()
    token_home.forget()
