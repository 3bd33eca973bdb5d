"""Views that normalise text: a buffer rewritten the way a secret in it reads, scanned in its place.

What a secret looks like once the characters a tool, an editor or an attacker put around or
inside it are undone (``NORMALIZE``, one pattern of every rewrite):

* **continuations**: a backslash before a line break (a shell command cut over lines) is removed,
  so ``sk-proj-abc\\`` + newline + ``def...`` is one key again;
* **ignorables**: every default-ignorable code point of Unicode (zero-width spaces and joiners,
  U+2063 INVISIBLE SEPARATOR, variation selectors U+FE0F and U+E0100…, U+034F COMBINING GRAPHEME
  JOINER, tags, bidi controls, Hangul fillers, the soft hyphen: ``IGNORABLE``) and combining
  marks (``g̲h̲p̲_…``) are removed;
* **folding**: what NFKC makes ASCII (fullwidth ``ｓｋ－``, mathematical bold and monospace
  ``𝚐𝚑𝚙_``, circled ``Ⓐ``, superscripts, ligatures) becomes ASCII, and letters that look Latin
  (Cyrillic and Greek ``а``, ``ο``, hyphens ``‐``) become the Latin letter where they sit by one;
* **escaped slashes**: ``\\/`` (PHP's ``json_encode``, JavaScript) is ``/``, so
  ``https:\\/\\/hooks.slack.com\\/services\\/…`` is a webhook again.

The scanner rewrites the blocks where its gate finds a place ``NORMALIZE_AT`` describes
(``normalized``: in C, one ``str.translate``) and scans them again, as one buffer; ``Normalized``
maps a match back to the original bytes it covers, working a block out piece by piece (each
piece with the offset it came from) only when a match lies in it. Wrapped base64 whose lines
carry a prefix (``12:``, ``12→``, ``  12 |``, ``> ``, a diff's ``+``) needs no view: the
wrapped-block detection skips those prefixes between lines. **Dumps** (``xxd``, ``hexdump -C``,
``hexdump``, ``od -c``, ``od -t x1``, ``-b``, ``-x``, ``-t u1``), bare or behind a tool's line
prefix, are read back to the bytes they show (``decode_dumps``).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import Final

from ._engine import Joined
from ._lines import break_before
from ._lists import readings
from ._work import spend

__all__ = [
    "CONTINUATION",
    "DUMP_START",
    "IGNORABLE",
    "NORMALIZE",
    "NORMALIZE_AT",
    "NORMALIZE_GATE",
    "WINDOW",
    "Normalized",
    "decode_dumps",
    "normalized",
    "utf8_pattern",
]

WINDOW: Final = 192
"""Bytes kept each side of a rewritten spot: the longest secret a view needs to see whole."""


def utf8_pattern(ranges: Iterable[tuple[int, int]]) -> bytes:
    """A byte pattern (no lookaround: hyperscan reads it too) matching the UTF-8 encoding of any
    code point in ``ranges`` (inclusive): one sequence of byte classes per piece of a range whose
    encodings differ only in a run of their last bytes."""
    sequences = [seq for lo, hi in ranges for seq in _sequences(lo, hi)]
    return (
        b"(?:" + b"|".join(b"".join(_byte_range(a, b) for a, b in seq) for seq in sequences) + b")"
    )


def _sequences(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """``[lo, hi]`` as lists of byte ranges, each list the encodings of one piece of it."""
    for bound in (0x7F, 0x7FF, 0xFFFF):
        if lo <= bound < hi:
            return _sequences(lo, bound) + _sequences(bound + 1, hi)
    if hi < 0x80:
        return [[(lo, hi)]]
    for bits in (6, 12, 18):
        mask = (1 << bits) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask:
                return _sequences(lo, lo | mask) + _sequences((lo | mask) + 1, hi)
            if hi & mask != mask:
                return _sequences(lo, (hi & ~mask) - 1) + _sequences(hi & ~mask, hi)
    first, last = chr(lo).encode("utf-8", "surrogatepass"), chr(hi).encode("utf-8", "surrogatepass")
    return [list(zip(first, last, strict=True))]


def _byte_range(lo: int, hi: int) -> bytes:
    return b"\\x%02x" % lo if lo == hi else b"[\\x%02x-\\x%02x]" % (lo, hi)


DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15): characters
a renderer shows as nothing, so a key can carry them unseen."""
IGNORABLE: Final = utf8_pattern(DEFAULT_IGNORABLE)
_MARK_RANGES: Final = (
    (0x0300, 0x036F),
    (0x1AB0, 0x1AFF),
    (0x1DC0, 0x1DFF),
    (0x20D0, 0x20FF),
    (0xFE20, 0xFE2F),
)
_MARKS: Final = utf8_pattern(_MARK_RANGES)
"""Combining marks (diacritics, underline and strike-through overlays): a window is rewritten
where one follows or precedes a Latin letter or digit (``g̲h̲p̲_``, ``s̶k̶-``), and in it they are removed."""

