"""Buttons of the preferences that are not about one job: choose the service, test the connection,
clear the cache."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.features import cache
from ..api.features.connection_check import current as connection_check
from ..api.services import info, is_registered
from ..api.words import catalogue as words
from ..drawing import tag_redraw
from ..main_thread import follow
from ..options import declare
from ..session import runtime
from ..session.messenger import refuse, tell
from ..session.setup import OnlineOperator

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

log = logging.getLogger(__name__)


class KILN_OT_choose_service(bpy.types.Operator):
    """Send your jobs to this service (you can change it in the Sidebar at any time)"""

    bl_idname = "kiln.choose_service"
    bl_label = words.OP_CHOOSE_SERVICE.name
    bl_description = words.OP_CHOOSE_SERVICE.tip
    bl_options = {"INTERNAL"}

    service: declare("service", options={"SKIP_SAVE"})  # type: ignore[valid-type]

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        if not is_registered(self.service):  # "Choose a Service" itself chooses nothing
            return refuse(self, words.SERVICE_NOT_CHOSEN)
        preferences.get(context).service = self.service
        log.info("%s chosen", info(self.service).name)
        tag_redraw()
        return {"FINISHED"}


class KILN_OT_test_connection(OnlineOperator):
    """Ask the service whether it answers and accepts the key (costs no credits). The answer appears below"""

    bl_idname = "kiln.test_connection"
    bl_label = words.OP_TEST_CONNECTION.name
    bl_description = words.OP_TEST_CONNECTION.tip
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        chosen = preferences.credentials(context)
        work = connection_check.begin(chosen.base_url, chosen.api_key, chosen.service)
        if work is None:
            tell(self, "INFO", words.CONNECTION_TEST_RUNNING)
            return {"CANCELLED"}
        follow("connection-check", work, lambda _answer: tag_redraw("PREFERENCES"))
        return {"FINISHED"}


class KILN_OT_clear_cache(bpy.types.Operator):
    """Delete downloaded meshes and previews; files of jobs still running or not yet imported are kept"""

    bl_idname = "kiln.clear_cache"
    bl_label = words.OP_CLEAR_CACHE.name
    bl_description = words.OP_CLEAR_CACHE.tip
    bl_options = {"INTERNAL"}

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        engine, problem = runtime.try_engine(context)
        if engine is None:
            return refuse(self, problem)
        from ..ui_text import human_size  # loaded by the first use, not at registration

        files, freed = cache.clear_cache(engine.cache_dir, engine.jobs())
        preferences.cache_size.forget()
        log.info("Cleared %d cached files (%d bytes)", files, freed)
        tell(self, "INFO", words.CACHE_CLEARED, n=files, size=human_size(freed))
        return {"FINISHED"}


classes = (KILN_OT_choose_service, KILN_OT_test_connection, KILN_OT_clear_cache)
