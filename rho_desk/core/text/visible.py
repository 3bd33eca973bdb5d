"""Text shown for approval, made so that what a person reads is what will run.

A model chooses the command, the paths, the file contents and the tool arguments that a person
approves, and a session file from elsewhere chooses the folder. Any of them may carry characters
that a terminal or a text widget acts on instead of showing: a carriage return or ANSI/OSC
escape sequences that overwrite or erase what came before (``ls -la\\ntouch PWNED # \\x1b[2K\\r``
shows as ``ls -la``), bidirectional overrides that reorder what follows (``<U+202E>``),
zero-width and other invisible characters, look-alike spaces. :func:`visible` shows each of
them as text:

* a carriage return as ``␍``, a tab as ``\\t``, every other C0 or C1 control character and DEL
  as ``\\xNN`` (escape sequences thus show whole: ``\\x1b[2K``);
* format characters (bidi controls, zero-width characters, the byte-order mark, soft hyphen...),
  line and paragraph separators, spaces other than U+0020, and the invisible fillers as
  ``<U+XXXX>``;
* newlines stay newlines: :func:`numbered` then shows a multi-line text in full, with line numbers;
  where one line is shown (a title, a folder), :func:`one_line` shows each newline as ``⏎``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

__all__ = ["hidden", "map_hidden", "numbered", "one_line", "visible"]

_FILLERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters that draw nothing though Unicode calls them letters or symbols (Hangul fillers,
the blank Braille pattern)."""

_SUSPECT: Final = re.compile("[^ -~\n]+")
"""Runs of anything but printable ASCII and newlines: the only places a hidden character can be."""
_SUSPECT_KEEPING_TABS: Final = re.compile("[^ -~\n\t]+")
_PIECE: Final = 1 << 16
"""Long texts are checked in pieces of this many characters: only a piece that holds a hidden
character is looked at character by character."""


def _shown(ch: str) -> str:
    code = ord(ch)
    if ch == "\r":
        return "␍"
    if ch == "\t":
        return "\\t"
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def hidden(ch: str) -> bool:
    """Whether ``ch`` is a character :func:`visible` shows as text: a control character (newline
    excepted), a format or private-use or unassigned character, a separator other than U+0020, a
    filler. (Python's ``str.isprintable`` is false for exactly these categories.)"""
    return ch != "\n" and (not ch.isprintable() or ch in _FILLERS)


def _clean(text: str, tabs: bool) -> bool:
    """No hidden character in ``text`` but newlines (and tabs, with ``tabs``): checked in C."""
    if text.isascii() and text.isprintable():
        return True
    kept = text.replace("\n", "")
    if tabs:
        kept = kept.replace("\t", "")
    return kept.isprintable() and not any(filler in kept for filler in _FILLERS)


def map_hidden(text: str, replace: Callable[[str], str], *, tabs: bool = False) -> str:
    """``text`` with each hidden character (:func:`hidden`; with ``tabs``, tabs are kept)
    replaced by ``replace(ch)``. Checked in C first (``isprintable``), in pieces for a long
    text, and character by character only in the pieces, and the runs that are not printable
    ASCII, that hold a hidden character: fifty megabytes of ordinary text cost a few C passes."""
    if _clean(text, tabs):
        return text
    suspect = _SUSPECT_KEEPING_TABS if tabs else _SUSPECT

    def run(match: re.Match[str]) -> str:
        found = match.group()
        if _clean(found, tabs):
            return found
        return "".join(replace(ch) if hidden(ch) else ch for ch in found)

    if len(text) <= _PIECE:
        return suspect.sub(run, text)
    pieces = (text[i : i + _PIECE] for i in range(0, len(text), _PIECE))
    return "".join(piece if _clean(piece, tabs) else suspect.sub(run, piece) for piece in pieces)


def visible(text: str, *, tabs: bool = False) -> str:
    """``text`` with every character that could hide or rewrite what is shown made visible (see
    the module). Printable text, newlines included, is unchanged; ``tabs=True`` keeps tabs too
    (a page of output, where a tab only moves on to the next column: the terminal writer)."""
    return map_hidden(text, _shown, tabs=tabs)


def numbered(text: str) -> str:
    """:func:`visible` ``text``; more than one line: each line numbered (``  1 │ …``), so a line
    pushed out of sight or a trailing line cannot pass for part of another."""
    shown = visible(text)
    lines = shown.split("\n")
    if len(lines) == 1:
        return shown
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} │ {line}" for n, line in enumerate(lines, 1))


def one_line(text: str) -> str:
    """:func:`visible` ``text`` on one line: a newline shows as ``⏎`` (a title, a folder, a path)."""
    return visible(text).replace("\n", "⏎")