# What folds to ASCII everywhere it stands (nothing else writes text with it): fullwidth forms,
# mathematical alphanumerics, enclosed and squared letters and digits, and the box-drawing
# characters tables are drawn with (``_box``: a table is read as its ASCII twin).
_BOX_RANGE: Final = (0x2500, 0x257F)
_FOLD_ALWAYS_RANGES: Final = (
    (0xFF01, 0xFF5E),
    (0x1D400, 0x1D7FF),
    (0x2460, 0x24FF),
    (0x1F100, 0x1F1FF),
    _BOX_RANGE,
)
_FOLD_ALWAYS: Final = utf8_pattern(_FOLD_ALWAYS_RANGES)
# ... and what folds only beside a Latin letter or digit (prose uses it alone): Cyrillic and Greek
# look-alikes, superscripts and subscripts, letter-like symbols, ligatures, small forms, hyphens
_FOLD_BESIDE_RANGES: Final = (
    (0x00AA, 0x00AA),
    (0x00B2, 0x00B3),
    (0x00B9, 0x00BA),
    (0x0391, 0x03C9),
    (0x0400, 0x045F),
    (0x1D2C, 0x1D6A),
    (0x2010, 0x2011),
    (0x2070, 0x209F),
    (0x2100, 0x214F),
    (0x2212, 0x2212),
    (0xFB00, 0xFB06),
    (0xFE50, 0xFE6B),
)
_FOLD_BESIDE: Final = utf8_pattern(_FOLD_BESIDE_RANGES)
_CONFUSABLE: Final = {
    "а": "a",
    "в": "b",
    "е": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "і": "i",
    "ј": "j",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "У": "Y",
    "Х": "X",
    "Ѕ": "S",
    "І": "I",
    "Ј": "J",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "ο": "o",
    "ν": "v",
    "ι": "i",
    "κ": "k",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "α": "a",
    "\u2010": "-",
    "\u2011": "-",
    "\u2212": "-",
}

CONTINUATION: Final = re.compile(rb"\\\r?\n|\\\\(?:\\r)?\\n")
"""A backslash-newline, raw or inside a JSON string (an escaped backslash, then ``\\n``)."""
_SLASH: Final = rb"\\+/"
_WORD: Final = rb"[A-Za-z0-9_\-]"
_BESIDE: Final = rb"(?:" + IGNORABLE + rb"|" + _MARKS + rb"|" + _FOLD_BESIDE + rb")"

