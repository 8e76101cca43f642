"""The agents' buttons and the serving operator: copy a client configuration, make a new token,
disconnect agents, and serve agents in background mode (``bpy.ops.kiln.serve_agents``).

The agents' room (``agents``, ``api.agents``) loads with the first use, not when Kiln registers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import bpy
from bpy.props import EnumProperty, FloatProperty, IntProperty, StringProperty

from .. import agents, language
from ..api.agents import client_config
from ..api.errors import KilnError
from ..api.words import catalogue as words
from ..session.blocking import blocks
from ..session.messenger import refuse, tell

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

#: Each client's configuration, by the choice that names it.
CONFIGS = {
    "HTTP": lambda url, token: client_config.render(client_config.http_config(url, token)),
    "VSCODE": lambda url, token: client_config.render(client_config.vscode_config(url, token)),
    "BRIDGE": lambda url, token: client_config.render(client_config.bridge_config(url, token)),
    "COMMAND": client_config.claude_code_command,
}
CLIENTS = {
    "HTTP": words.AGENT_CLIENT_HTTP,
    "VSCODE": words.AGENT_CLIENT_VSCODE,
    "BRIDGE": words.AGENT_CLIENT_BRIDGE,
    "COMMAND": words.AGENT_CLIENT_COMMAND,
}


class KILN_OT_copy_agent_config(bpy.types.Operator):
    bl_idname = "kiln.copy_agent_config"
    bl_label = words.OP_COPY_AGENT_CONFIG.name
    bl_description = words.OP_COPY_AGENT_CONFIG.tip
    bl_options = {"INTERNAL"}

    client: EnumProperty(  # type: ignore[valid-type]
        items=[(value, label.name, label.tip) for value, label in CLIENTS.items()], default="HTTP"
    )

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if agents.serving.url():
            return True
        cls.poll_message_set(language.tip(words.AGENTS_NOT_RUNNING))
        return False

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        context.window_manager.clipboard = CONFIGS[self.client](agents.serving.url(), agents.serving.token())
        tell(self, "INFO", words.AGENT_CONFIG_COPIED, client=CLIENTS[self.client].name)
        return {"FINISHED"}


class KILN_OT_new_agent_token(bpy.types.Operator):
    bl_idname = "kiln.new_agent_token"
    bl_label = words.OP_NEW_AGENT_TOKEN.name
    bl_description = words.OP_NEW_AGENT_TOKEN.tip
    bl_options = {"INTERNAL"}

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        try:
            from_environment = agents.settings.environment() is not None
        except agents.settings.EnvironmentUnusable:
            from_environment = True
        if from_environment:
            from ..api.agents.environment import TOKEN_VARIABLE

            return refuse(self, words.AGENT_TOKEN_FROM_ENVIRONMENT, token=TOKEN_VARIABLE)
        agents.access.renew()
        agents.serving.reconcile(context)  # a server with the old token stops; one with the new starts
        tell(self, "INFO", words.AGENT_TOKEN_MADE)
        return {"FINISHED"}


class KILN_OT_disconnect_agents(bpy.types.Operator):
    bl_idname = "kiln.disconnect_agents"
    bl_label = words.OP_DISCONNECT_AGENTS.name
    bl_description = words.OP_DISCONNECT_AGENTS.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        ended = agents.serving.disconnect()
        tell(self, "INFO", words.AGENTS_DISCONNECTED, n=ended)
        return {"FINISHED"}


class KILN_OT_serve_agents(bpy.types.Operator):
    bl_idname = "kiln.serve_agents"
    bl_label = words.OP_SERVE_AGENTS.name
    bl_description = words.OP_SERVE_AGENTS.tip
    bl_options = {"REGISTER"}

    port: IntProperty(  # type: ignore[valid-type]
        name=words.SERVE_PORT.name, description=words.SERVE_PORT.tip, default=-1, min=-1, max=65535
    )
    token: StringProperty(  # type: ignore[valid-type]
        name=words.SERVE_TOKEN.name,
        description=words.SERVE_TOKEN.tip,
        subtype="PASSWORD",
        options={"HIDDEN", "SKIP_SAVE"},
    )
    seconds: FloatProperty(  # type: ignore[valid-type]
        name=words.SERVE_SECONDS.name, description=words.SERVE_SECONDS.tip, default=0.0, min=0.0
    )
    stop_file: StringProperty(  # type: ignore[valid-type]
        name=words.SERVE_STOP_FILE.name, description=words.SERVE_STOP_FILE.tip, subtype="FILE_PATH"
    )

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        from ..api.agents.environment import MIN_TOKEN_CHARS, usable_token

        if not blocks(self):
            return refuse(self, words.SERVE_IN_A_WINDOW)
        token = self.token.strip()
        if token and not usable_token(token):
            return refuse(self, words.SERVE_WEAK_TOKEN, least=MIN_TOKEN_CHARS)
        stop_file = Path(bpy.path.abspath(self.stop_file)) if self.stop_file.strip() else None
        try:
            agents.background.serve(context, agents.settings.Asked(self.port, token), self.seconds, stop_file)
        except KilnError as exc:
            return refuse(self, exc.user_message)
        tell(self, "INFO", words.SERVED)
        return {"FINISHED"}


classes = (
    KILN_OT_copy_agent_config,
    KILN_OT_new_agent_token,
    KILN_OT_disconnect_agents,
    KILN_OT_serve_agents,
)
