"""Label text helpers."""

from __future__ import annotations

import pytest

from rho_desk.qt.ui.text import shorten


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short title", 60, "short title"),
        (
            "Fix the webhook retry loop and add tests for the backoff",
            30,
            "Fix the webhook retry loop…",
        ),
        ("a line\nwith   breaks", 60, "a line with breaks"),
        ("Refactor: the parser, the lexer", 22, "Refactor: the parser…"),
        ("x" * 80, 20, "x" * 19 + "…"),
    ],
)
def test_shorten_cuts_after_a_whole_word(text: str, limit: int, expected: str) -> None:
    out = shorten(text, limit)
    assert out == expected and len(out) <= limit