NORMALIZE: Final = re.compile(
    rb"(?P<continuation>"
    + CONTINUATION.pattern
    + rb")|(?P<ignorable>"
    + IGNORABLE
    + rb")|(?P<mark>"
    + _MARKS
    + rb")|(?P<fold>"
    + _FOLD_ALWAYS
    + rb"|"
    + _FOLD_BESIDE
    + rb")|(?P<slash>"
    + _SLASH
    + rb")"
)
"""Every rewrite, inside a window: what each match becomes is ``_rewrite``'s."""
_LOOK_ALIKE: Final = utf8_pattern(((0x0391, 0x03C9), (0x0400, 0x045F)))
"""Greek and Cyrillic letters: a window is also rewritten where one starts a Latin word
(``рassword`` with a Cyrillic ``р``)."""
NORMALIZE_AT: Final = re.compile(
    CONTINUATION.pattern
    + rb"|"
    + _FOLD_ALWAYS
    + rb"|"
    + _SLASH
    + rb"|(?<=[A-Za-z0-9_\-])"
    + _BESIDE
    + rb"|"
    + _LOOK_ALIKE
    + rb"(?=[A-Za-z])"
)
"""Where a window is worth rewriting: a continuation, an escaped slash, what folds everywhere,
an ignorable, a mark or a look-alike after a Latin letter, a digit, ``_`` or ``-`` (an emoji's
variation selector or a Russian sentence is not a token; an ignorable before a token does not
cut it), and a Greek or Cyrillic letter before a Latin one."""
NORMALIZE_GATE: Final = (
    CONTINUATION.pattern
    + rb"|"
    + _FOLD_ALWAYS
    + rb"|"
    + _SLASH
    + rb"|"
    + _WORD
    + _BESIDE
    + rb"|"
    + _LOOK_ALIKE
    + rb"[A-Za-z]"
)
"""``NORMALIZE_AT`` without lookarounds (hyperscan has none): the same places, one byte wider."""


@functools.cache
def _table() -> dict[int, str | None]:
    """What ``str.translate`` makes of each character a window rewrites: ignorables and marks
    removed, look-alikes and what NFKC makes ASCII folded, the rest of the first ``_IDENTITY``
    characters kept (built once, about 8,000 entries)."""
    table: dict[int, str | None] = {}
    for lo, hi in (*DEFAULT_IGNORABLE, *_MARK_RANGES):
        table.update(dict.fromkeys(range(lo, hi + 1)))
    for lo, hi in (*_FOLD_ALWAYS_RANGES, *_FOLD_BESIDE_RANGES):
        for code in range(lo, hi + 1):
            char = chr(code)
            folded = _CONFUSABLE.get(char) or _box(char) or unicodedata.normalize("NFKC", char)
            if folded.isascii() and folded != char:
                table[code] = folded
    # every other character of one or two UTF-8 bytes maps to itself: ``str.translate`` takes a
    # character the table lacks as a failed lookup (an exception raised and cleared, for each
    # ASCII letter of a window that holds one character outside ASCII), which costs twice the rest
    for code in range(_IDENTITY):
        table.setdefault(code, chr(code))
    return table


def _box(char: str) -> str:
    """A box-drawing character as the ASCII a plain table is drawn with: a vertical line ``|``
    (``│``, ``┃``, ``║``: a column's separator), a horizontal one ``-`` (``─``, ``━``, ``═``: a
    ruler), a corner or a junction ``+``; another character: ``""``."""
    if not _BOX_RANGE[0] <= ord(char) <= _BOX_RANGE[1]:
        return ""
    name = unicodedata.name(char, "")
    if " AND " not in name and "VERTICAL" in name and "HORIZONTAL" not in name:
        return "|"
    if " AND " not in name and "HORIZONTAL" in name and "VERTICAL" not in name:
        return "-"
    return "+"


_IDENTITY: Final = 0x800
"""Characters below this one the table maps to themselves when it rewrites nothing of them."""


