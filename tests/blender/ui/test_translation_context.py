"""Kiln's names are looked up in Kiln's own translation context, so a Kiln translation of "All" or
"Engine" never replaces Blender's own translation of the same word (issue 31).

The bpy module has no translations of its own (it is built without them): what the languages look
like is tested in Debian's Blender program (tests/window/test_languages.py); here, that every name
Kiln registers asks for Kiln's context, and that the registered table is handed to Blender.
"""

from __future__ import annotations

from typing import Any


def kiln_types(bpy: Any) -> list[Any]:
    names = [n for n in dir(bpy.types) if n.startswith(("KILN_OT_", "KILN_PT_", "KILN_MT_"))]
    return [getattr(bpy.types, n) for n in names]


def test_every_operator_panel_and_property_of_kilns_is_in_kilns_context(blender: Any, ui: Any) -> None:
    types = kiln_types(blender)
    assert len(types) > 20
    odd = [t.__name__ for t in types if t.bl_rna.translation_context != "Kiln"]
    assert odd == []
    operators = [t.bl_idname.removeprefix("kiln.") for t in types if t.__name__.startswith("KILN_OT_")]
    structs = [getattr(blender.ops.kiln, name).get_rna_type() for name in operators]
    structs += [ui.preferences.get().bl_rna, blender.context.scene.kiln.bl_rna]
    properties = [
        (s.identifier, p.identifier, p.translation_context)
        for s in structs
        for p in s.properties
        if p.is_runtime
    ]
    assert len(properties) > 80
    assert [p for p in properties if p[2] != "Kiln"] == []


def test_without_a_translation_kiln_speaks_english_with_its_plural_forms(
    blender: Any, kiln_module: Any
) -> None:
    language, words = kiln_module("language"), kiln_module("api.words.catalogue")
    assert language.text(words.TRIANGLE_COUNT, n=1) == "1 triangle"
    assert language.text(words.TRIANGLE_COUNT, n=6144) == "6,144 triangles"
    assert language.report(words.SETUP_ADD_KEY) == "Add your API key"
