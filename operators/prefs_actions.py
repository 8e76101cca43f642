"""Buttons of the preferences that are not about one job: test the connection, clear the cache."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.features import cache
from ..api.features.connection_check import current as connection_check
from ..drawing import tag_redraw
from ..main_thread import follow
from ..session import runtime
from ..session.launching import OnlineOperator
from ..session.messenger import refuse
from ..ui_text import human_size

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems as OperatorResult

log = logging.getLogger(__name__)


class KILN_OT_test_connection(OnlineOperator):
    """Ask the service whether it answers and accepts the key (costs no credits). The answer appears below"""

    bl_idname = "kiln.test_connection"
    bl_label = "Test Connection"
    bl_options = {"INTERNAL"}

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        chosen = preferences.credentials(context)
        work = connection_check.begin(chosen.base_url, chosen.api_key)
        if work is None:
            self.report({"INFO"}, "Kiln: a connection test is already running")
            return {"CANCELLED"}
        follow("connection-check", work, lambda _answer: tag_redraw("PREFERENCES"))
        return {"FINISHED"}


class KILN_OT_clear_cache(bpy.types.Operator):
    """Delete downloaded meshes and previews; files of jobs still running or not yet imported are kept"""

    bl_idname = "kiln.clear_cache"
    bl_label = "Clear Cache"
    bl_options = {"INTERNAL"}

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorResult]:
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context: bpy.types.Context) -> set[OperatorResult]:
        engine, problem = runtime.try_engine(context)
        if engine is None:
            return refuse(self, problem)
        files, freed = cache.clear_cache(engine.cache_dir, engine.jobs())
        preferences.cache_size.forget()
        log.info("Cleared %d cached files (%d bytes)", files, freed)
        self.report({"INFO"}, f"Kiln: removed {files} cached files ({human_size(freed)})")
        return {"FINISHED"}


classes = (KILN_OT_test_connection, KILN_OT_clear_cache)