def _rewritten(window: bytes) -> bytes:
    """A window rewritten in C: continuations removed and slashes unescaped, then every character
    through the table (bytes that are not UTF-8 pass unchanged)."""
    if b"\\" in window:
        for continuation in (b"\\\\\\r\\n", b"\\\\\\n", b"\\\r\n", b"\\\n"):
            if continuation in window:
                window = window.replace(continuation, b"")
        while b"\\/" in window:
            window = window.replace(b"\\/", b"/")
    if len(window) <= REWRITE_CHUNK:
        return _translated(window)
    # in chunks cut before a character's first byte: a character is rewritten alone, so the result
    # is the same, and the text (up to 4 bytes a character) and its translation are held for one
    # chunk at a time, not for the whole window (memory stays near the input)
    out = bytearray()
    lo = 0
    while lo < len(window):
        hi = min(len(window), lo + REWRITE_CHUNK)
        while hi < len(window) and window[hi] & 0xC0 == 0x80:
            hi += 1
        out += _translated(window[lo:hi])
        lo = hi
    return bytes(out)


REWRITE_CHUNK: Final = 1 << 16
"""Bytes of a window rewritten at a time (``_rewritten``)."""


def _translated(text: bytes) -> bytes:
    """``text`` decoded, every character through the table, encoded: the table keeps ASCII, so
    stretches of ``ASCII_BLOCK``-byte blocks that are ASCII are kept as they are and only the
    others are translated (``str.translate`` looks up every character of a text that is not all
    ASCII, 30 ns each). A character cut by a block's end lies in two blocks that are not ASCII,
    in one stretch: stretches meet where characters do."""
    if text.isascii():
        return text
    table = _table()
    size = len(text)
    pieces: list[bytes] = []
    pending, ascii, lo = 0, False, 0  # the stretch not yet written out, and whether it is ASCII
    while lo < size:
        hi = min(size, lo + ASCII_BLOCK)
        block_ascii = text[lo:hi].isascii()
        if block_ascii != ascii:
            if lo > pending:
                pieces.append(_translated_piece(text[pending:lo], ascii, table))
            pending, ascii = lo, block_ascii
        lo = hi
    pieces.append(_translated_piece(text[pending:size], ascii, table))
    return b"".join(pieces)


def _translated_piece(piece: bytes, ascii: bool, table: dict[int, str | None]) -> bytes:
    if ascii:
        return piece
    return (
        piece.decode("utf-8", "surrogateescape").translate(table).encode("utf-8", "surrogateescape")
    )


ASCII_BLOCK: Final = 128
"""Bytes ``_translated`` tells ASCII from not at a time (on text with a look-alike or an
ignorable every few bytes and ASCII between, 128 to 256 rewrite fastest)."""


def _rewrite(m: re.Match[bytes]) -> tuple[bytes, str]:
    """What one ``NORMALIZE`` match becomes (the same as ``_rewritten``), and the rewrite's name."""
    kind = m.lastgroup or ""
    if kind == "slash":
        return b"/", "slash-escape"
    if kind == "continuation":
        return b"", "continuation"
    replacement = _table().get(ord(m.group().decode("utf-8")), m.group().decode("utf-8"))
    return (replacement or "").encode("utf-8"), "nfkc" if kind == "fold" else "zero-width"


