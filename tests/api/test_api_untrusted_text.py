"""The small checks every piece of service text passes: task ids, addresses, key redaction."""

from __future__ import annotations

import pytest

from api.ids import MAX_TASK_ID_CHARS, check_task_id, task_id_problem
from api.inputs import url_problem
from api.net.origin import address_problem, connect_origin
from api.redact import redact

KEY = "sbx_live_UNTRUSTEDsecret0123456789"


@pytest.mark.parametrize("value", ["task_1", "01HZY8", "a.b-c_d", 42, "x" * MAX_TASK_ID_CHARS])
def test_ordinary_ids_are_accepted(value: object) -> None:
    assert check_task_id(value) == str(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "..",
        ".hidden",
        "a/b",
        "a\\b",
        "C:x",
        "a b",
        "a\x00",
        "x" * (MAX_TASK_ID_CHARS + 1),
        "nul",
        "COM1.x",
        "end.",
        -1,
        2**200,
        True,
        None,
        1.5,
        ["id"],
    ],
)
def test_odd_ids_are_refused_with_a_reason(value: object) -> None:
    problem = task_id_problem(value)
    assert problem and problem.startswith("the task id")
    with pytest.raises(ValueError):
        check_task_id(value)


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
    assert address_problem("http://127.0.0.1:1\\@127.0.0.1:2/") == "it contains a backslash"
    assert address_problem("https://example.com/ok?q=1") is None


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("https://u@example.com/", "user name"),
        ("https://example.com/\u200b", "control"),
        ("gopher://example.com/", "https://"),
        ("http://example.com/", "plain http"),
        ("https://example.com:0x50/", "port"),
        ("https:///path", "no host"),
    ],
)
def test_url_problems_are_named(url: str, words: str) -> None:
    problem = url_problem(url)
    assert problem is not None and words in problem
