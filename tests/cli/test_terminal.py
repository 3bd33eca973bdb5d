"""The one terminal writer (``rho_desk.cli.terminal``): text shows every hidden character, JSON
escapes them and still means the same, rho-desk's own sequences pass, bytes cannot sneak by."""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rho_desk.cli import main
from rho_desk.cli.terminal import (
    RESET,
    TerminalOutput,
    before_prompt,
    control,
    guarded_output,
    json_shown,
    shown,
)
from rho_desk.core.text.visible import hidden


def test_text_shows_controls_bidi_and_invisibles_and_keeps_newlines_and_tabs() -> None:
    assert (
        shown("a\tb\nc\x1b[2K\rd\u202ee\x9b\u200b\U000e0041")
        == "a\tb\nc\\x1b[2K␍d<U+202E>e\\x9b<U+200B><U+E0041>"
    )
    assert shown("plain, ünïcode, 日本語 ● ✓") == "plain, ünïcode, 日本語 ● ✓"


@given(st.text())
def test_nothing_hidden_is_printed_and_printing_twice_changes_nothing(text: str) -> None:
    once = shown(text)
    assert not any(hidden(ch) for ch in once if ch not in "\t")
    assert shown(once) == once


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=20,
    ),
    st.booleans(),
)
def test_json_keeps_its_meaning_and_hides_nothing(value: object, indent: bool) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2 if indent else None)
    escaped = json_shown(text)
    assert json.loads(escaped) == value
    assert not any(hidden(ch) for ch in escaped)


def test_the_stream_escapes_text_passes_own_sequences_and_has_no_byte_buffer() -> None:
    raw = io.StringIO()
    out = TerminalOutput(raw)  # type: ignore[arg-type]
    print("title\x1b]0;PWNED\x07", file=out)  # type: ignore[arg-type]
    control(out, "\r\x1b[2K")  # type: ignore[arg-type]
    assert raw.getvalue() == "title\\x1b]0;PWNED\\x07\n\r\x1b[2K"
    with pytest.raises(AttributeError):
        out.buffer  # noqa: B018
    assert not hasattr(out, "buffer")


def test_a_reset_before_a_prompt_on_a_terminal_only() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    before_prompt(tty)
    before_prompt(pipe)
    assert (tty.getvalue(), pipe.getvalue()) == (RESET, "")


def test_the_guard_covers_both_streams_and_is_undone() -> None:
    out, err = sys.stdout, sys.stderr
    with guarded_output(json=True):
        assert isinstance(sys.stdout, TerminalOutput) and isinstance(sys.stderr, TerminalOutput)
    assert (sys.stdout, sys.stderr) == (out, err)
    with guarded_output(raw=True):
        assert sys.stdout is out and isinstance(sys.stderr, TerminalOutput)


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not nested:
        yield parser
    for action in nested:
        for child in dict.fromkeys(action.choices.values()):
            yield from _leaves(child)


def test_every_command_but_the_app_says_what_raw_does_in_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rho_desk import cli

    (commands,) = [a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        for leaf in _leaves(command):
            assert any(a.dest == "raw" for a in leaf._actions) is (name != "open"), leaf.prog
    with pytest.raises(SystemExit):
        main(["changes", "--help"])
    assert "byte for byte" in capsys.readouterr().out