class Normalized:
    """The windows of ``data`` that hold a place worth rewriting, rewritten and joined by ``gap``
    into ``buffer`` (in C); ``locate`` maps a span of it back to the original bytes it covers,
    working a window out piece by piece only when a match lies in it."""

    __slots__ = ("_data", "_pieces", "buffer", "starts", "windows")

    def __init__(self, data: bytes, windows: list[tuple[int, int]], gap: bytes) -> None:
        self._data = data
        self.windows = windows
        rewritten = [_rewritten(data[lo:hi]) for lo, hi in windows]
        self.starts = list(accumulate((len(w) + len(gap) for w in rewritten[:-1]), initial=0))
        self.buffer = gap.join(rewritten)
        self._pieces: dict[int, tuple[Joined, list[tuple[int, str]]] | None] = {}
        spend(2 * len(self.buffer))

    def locate(self, start: int, end: int) -> tuple[int, int, str]:
        """The original span of ``[start, end)`` of ``buffer`` and how it was written (its first
        rewrite's name); a span the pieces cannot place is its whole window."""
        k = bisect.bisect_right(self.starts, start) - 1
        lo, hi = self.windows[k]
        if k not in self._pieces:
            self._pieces[k] = self._pieces_of(lo, hi)
        found = self._pieces[k]
        if found is None:
            return lo, hi, "normalized"
        joined, rewrites = found
        base = self.starts[k]
        _, first = joined.locate(start - base)
        index, last = joined.locate(max(start, end - 1) - base)
        count = len(joined.origins)
        piece_end = joined.starts[index + 1] if index + 1 < count else len(joined.buffer)
        stop = (
            joined.origins[index + 1] if end - base == piece_end and index + 1 < count else last + 1
        )
        at = bisect.bisect_left(rewrites, (first, ""))
        label = rewrites[at][1] if at < len(rewrites) and rewrites[at][0] < stop else "normalized"
        return first, min(stop, hi), label

    def _pieces_of(self, lo: int, hi: int) -> tuple[Joined, list[tuple[int, str]]] | None:
        """The window ``[lo, hi)`` rewritten piece by piece (each piece with the offset it came
        from), or None when that differs from ``_rewritten`` (it never should)."""
        data = self._data
        pieces: list[bytes] = []
        origins: list[int] = []
        rewrites: list[tuple[int, str]] = []
        pos = lo
        for m in NORMALIZE.finditer(data, lo, hi):
            replacement, kind = _rewrite(m)
            if replacement == m.group():
                continue
            pieces.append(data[pos : m.start()])
            origins.append(pos)
            if replacement:
                pieces.append(replacement)
                origins.append(m.start())
            rewrites.append((m.start(), kind))
            pos = m.end()
        pieces.append(data[pos:hi])
        origins.append(pos)
        spend(hi - lo)
        joined = Joined(pieces, origins, b"")
        return (joined, rewrites) if joined.buffer == _rewritten(data[lo:hi]) else None


def normalized(data: bytes, gap: bytes, spans: list[tuple[int, int]]) -> Normalized:
    """``data``'s windows: the ``spans`` (blocks where the gate found a place worth rewriting,
    ``WINDOW`` bytes wider each side) on whole characters."""
    windows = []
    for lo, hi in spans:
        # a window may start or end inside a character: move to whole characters
        while lo > 0 and data[lo] & 0xC0 == 0x80:
            lo -= 1
        while hi < len(data) and data[hi] & 0xC0 == 0x80:
            hi += 1
        windows.append((lo, hi))
    return Normalized(data, windows, gap)


# --- dumps --------------------------------------------------------------------------------------

DUMP_MAX: Final = 1 << 16
"""Longest dump decoded, in bytes of its text."""
_XXD: Final = re.compile(
    rb"[0-9a-f]{8}: ((?:[0-9a-f]{2}){1,2}(?: (?:[0-9a-f]{2}){1,2}){0,7})(?: |$)"
)
_HEXDUMP: Final = re.compile(rb"[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2}){0,15}[0-9a-f]{2})(?: |$)")
_OD: Final = re.compile(rb"[0-7]{7}((?: {4}| {3}[^ ]| {2}\\[0abfnrtv]| [0-7]{3})*)$")
_OFFSET_ONLY: Final = re.compile(rb"[0-9a-f]{7,8}$")
_OD_ESCAPES: Final = {b"0": 0, b"a": 7, b"b": 8, b"f": 12, b"n": 10, b"r": 13, b"t": 9, b"v": 11}
_JSON_ESCAPE: Final = re.compile(rb'\\([nt"\\])')
_JSON_UNESCAPE: Final = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\"}
_JSON_REESCAPE: Final = re.compile(rb'[\n\t"]|\\(?!u[0-9a-fA-F]{4})')
"""What ``_JSON_ESCAPE`` undid, to measure a dump's span in the JSON (``\\u2192`` was left as it is)."""
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


