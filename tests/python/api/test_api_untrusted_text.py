"""The small checks every piece of service text passes: task ids, addresses, key redaction."""

from __future__ import annotations

import pytest

from api.checks.inputs import url_problem
from api.http.ids import MAX_TASK_ID_CHARS, check_task_id, shown_task_id, task_id_problem, url_segment
from api.http.origin import address_problem, connect_origin
from api.http.redact import redact
from api.words import catalogue as words

KEY = "sbx_live_UNTRUSTEDsecret0123456789"


@pytest.mark.parametrize(
    "value",
    [
        "task_1",
        "01HZY8",
        "a.b-c_d",
        42,
        "x" * MAX_TASK_ID_CHARS,
        "задача-日本語-🦊",
        "..",
        ".hidden",
        "a/b",
        "a\\b",
        "C:x",
        "urn:task=1+2",
        "a b",
        "nul",
        "COM1.x",
        "end.",
        "zwj\u200d",
    ],
)
def test_any_text_is_an_id(value: object) -> None:
    assert check_task_id(value) == str(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "a\x00",
        "a\nb",
        "tab\t",
        "del\x7f",
        "c1\x85",
        "line\u2028sep",
        "bidi\u202e",
        "lone\ud800",
        "x" * (MAX_TASK_ID_CHARS + 1),
        -1,
        2**200,
        True,
        None,
        1.5,
        ["id"],
    ],
)
def test_ids_that_can_hurt_are_refused_with_a_reason(value: object) -> None:
    problem = task_id_problem(value)
    assert problem and problem.startswith("the task id")
    with pytest.raises(ValueError):
        check_task_id(value)


@pytest.mark.parametrize(
    ("task_id", "segment"),
    [
        ("a/b c", "a%2Fb%20c"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("a.b", "a.b"),
        ("?#%", "%3F%23%25"),
        ("é", "%C3%A9"),
    ],
)
def test_an_id_is_one_url_segment(task_id: str, segment: str) -> None:
    assert url_segment(task_id) == segment


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("abc\x00def", "abc\\x00def"),
        ("a\\b\n", "a\\\\b\\n"),
        ("bidi\u202e", "bidi\\u202e"),
        ("y" * 300, "y" * 200 + "… (300 characters)"),
        (2**200, str(2**200)),
        ({"a": 1}, "<dict, not text>"),
    ],
)
def test_a_refused_id_is_shown_escaped_on_one_printable_line(value: object, shown: str) -> None:
    assert shown_task_id(value) == shown and shown.isprintable()


@pytest.mark.parametrize(
    "text",
    [
        KEY,
        f"Bearer {KEY}.",
        "token=sbx_live_UNTRUSTEDsecret0123456789&x=1",
        '"sbx_live_UNTRUSTEDsecret0123456789"',
    ],
    ids=["bare", "bearer", "query", "quoted"],
)
def test_redact_masks_the_key(text: str) -> None:
    assert KEY not in redact(text, KEY) and "***" in redact(text, KEY)


def test_redact_masks_a_key_cut_short_at_the_end_but_leaves_other_text() -> None:
    assert redact(f"denied for {KEY[:12]}…", KEY) == "denied for ***…"
    assert redact("sbx_ is a prefix but too short", KEY) == "sbx_ is a prefix but too short"
    assert redact("", KEY) == "" and redact("text", "") == "text"


def test_the_origin_is_judged_as_urllib3_connects() -> None:
    assert connect_origin("https://Example.COM./x") == ("https", "example.com", 443)
    assert connect_origin("http://[::1]:8080/") == ("http", "::1", 8080)
    assert address_problem("http://127.0.0.1:1\\@127.0.0.1:2/") == words.ADDRESS_HAS_BACKSLASH
    assert address_problem("https://example.com/ok?q=1") is None


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://u@example.com/", "user name"),
        ("https://example.com/\u200b", "invisible"),
        ("gopher://example.com/", "https://"),
        ("http://example.com/", "plain http"),
        ("https://example.com:0x50/", "port"),
        ("https:///path", "no server"),
    ],
)
def test_url_problems_are_named(url: str, said: str) -> None:
    problem = url_problem(url)
    assert problem is not None and said in problem
