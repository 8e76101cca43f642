"""Sentences wrap over the Sidebar's lines in every language, measured with Blender's own font:
English and Korean at their spaces, Chinese and Japanese (no spaces) between characters, filling
each line and never starting one with a closing mark."""

from __future__ import annotations

from typing import Any

import pytest

FONT_PX = 11.0
JAPANESE = (
    "サービスはこのプロンプトまたは画像からメッシュを作成できませんでした。"
    "言葉や画像を変えるか、時間をおいてやり直してください。"
)
MIXED = (
    "「Cube」は Blender が付けた名前のままです。"
    "使うにはプレースホルダーに設定してください（名前が付きます）。"
)


@pytest.fixture
def drawing(kiln_module: Any) -> Any:
    return kiln_module("drawing")


def lines_of(drawing: Any, text: str, chars: float) -> tuple[tuple[str, ...], float]:
    """``text`` wrapped to a room as wide as ``chars`` of its own first character."""
    room = drawing.text_width(text[0], FONT_PX) * chars
    return drawing.wrap_text(text, room, FONT_PX), room


@pytest.mark.parametrize("chars", [5.5, 9.5, 11.5, 17.5, 20.5])
def test_japanese_fills_each_line_and_keeps_closing_marks_off_a_line_start(
    drawing: Any, chars: float
) -> None:
    lines, room = lines_of(drawing, JAPANESE, chars)
    assert "".join(lines) == JAPANESE
    assert all(drawing.text_width(line, FONT_PX) <= room for line in lines)
    assert not [line for line in lines[1:] if line[0] in drawing.NO_LINE_START]
    # Full but for a mark moved down with the character before it (a line of 7 takes 6 or 7).
    assert all(len(line) >= int(chars) - 2 for line in lines[:-1]), lines


def test_a_latin_name_inside_japanese_stays_whole_and_the_line_is_filled(drawing: Any) -> None:
    lines, room = lines_of(drawing, MIXED, 16.5)
    assert all(drawing.text_width(line, FONT_PX) <= room for line in lines)
    assert any("Blender" in line for line in lines), lines
    # The Japanese after "Blender" goes on filling its line (no line of a few characters and a gap).
    assert len(lines[0]) > len("「Cube」は Blender"), lines
    assert "".join(lines).replace(" ", "") == MIXED.replace(" ", "")


def test_english_and_korean_break_at_spaces(drawing: Any) -> None:
    english = "The service could not make a mesh from this prompt or image. Try other words."
    korean = "서비스가 이 프롬프트나 이미지로 메시를 만들 수 없습니다. 다른 단어로 다시 시도하세요."
    for text in (english, korean):
        room = drawing.text_width(text[:20], FONT_PX)
        lines = drawing.wrap_text(text, room, FONT_PX)
        assert " ".join(lines) == text
        assert {word for line in lines for word in line.split()} == set(text.split())