_NUMBERS: Final = re.compile(rb"[0-9a-f]{7,8}((?: +[0-9a-fA-F]{2,6})+) *$")
"""A line of a dump of numbers: ``od -t x1``, ``-b``, ``-x``, ``-t u1``, ``hexdump``."""
_LINE_PREFIX: Final = re.compile(
    rb"[ \t]*[0-9]{1,9}(?:\xe2\x86\x92|\\u2192|\t|\\t|:|[ \t]+\|)[ \t]?|[ \t]*[+\->][ \t]?|[ \t]+"
)
"""What a tool puts before a dump's lines: a line number (``cat -n``, a file read back with
``12→`` or ``12:``), a diff's sign, a quote, indentation."""


_DUMPS: Final = (_XXD, _HEXDUMP, _OD, _NUMBERS)


def _parse_dump(text: bytes, prefixed: bool) -> tuple[list[bytes], int]:
    """The bytes a dump shows (more than one reading for a dump of numbers) and how much of
    ``text`` it spans (whole lines)."""
    out = bytearray()
    numbers: list[bytes] = []
    used = 0
    kind: re.Pattern[bytes] | None = None
    for line in text.split(b"\n"):
        line_end = used + len(line) + 1
        stripped = line.rstrip(b"\r")
        if prefixed:
            head = _LINE_PREFIX.match(stripped)
            stripped = stripped[head.end() :] if head is not None else stripped
        m = None
        for pattern in (kind,) if kind is not None else _DUMPS:
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
        elif kind is _NUMBERS:
            numbers += m.group(1).split()
        else:
            out += bytes.fromhex(m.group(1).replace(b" ", b"").decode("ascii"))
        used = line_end
    found = list(readings(numbers)) if numbers else [bytes(out)]
    return found, min(used, len(text))


DUMP_START: Final = b"0000000"
_DUMP_FIRST_LOOK: Final = 4096


def _dump_line_start(data: bytes, pos: int) -> int | None:
    """Where the line holding a dump's first offset starts, when what stands before the offset
    on it is a prefix a tool adds (``_LINE_PREFIX``) or nothing; else None."""
    lo = max(0, pos - 32)
    brk, width = break_before(data, lo, pos)
    start = max(
        brk + width if brk >= 0 else 0,
        data.rfind(b'"', lo, pos) + 1,
        data.rfind(b"\xff", lo, pos) + 1,
    )
    if start == 0 and lo > 0:
        return None
    return start if start == pos or _LINE_PREFIX.fullmatch(data, start, pos) else None


def decode_dumps(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of every dump that starts at offset zero (each reading of a dump of
    numbers), raw or in a JSON string, its lines bare or behind a tool's prefix."""
    pos = data.find(DUMP_START)
    while pos >= 0:
        end = pos + len(DUMP_START)
        start = _dump_line_start(data, pos)
        width = _DUMP_FIRST_LOOK
        while start is not None:
            # a window that grows while the dump fills it: a dump costs its size, not DUMP_MAX
            window = data[start : start + width]
            raw_break, escaped_break = window.find(b"\n"), window.find(b"\\n")
            escaped = escaped_break >= 0 and (raw_break < 0 or escaped_break < raw_break)
            if escaped:
                cut = re.search(rb'(?<!\\)"', window)
                window = window[: cut.start()] if cut else window
                text = _JSON_ESCAPE.sub(lambda m: _JSON_UNESCAPE[m.group(1)], window)
            else:
                text = window
            spend(len(window))
            found, used = _parse_dump(text, start < pos)
            if (
                used >= len(text) - 256
                and width < DUMP_MAX
                and start + width < len(data)
                and len(window) == width
            ):
                width *= 4
                continue
            span = (
                len(_JSON_REESCAPE.sub(lambda m: _JSON_REESCAPED[m.group()], text[:used]))
                if escaped
                else used
            )
            for decoded in found:
                if len(decoded) >= 8:
                    end = max(end, start + span)
                    yield start, start + span, decoded
            break
        pos = data.find(DUMP_START, max(end, pos + 1))
