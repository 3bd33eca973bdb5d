"""Views that normalise text: a buffer rewritten the way a secret in it reads, scanned in its place.

What a secret looks like once the line structure or the look-alike characters a tool printed
around it are undone:

* **continuations**: a backslash before a line break (a shell command cut over lines) is removed,
  so ``sk-proj-abc\\`` + newline + ``def...`` is one key again;
* **folding**: fullwidth forms (``ｓｋ－ｐｒｏｊ``) become ASCII (NFKC), and Cyrillic letters that
  look Latin (``pаssword`` with a Cyrillic ``а``) become the Latin letter when they sit in a word
  with Latin letters;
* **zero-width** characters (``ZERO_WIDTH``): the scanner removes them near each one and scans
  that window again;
* **dumps**: ``xxd``, ``hexdump -C`` and ``od -c`` output decoded back to the bytes it shows.

A view is pieces of the original (and replacements) with the offset each came from, so a match in
the view maps back to the original bytes it covers (``_engine.Joined``). Wrapped base64 whose
lines carry a prefix (``12:``, ``12→``, ``  12 |``, ``> ``, a diff's ``+``) needs no view: the
wrapped-block detection skips those prefixes between lines.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final

from ._work import spend

__all__ = [
    "CONTINUATION",
    "DUMP_START",
    "FOLD_TRIGGER",
    "WINDOW",
    "ZERO_WIDTH",
    "ZERO_WIDTH_WINDOW",
    "decode_dumps",
    "fold_pieces",
    "removal_pieces",
    "windows",
]

WINDOW: Final = 192
"""Bytes kept each side of a rewritten spot: the longest secret a view needs to see whole."""

# zero-width and invisible characters a key can hide behind (U+200B-U+200D, U+2060, U+FEFF, U+00AD)
ZERO_WIDTH = re.compile(rb"\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xc2\xad")
ZERO_WIDTH_WINDOW: Final = 192

CONTINUATION: Final = re.compile(rb"\\\r?\n|\\\\(?:\\r)?\\n")
"""A backslash-newline, raw or inside a JSON string (an escaped backslash, then ``\\n``)."""

# fullwidth ASCII (U+FF01-U+FF5E), and Cyrillic letters next to a Latin letter
# (every alternative starts with a lead byte that ASCII and most text never hold: one fast search)
FOLD_TRIGGER: Final = re.compile(
    rb"\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e]"
    rb"|(?:\xd0[\x90-\xbf]|\xd1[\x80-\x9f])(?:(?<=[A-Za-z]..)|(?=[A-Za-z]))"
)
_FOLDABLE: Final = re.compile(rb"\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e]|\xd0[\x90-\xbf]|\xd1[\x80-\x9f]")
_CONFUSABLE: Final = {
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "А": "A", "В": "B", "Е": "E",
    "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X",
    "Ѕ": "S", "І": "I", "Ј": "J",
}


def windows(data: bytes, trigger: re.Pattern[bytes]) -> list[tuple[int, int]]:
    """Merged ``[lo, hi)`` windows of ``WINDOW`` bytes around each match of ``trigger``."""
    out: list[list[int]] = []
    spend(len(data))
    for m in trigger.finditer(data):
        lo, hi = max(0, m.start() - WINDOW), min(len(data), m.end() + WINDOW)
        if out and lo <= out[-1][1]:
            out[-1][1] = hi
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def removal_pieces(data: bytes, lo: int, hi: int, pattern: re.Pattern[bytes]) -> tuple[list[bytes], list[int]]:
    """The window without the matches of ``pattern``: pieces and where each starts in ``data``."""
    pieces: list[bytes] = []
    origins: list[int] = []
    pos = lo
    for m in pattern.finditer(data, lo, hi):
        pieces.append(data[pos : m.start()])
        origins.append(pos)
        pos = m.end()
    pieces.append(data[pos:hi])
    origins.append(pos)
    return pieces, origins


def _fold(char: bytes) -> bytes:
    text = char.decode("utf-8")
    folded = _CONFUSABLE.get(text) or unicodedata.normalize("NFKC", text)
    return folded.encode("utf-8") if folded.isascii() else char


def fold_pieces(data: bytes, lo: int, hi: int) -> tuple[list[bytes], list[int]]:
    """The window with fullwidth and look-alike letters folded to ASCII, piece by piece."""
    # a window may start or end inside a character: move to whole characters
    while lo > 0 and data[lo] & 0xC0 == 0x80:
        lo -= 1
    while hi < len(data) and data[hi] & 0xC0 == 0x80:
        hi += 1
    pieces: list[bytes] = []
    origins: list[int] = []
    pos = lo
    for m in _FOLDABLE.finditer(data, lo, hi):
        pieces.append(data[pos : m.start()])
        origins.append(pos)
        pieces.append(_fold(m.group()))
        origins.append(m.start())
        pos = m.end()
    pieces.append(data[pos:hi])
    origins.append(pos)
    return pieces, origins


# --- dumps --------------------------------------------------------------------------------------

DUMP_MAX: Final = 1 << 16
"""Longest dump decoded, in bytes of its text."""
_XXD: Final = re.compile(rb"[0-9a-f]{8}: ((?:[0-9a-f]{2}){1,2}(?: (?:[0-9a-f]{2}){1,2}){0,7})(?: |$)")
_HEXDUMP: Final = re.compile(rb"[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2}){0,15}[0-9a-f]{2})(?: |$)")
_OD: Final = re.compile(rb"[0-7]{7}((?: {4}| {3}[^ ]| {2}\\[0abfnrtv]| [0-7]{3})*)$")
_OFFSET_ONLY: Final = re.compile(rb"[0-9a-f]{7,8}$")
_OD_ESCAPES: Final = {b"0": 0, b"a": 7, b"b": 8, b"f": 12, b"n": 10, b"r": 13, b"t": 9, b"v": 11}
_JSON_ESCAPE: Final = re.compile(rb'\\([nt"\\])')
_JSON_UNESCAPE: Final = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\"}
_JSON_REESCAPE: Final = re.compile(rb'[\n\t"\\]')
_JSON_REESCAPED: Final = {b"\n": b"\\n", b"\t": b"\\t", b'"': b'\\"', b"\\": b"\\\\"}


def _od_cells(cells: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(cells), 4):
        cell = cells[i : i + 4].strip(b" ")
        if not cell:
            out.append(0x20)
        elif cell.startswith(b"\\"):
            out.append(_OD_ESCAPES[cell[1:2]])
        elif len(cell) == 3:
            out.append(int(cell, 8))
        else:
            out += cell
    return bytes(out)


def _parse_dump(text: bytes) -> tuple[bytes, int]:
    """The bytes a dump shows and how much of ``text`` it spans (whole lines)."""
    out = bytearray()
    used = 0
    kind: re.Pattern[bytes] | None = None
    for line in text.split(b"\n"):
        line_end = used + len(line) + 1
        stripped = line.rstrip(b"\r")
        m = None
        for pattern in (kind,) if kind is not None else (_XXD, _HEXDUMP, _OD):
            m = pattern.match(stripped)
            if m is not None:
                kind = pattern
                break
        if m is None:
            if kind is not None and _OFFSET_ONLY.match(stripped):
                used = line_end  # the closing line of hexdump and od: the length
            break
        if kind is _OD:
            out += _od_cells(m.group(1))
        else:
            out += bytes.fromhex(m.group(1).replace(b" ", b"").decode("ascii"))
        used = line_end
    return bytes(out), min(used, len(text))


DUMP_START: Final = b"0000000"


def decode_dumps(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of every dump that starts at offset zero, raw or in a JSON string."""
    pos = data.find(DUMP_START)
    while pos >= 0:
        end = pos + len(DUMP_START)
        line_start = pos == 0 or data[pos - 1] in b"\n\"' \t\xff\x00" or data.endswith(b"\\n", 0, pos)
        if line_start:
            window = data[pos : pos + DUMP_MAX]
            raw_break, escaped_break = window.find(b"\n"), window.find(b"\\n")
            escaped = escaped_break >= 0 and (raw_break < 0 or escaped_break < raw_break)
            if escaped:
                cut = re.search(rb'(?<!\\)"', window)
                window = window[: cut.start()] if cut else window
                text = _JSON_ESCAPE.sub(lambda m: _JSON_UNESCAPE[m.group(1)], window)
            else:
                text = window
            spend(len(window))
            decoded, used = _parse_dump(text)
            if len(decoded) >= 8:
                span = len(_JSON_REESCAPE.sub(lambda m: _JSON_REESCAPED[m.group()], text[:used])) if escaped else used
                end = pos + span
                yield pos, end, decoded
        pos = data.find(DUMP_START, max(end, pos + 1))
