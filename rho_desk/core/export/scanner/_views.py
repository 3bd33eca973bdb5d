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

The scanner rewrites the windows around each place ``NORMALIZE_AT`` finds (``normalized``) and
scans them again, as one buffer. A view is pieces of the original (and replacements) with the
offset each came from, so a match in the view maps back to the original bytes it covers
(``_engine.Joined``). Wrapped base64 whose lines carry a prefix (``12:``, ``12→``, ``  12 |``,
``> ``, a diff's ``+``) needs no view: the wrapped-block detection skips those prefixes between
lines. **Dumps** (``xxd``, ``hexdump -C``, ``od -c``) are read back to the bytes they show
(``decode_dumps``).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

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
    return b"(?:" + b"|".join(b"".join(_byte_range(a, b) for a, b in seq) for seq in sequences) + b")"


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
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15): characters
a renderer shows as nothing, so a key can carry them unseen."""
IGNORABLE: Final = utf8_pattern(DEFAULT_IGNORABLE)
_MARKS: Final = utf8_pattern(((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F)))
"""Combining marks (diacritics, underline and strike-through overlays): a window is rewritten
where one follows or precedes a Latin letter or digit (``g̲h̲p̲_``, ``s̶k̶-``), and in it they are removed."""

# What folds to ASCII everywhere it stands (nothing else writes text with it): fullwidth forms,
# mathematical alphanumerics, enclosed and squared letters and digits.
_FOLD_ALWAYS: Final = utf8_pattern(((0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x2460, 0x24FF), (0x1F100, 0x1F1FF)))
# ... and what folds only beside a Latin letter or digit (prose uses it alone): Cyrillic and Greek
# look-alikes, superscripts and subscripts, letter-like symbols, ligatures, small forms, hyphens
_FOLD_BESIDE: Final = utf8_pattern((
    (0x00AA, 0x00AA), (0x00B2, 0x00B3), (0x00B9, 0x00BA), (0x0391, 0x03C9), (0x0400, 0x045F),
    (0x1D2C, 0x1D6A), (0x2010, 0x2011), (0x2070, 0x209F), (0x2100, 0x214F), (0x2212, 0x2212),
    (0xFB00, 0xFB06), (0xFE50, 0xFE6B),
))
_CONFUSABLE: Final = {
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "А": "A", "В": "B", "Е": "E",
    "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X",
    "Ѕ": "S", "І": "I", "Ј": "J", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I",
    "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o",
    "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "α": "a",
    "\u2010": "-", "\u2011": "-", "\u2212": "-",
}

CONTINUATION: Final = re.compile(rb"\\\r?\n|\\\\(?:\\r)?\\n")
"""A backslash-newline, raw or inside a JSON string (an escaped backslash, then ``\\n``)."""
_SLASH: Final = rb"\\{1,7}/"
_WORD: Final = rb"[A-Za-z0-9]"
_BESIDE: Final = rb"(?:" + IGNORABLE + rb"|" + _MARKS + rb"|" + _FOLD_BESIDE + rb")"

NORMALIZE: Final = re.compile(
    rb"(?P<continuation>" + CONTINUATION.pattern + rb")|(?P<ignorable>" + IGNORABLE + rb")|(?P<mark>" + _MARKS
    + rb")|(?P<fold>" + _FOLD_ALWAYS + rb"|" + _FOLD_BESIDE + rb")|(?P<slash>" + _SLASH + rb")"
)
"""Every rewrite, inside a window: what each match becomes is ``_rewrite``'s."""
NORMALIZE_AT: Final = re.compile(
    CONTINUATION.pattern + rb"|" + _FOLD_ALWAYS + rb"|" + _SLASH
    + rb"|(?<=[A-Za-z0-9])" + _BESIDE + rb"|" + _BESIDE + rb"(?=[A-Za-z0-9])"
)
"""Where a window is worth rewriting: a continuation, an escaped slash, what folds everywhere,
and an ignorable, a mark or a look-alike beside a Latin letter or digit (an emoji's variation
selector or a Russian sentence is not a token)."""
NORMALIZE_GATE: Final = (
    CONTINUATION.pattern + rb"|" + _FOLD_ALWAYS + rb"|" + _SLASH + rb"|" + _WORD + _BESIDE + rb"|" + _BESIDE + _WORD
)
"""``NORMALIZE_AT`` without lookarounds (hyperscan has none): the same places, one byte wider."""


def _fold(char: bytes) -> bytes:
    text = char.decode("utf-8")
    folded = _CONFUSABLE.get(text) or unicodedata.normalize("NFKC", text)
    return folded.encode("utf-8") if folded.isascii() else char


def _rewrite(m: re.Match[bytes]) -> tuple[bytes, str]:
    kind = m.lastgroup or ""
    if kind == "fold":
        return _fold(m.group()), "nfkc"
    if kind == "slash":
        return b"/", "slash-escape"
    return b"", "continuation" if kind == "continuation" else "zero-width"


class Normalized(NamedTuple):
    """The windows around every place worth rewriting, rewritten, as pieces: ``pieces[i]`` came
    from ``origins[i]``; windows are separated by a piece of ``gap`` (no match crosses it); and
    ``rewrites`` (by where they stand) says which rewrite was made at which offset."""

    pieces: list[bytes]
    origins: list[int]
    rewrites: list[tuple[int, str]]

    def label(self, start: int, end: int) -> str:
        """How the span ``[start, end)`` of the original was written: its first rewrite's name."""
        k = bisect.bisect_left(self.rewrites, (start, ""))
        return self.rewrites[k][1] if k < len(self.rewrites) and self.rewrites[k][0] < end else "normalized"


def normalized(data: bytes, gap: bytes) -> Normalized:
    """``data``'s windows (``WINDOW`` bytes around each place ``NORMALIZE_AT`` finds, merged)
    with every ``NORMALIZE`` rewrite made."""
    spend(len(data))
    spans: list[list[int]] = []
    for m in NORMALIZE_AT.finditer(data):
        lo, hi = max(0, m.start() - WINDOW), min(len(data), m.end() + WINDOW)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    pieces: list[bytes] = []
    origins: list[int] = []
    rewrites: list[tuple[int, str]] = []
    for lo, hi in spans:
        # a window may start or end inside a character: move to whole characters
        while lo > 0 and data[lo] & 0xC0 == 0x80:
            lo -= 1
        while hi < len(data) and data[hi] & 0xC0 == 0x80:
            hi += 1
        spend(hi - lo)
        if pieces:
            pieces.append(gap)
            origins.append(lo)
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
    return Normalized(pieces, origins, rewrites)


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
