"""Tables: a header's cells, whether they name a column, and the cells of a row.

``_reader`` reads a table whose header names a credential column (CSV, TSV, Markdown, aligned
columns) or whose rows are pairs (``Key  Value``); this module splits the lines (``cells``) and
judges the header (``table_header``). ``credential_name`` is the credential grammar's verdict on a
name, cached.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Final, NamedTuple

from ._names import FOREIGN_WORDS
from ._names import credential_name as _credential_name

__all__ = [
    "BLANK_ROW",
    "CELL_WORDS",
    "KEY_HEADERS",
    "KEY_WORD",
    "NAMED_WORDS",
    "ROW_END",
    "RULER",
    "TAB_RUN",
    "Header",
    "cells",
    "credential_name",
    "header",
    "header_cell",
    "last_cell_word",
    "named_cell",
    "named_word",
    "pairs_header",
    "pairs_key",
    "table_header",
    "table_separator",
]

HEADER_CELL: Final = re.compile(rb"[A-Za-z][A-Za-z0-9_.\- ]{0,39}")
DIGITS: Final = re.compile(rb"[0-9]")


def pairs_key(names: list[bytes]) -> int:
    """The column of a key/value table's names (its rows are pairs): the first column named as
    keys (``Key``, ``Variable_name``, ``option_name``, ``ConfigKey``, ``var``, ``path``, ``k``)
    right before one named as values (``Value``, ``variable_value``, ``ConfigValue``, ``v``);
    -1 when none is."""
    words = [_last_word(name) for name in names]
    for k in range(len(words) - 1):
        if words[k] in _KEY_CELLS and words[k + 1] in _VALUE_CELLS:
            return k
    return -1


def pairs_header(names: list[bytes]) -> bool:
    """``Key | Value`` (a key/value table: its rows are pairs, ``pairs_key``)."""
    return pairs_key(names) >= 0


_HEADER_WORD: Final = re.compile(rb"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def _last_word(name: bytes) -> bytes:
    """A column name's last word in lower case, less a plural's ``s`` (``ConfigKey``: ``key``)."""
    words = _HEADER_WORD.findall(name)
    return words[-1].lower().rstrip(b"s") if words else b""


def header_cell(cell: bytes) -> bool:
    """A column's name: a short name, not a value (a row of a key/value table is no header: a
    value mixes cases and digits)."""
    if HEADER_CELL.fullmatch(cell) is None:
        return False
    return len(DIGITS.findall(cell)) < 2 or cell.islower() or cell.isupper()


KEY_HEADERS: Final = frozenset(
    {
        b"key",
        b"name",
        b"field",
        b"property",
        b"setting",
        b"variable",
        b"parameter",
        b"option",
        b"attribute",
    }
)
_KEY_CELLS: Final = KEY_HEADERS | {b"k", b"var", b"path"}
_VALUE_CELLS: Final = frozenset({b"value", b"val", b"v"})
KEY_WORD: Final = re.compile(rb"key|name|field|propert|setting|variable|parameter|option|attribute")
"""In lower case, what the first cell of a key/value table's header holds (``KEY_HEADERS``)."""
RULER: Final = re.compile(rb"[|\-=+: \t]+")
_ALIGNED: Final = re.compile(rb"\S {2,}\S")
"""Two cells of aligned columns: two spaces or more between."""
_ALIGNED_CELL: Final = re.compile(rb"\S+(?: \S+)*")
_PIPED_CELL: Final = re.compile(rb"[^|]+")
_TABBED_CELL: Final = re.compile(rb"[^\t]+")
TAB_RUN: Final = b"\t\t"
"""The separator of columns padded with tabs (Go's tabwriter with a tab for padding, ``influx``):
a header holding two tabs in a row is padded, so a run of tabs is one separator, not empty cells
(the rows may be padded by fewer tabs than their header)."""


def table_separator(header: bytes) -> bytes | None:
    stripped = header.strip()
    if stripped.startswith(b"|") or stripped.count(b"|") >= 2 or b" | " in stripped:
        return b"|"
    if b"\t" in stripped:
        return TAB_RUN if TAB_RUN in stripped else b"\t"
    if b"," in stripped:
        return b","
    if _ALIGNED.search(stripped):
        return b"  "
    return None


def cells(row: bytes, sep: bytes) -> list[tuple[bytes, int, int]]:
    """The cells of ``row`` split at ``sep`` (``"  "``: two spaces or more; CSV cells may be
    quoted), each with its span in ``row``."""
    if sep == b"  ":
        return [(m.group(), m.start(), m.end()) for m in _ALIGNED_CELL.finditer(row)]
    if sep == b"|":
        return [
            (m.group(), m.start(), m.end())
            for m in _PIPED_CELL.finditer(row)
            if not m.group().isspace()
        ]
    if sep == TAB_RUN:
        return [(m.group(), m.start(), m.end()) for m in _TABBED_CELL.finditer(row)]
    if b'"' not in row:  # no quoted cell: split in C
        parts = row.split(sep)
        starts = accumulate(map((len(sep)).__add__, map(len, parts)), initial=0)
        return [
            (part, start, start + len(part)) for part, start in zip(parts, starts, strict=False)
        ]
    out: list[tuple[bytes, int, int]] = []
    pos = 0
    n = len(row)
    while pos <= n:
        if pos < n and row[pos] == 0x22:
            close = row.find(b'"', pos + 1)
            while close >= 0 and row.startswith(b'""', close):
                close = row.find(b'"', close + 2)
            if close >= 0:
                out.append((row[pos : close + 1], pos, close + 1))
                nxt = row.find(sep, close + 1)
                pos = n + 1 if nxt < 0 else nxt + 1
                continue
        nxt = row.find(sep, pos)
        end = n if nxt < 0 else nxt
        out.append((row[pos:end], pos, end))
        pos = end + 1 if nxt >= 0 else n + 1
    return out


