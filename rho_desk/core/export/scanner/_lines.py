"""The lines of a window of text, each with its wrapper peeled: what the structure readers read.

Tool output wraps the lines it shows: ``read_file``'s ``12:`` and ``12→`` rows, ``cat -n``'s
``    12\t``, grep's ``path:12:`` and ``path-12-``, hashline rows (``12#ab:``), a diff's ``+``,
``-`` and `` `` markers, and the head of a JSON string whose text goes on past its line.
``Lines`` finds where every line begins at once and peels a line's wrapper when a reader first
asks for it, so a line's offsets stay those of the text and the wrapper stays in the output;
``peel`` does the same for one line alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Final, overload

from ._work import spend

__all__ = ["JSON_OPEN", "JSON_ROW", "ROW", "Line", "Lines", "break_before", "peel", "text_lines"]

ROW: Final = re.compile(
    rb"[ \t]*[0-9]{1,7}(?::|\xe2\x86\x92|\\u2192|[ \t]*\|[ \t]?)| {1,6}[0-9]{1,7}\t|[^\s:\x00\xff]*[./][^\s:\x00\xff]*:[0-9]{1,7}[:\-]|[ \t]*[0-9]{1,7}#[0-9A-Za-z]{2,8}[:|]"
)
"""A row wrapper: ``12:`` and ``12→`` (read_file), ``  12 | `` , ``    12\t`` (``cat -n``), ``path/f.yaml:12:`` and
``path-12-`` (grep), ``12#ab:`` (hashline rows)."""
_DIFF_CONTEXT: Final = re.compile(
    rb"(?m)^(?:@@ |\+\+\+ |--- |\[[^\]\n]{1,200}#[0-9A-Fa-f]{4}\][ \t]*$|PUT [<>0-9$])"
)
"""What makes ``+``, ``-`` and `` `` at the start of a line a diff's (or a hashline edit's) marker."""


JSON_OPEN: Final = re.compile(rb'[ \t]*[\[{][^\n]*?"[ \t]*:[ \t]*"(?=[^"\n]*$)')
"""A JSON document opening on this line, up to the member whose string value goes on past the
line (JSON in a tool's output, its text's line breaks escaped): the text is read from after that
quote."""
_JSON_FIRST: Final = frozenset((b" ", b"\t", b"[", b"{"))
"""What a line ``JSON_OPEN`` matches begins with."""
_BLANKS: Final = re.compile(rb"[ \t]*")
JSON_ROW: Final = re.compile(rb'[ \t]*[\[{]?[^\n]{0,200}?"[ \t]*:[ \t]*"(?=' + ROW.pattern + rb")")
"""A JSON member on this line (a document opening or a line of a pretty one) whose string value
starts with a row's wrapper."""


@dataclass(slots=True)
class Line:
    begin: int
    """Where the line starts (its wrapper included)."""
    start: int
    """Where its content starts (after the wrapper)."""
    end: int
    indent: int
    """Columns of leading whitespace of the content."""

    def text(self, t: bytes) -> bytes:
        return t[self.start : self.end]


class Lines(Sequence[Line]):
    """The lines of ``t``, each with its wrapper peeled (a row number, a grep path, a diff's or
    hashline edit's marker in a diff, the head of a JSON string that goes on past the line).

    Where each line begins is found for every line at once, in C (``begins``); a line's wrapper
    is peeled when a reader first asks for the line (the readers look at a few lines around each
    trigger line, not at every line of a window)."""

    __slots__ = ("_diff", "_lines", "_lower", "_t", "begins", "pairs_headers")

    def __init__(self, t: bytes) -> None:
        self._t = t
        self.begins: list[int] = [0, *accumulate(map((1).__add__, map(len, t.split(b"\n")[:-1])))]
        """Where each line begins (its wrapper included), in order."""
        self._lines: list[Line | None] = [None] * len(self.begins)
        self._diff: bool | None = None
        self._lower: bytes | None = None
        self.pairs_headers: dict[int, bool] = {}
        """Which lines are a key/value table's header (``_Reader.pairs_header``), as asked."""
        spend(len(t))

    @property
    def lowered(self) -> bytes:
        """The text in lower case (ASCII: the same offsets), made once: a word looked for in it
        with ``bytes.find`` costs far less than a caseless ``re`` search."""
        if self._lower is None:
            self._lower = self._t.lower()
        return self._lower

    def __len__(self) -> int:
        return len(self.begins)

    @overload
    def __getitem__(self, k: int) -> Line: ...

    @overload
    def __getitem__(self, k: slice) -> list[Line]: ...

    def __getitem__(self, k: int | slice) -> Line | list[Line]:
        if isinstance(k, slice):
            return [self[n] for n in range(*k.indices(len(self.begins)))]
        line = self._lines[k]
        if line is None:
            line = self._lines[k] = self._peeled(k if k >= 0 else k + len(self.begins))
        return line

    def _peeled(self, k: int) -> Line:
        t = self._t
        pos = self.begins[k]
        end = self.begins[k + 1] - 1 if k + 1 < len(self.begins) else len(t)
        stop = end - 1 if end > pos and t[end - 1] == 0x0D else end
        start = pos
        opened = JSON_OPEN.match(t, start, stop) if t[start : start + 1] in _JSON_FIRST else None
        if opened is None and t.find(b'":', start, min(stop, start + 240)) >= 0:
            opened = JSON_ROW.match(t, start, stop)
        if opened is not None:
            start = opened.end()  # {"body": "text…: the text of a string that goes on, or its rows
        row = ROW.match(t, start, stop)
        if row is not None:
            start = row.end()
        if (
            start < stop
            and t[start] in b"+- "
            and not t.startswith((b"+++", b"---"), start)
            and (t[start] == 0x2B or self._in_diff())
        ):
            start += 1
        content = _BLANKS.match(t, start, stop).end()  # type: ignore[union-attr]
        return Line(pos, start, stop, content - start)

    def _in_diff(self) -> bool:
        """``t`` holds a diff's (or a hashline edit's) marks: ``-`` and `` `` at a line's start
        are its markers."""
        if self._diff is None:
            self._diff = _DIFF_CONTEXT.search(self._t) is not None
        return self._diff


def text_lines(t: bytes) -> Lines:
    """The lines of ``t`` (``Lines``)."""
    return Lines(t)


def peel(text: bytes) -> bytes:
    """One line with its wrapper peeled, as ``text_lines`` peels it (a diff's marker always)."""
    opened = JSON_OPEN.match(text)
    if opened is not None:
        text = text[opened.end() :]
    row = ROW.match(text)
    if row is not None:
        text = text[row.end() :]
    if text[:1] in (b"+", b"-", b">"):
        text = text[1:]
    return text


def break_before(data: bytes, floor: int, pos: int) -> tuple[int, int]:
    """Where the last line break before ``pos`` begins, searched from ``floor``, and its width: a
    raw newline (1) or a JSON-escaped ``\\n`` (2); ``(-1, 0)`` when there is none. The two cannot
    overlap, so the escaped one is looked for only after the last raw one."""
    raw = data.rfind(b"\n", floor, pos)
    escaped = data.rfind(b"\\n", max(floor, raw), pos)
    return (raw, 1) if raw > escaped else (escaped, 2) if escaped >= 0 else (-1, 0)
