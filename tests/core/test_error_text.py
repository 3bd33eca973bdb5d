"""``error_text``: the one wording of an error, for the app's notices, its dialogs and the CLI."""

from __future__ import annotations

import asyncio

from rho_desk.core.errors import Cancelled, InputError, ProviderError, ProviderErrorKind, error_text


def test_a_known_error_speaks_with_its_own_text() -> None:
    error = InputError("not a session file", source="a.jsonl", line=3)
    assert error_text(error) == error.text()
    assert "a.jsonl" in error_text(error)
    failure = ProviderError(ProviderErrorKind.UNAVAILABLE, "the server closed the connection")
    assert error_text(failure) == failure.text()


def test_a_cancellation_is_one_word() -> None:
    assert error_text(Cancelled()) == "cancelled"
    assert error_text(asyncio.CancelledError()) == "cancelled"


def test_anything_else_is_named_a_bug_with_its_first_line_only() -> None:
    text = error_text(ValueError("first line\nsecond line"))
    assert text == "rho-desk hit a bug (ValueError: first line)"
    assert "second line" not in text
    assert error_text(RuntimeError()) == "rho-desk hit a bug (RuntimeError)"
    assert len(error_text(ValueError("x" * 1000))) < 200