NAMED_WORDS: Final = (
    b"pass",
    b"pw",
    b"secret",
    b"token",
    b"cred",
    b"auth",
    b"bearer",
    b"cookie",
    b"psk",
    *FOREIGN_WORDS,
)
CELL_WORDS: Final = (*NAMED_WORDS, b"key")
"""One of these is in every name ``credential_name`` accepts, in lower case (a name's words,
``name_is_credential``: a table's cell can hold a space, ``API Key``)."""
_CELL_WORD: Final = re.compile(b"|".join(CELL_WORDS))
BLANK_ROW: Final = rb"(?:[ \t]*[0-9]{1,7}:)?\+?[^\S\n]*$"
"""A line that is blank once peeled (``Lines``): blank, or a ``12:`` row or a ``+`` line holding
nothing (a subset: a blank line it does not match only makes the table read further)."""
ROW_END: Final = {
    sep: re.compile(rb"(?m)\n(?:" + BLANK_ROW + rb"|" + other + rb"[^|\-=+:\s][^\S\n]*$)")
    for sep, other in (
        (b"  ", rb"[^\S\n]*(?:\S+ )*\S*"),
        (b"|", rb"[^|\n]*"),
        (b",", rb"[^,\n]*"),
        (b"\t", rb"[^\t\n]*"),
        (TAB_RUN, rb"[^\t\n]*"),
    )
}
"""Per separator, a line that certainly ends a table (``_Reader.table``): blank once peeled, or
one cell at most (no separator; aligned columns: single spaces only) and no ruler (its last
character is none of a ruler's). Every suffix of such a line (a row is the line less its wrapper)
is one too. Each begins with the line break before the line (a search for it skips to each break
at C speed)."""


def last_cell_word(t: bytes, lowered: bytes, sep: bytes, start: int, stop: int) -> int:
    """Where the last of ``CELL_WORDS`` begins in the rows of a table split at ``sep`` that begin
    at ``start`` (a line's start, after a line break; ``lowered``: ``t`` in lower case), before
    ``stop`` and before a line that certainly ends the table (``ROW_END``); -1 when none does: no
    row after it names a credential."""
    end = ROW_END[sep].search(t, start - 1, stop)
    stop = end.start() + 1 if end is not None else stop
    if _CELL_WORD.search(lowered, start, stop) is None:
        return -1  # (one search: most tables name no credential)
    return max(lowered.rfind(word, start, stop) for word in CELL_WORDS)


def named_cell(lowered: bytes) -> bool:
    """``lowered`` (a cell in lower case) holds one of ``CELL_WORDS``: a name ``credential_name``
    accepts holds one."""
    return _CELL_WORD.search(lowered) is not None


_NAMED_WORD: Final = re.compile(b"|".join(NAMED_WORDS))
_QUALIFIED_KEY: Final = re.compile(rb"[^\s|,\"'`]key")


def named_word(lowered: bytes) -> bool:
    """``lowered`` (a line in lower case) holds what every name ``credential_name`` accepts holds,
    when the name holds no space, bar, comma or quote: one of ``NAMED_WORDS``, or ``key`` after
    a qualifier in the same name (``name_is_credential``)."""
    return _NAMED_WORD.search(lowered) is not None or (
        b"key" in lowered and _QUALIFIED_KEY.search(lowered) is not None
    )


def credential_name(name: bytes) -> bool:
    """``name`` (quotes and sigils stripped) names a credential (``_names.credential_name``, one
    cache)."""
    return _credential_name(name.strip(b"\"'`$@"))


class Header(NamedTuple):
    """A table's header: its separator, its cells' names, whether its rows are pairs (``Key |
    Value``) and the columns a credential names."""

    sep: bytes
    names: list[bytes]
    pairs: bool
    columns: list[int]
    key: int
    """The column of the rows' names when they are pairs (``pairs_key``), else -1."""


_HEADERS: dict[bytes, Header] = {}
"""``header`` by the line's text (a table prints its header again and again)."""
_NOT_HEADERS: set[bytes] = set()
"""Lines that are no header, kept apart: the rows of a table's values, each printed once, would
otherwise push its headers out of ``_HEADERS``."""
_CACHED: Final = 4096


def header(text: bytes) -> Header | None:
    """``text`` (a line, peeled) as a table's header: two cells or more, each a short name, one of
    them a credential's, or ``Key | Value``; None when it is none (cached)."""
    found = _HEADERS.get(text)
    if found is not None or text in _NOT_HEADERS:
        return found
    sep = table_separator(text)
    if sep is not None:
        names = [c.strip(b" \"'") for c, _, _ in cells(text, sep)]
        if len(names) >= 2 and all(map(header_cell, names)):
            key = pairs_key(names)
            columns = [k for k, n in enumerate(names) if credential_name(n)]
            if key >= 0 or columns:
                found = Header(sep, names, key >= 0, columns, key)
    if found is None:
        if len(_NOT_HEADERS) > _CACHED:
            _NOT_HEADERS.clear()
        _NOT_HEADERS.add(text)
    else:
        if len(_HEADERS) > _CACHED:
            _HEADERS.clear()
        _HEADERS[text] = found
    return found


def table_header(text: bytes) -> bool:
    """``text`` (a line, peeled) is a table's header (``header``)."""
    return header(text) is not None
