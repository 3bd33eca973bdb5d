"""The window a structure reader reads, its escapes decoded, and the way back to the buffer.

The bytes around a trigger line are taken (``region``: the JSON string the line lies in, or the
text around), their JSON escapes decoded (for JSON inside JSON too, up to ``VIEW_LEVELS``), and a
hit in the decoded text is mapped back to the bytes it came from (``View.raw``), so that it is
reported where it is in the buffer."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

from ._lines import break_before
from ._work import spend

__all__ = ["JSON_LINE", "VIEW_LEVELS", "WINDOW_FORWARD", "WINDOW_REACH", "View", "region", "view"]

_BREAKS: Final = re.compile(rb"\r|\n|\x00|\xff|\\[nr]")
"""A line break, raw or JSON-escaped, or a separator."""

VIEW_LEVELS: Final = 3
"""JSON string escapes decoded at most this many times (text in a JSON string in a JSON string in
an export)."""
WINDOW_BACK: Final = 4096
WINDOW_FORWARD: Final = 16384
"""How far from a trigger line the window reaches, in bytes of the buffer."""
WINDOW_REACH: Final = 3 * WINDOW_FORWARD
"""A window also reaches ``WINDOW_FORWARD`` past the trigger lines that follow its own within this
many bytes (it serves them too: text dense with trigger lines is decoded and split about once,
not once every ``WINDOW_FORWARD // 2`` bytes)."""
_ESCAPE: Final = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|([\\\"/bfnrt]))")
_SIMPLE: Final = {
    ord("\\"): b"\\",
    ord('"'): b'"',
    ord("/"): b"/",
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
}


class _Map:
    """Offsets of a decoded text back to the text it was decoded from. Escape ``k`` spans
    ``source[src[k]:src_end[k]]`` and decoded to ``text[dec[k]:dec_end[k]]``; every other byte
    was copied. A byte decoded from an escape maps to the escape's first byte, and the end of a
    decoded escape to the escape's end."""

    __slots__ = ("_dec", "_dec_end", "_src", "_src_end")

    def __init__(
        self, src: list[int], src_end: list[int], dec: list[int], dec_end: list[int]
    ) -> None:
        self._src = src
        self._src_end = src_end
        self._dec = dec
        self._dec_end = dec_end

    def start(self, i: int) -> int:
        """Where text byte ``i`` came from in the source."""
        k = bisect.bisect_right(self._dec, i) - 1
        if k < 0:
            return i
        if i < self._dec_end[k]:
            return self._src[k]
        return self._src_end[k] + i - self._dec_end[k]

    def end(self, i: int) -> int:
        """Where the text ending at ``i`` (exclusive) ends in the source."""
        k = bisect.bisect_right(self._dec, i - 1) - 1
        if k < 0:
            return i
        if i - 1 < self._dec_end[k]:
            return self._src_end[k]
        return self._src_end[k] + i - self._dec_end[k]

    def back(self, src: int) -> int:
        """The text offset of source offset ``src`` (the first byte decoded from it or after it)."""
        if src < 0:
            return 0
        k = bisect.bisect_right(self._src, src) - 1
        if k < 0:
            return src
        if src < self._src_end[k]:
            return self._dec[k] if src == self._src[k] else self._dec_end[k]
        return self._dec_end[k] + src - self._src_end[k]


_SIMPLE_ESCAPES: Final = {b"\\" + bytes((k,)): v for k, v in _SIMPLE.items()}


_WORTH_DECODING: Final = re.compile(rb'\\[nrt"]')
"""An escape that makes a decoded view worth having: a line break, a tab or a quote (one search
of the text for a backslash and the byte after it, not one search for each escape)."""


_NOT_AN_ESCAPE: Final = re.compile(rb'(?:^|[^\\])(?:\\\\)*\\[^\\"/bfnrtu]')
"""A backslash no JSON string holds unpaired: before a byte that escapes nothing (``\\p``)."""
_WORD: Final = re.compile(rb"[^\s]+")


def _kept(text: bytes) -> list[tuple[int, int]]:
    """The words of ``text`` holding a backslash that escapes nothing (``\\\\nas01\\projects``, a
    UNC path; ``C:\\Users\\ana\\new``): text a decoded level gave, not a JSON string's, so
    their escapes are not decoded again (a share ``\\\\nas01`` is no line break and ``as01``)."""
    out: list[tuple[int, int]] = []
    for m in _NOT_AN_ESCAPE.finditer(text):
        at = m.end() - 2
        start = max(text.rfind(c, 0, at) + 1 for c in (b" ", b"\t", b"\n"))
        word = _WORD.match(text, start)
        end = word.end() if word is not None else at + 2
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


_PRINTED: Final = re.compile(
    rb"(?:\bprintf|\becho[ \t]+-[neE]{1,3})[ \t]+('[^'\r\n]{1,256}'|\"[^\"\r\n]{1,256}\")"
)
"""A shell's quoted string that ``printf`` or ``echo -e`` prints, its escapes the shell's own."""


def _printed_strings(text: bytes) -> list[tuple[int, int]]:
    """The quoted strings ``printf`` or ``echo -e`` prints whose backslashes are single (the
    shell's ``\\n``, not a JSON string's ``\\\\n``): text a decoded level gave, not a JSON
    string's, so their escapes are not decoded again (``printf 'X\\nX\\n' | passwd`` is one
    command line)."""
    return [
        m.span(1)
        for m in _PRINTED.finditer(text)
        if b"\\" in m.group(1) and b"\\\\" not in m.group(1)
    ]


def _unescape(text: bytes, level: int = 0) -> tuple[bytes, _Map] | None:
    """``text`` with its JSON escapes decoded, and the way back; None when it holds no line break
    escape (nothing a reader of lines would gain). The text is decoded by ``re`` at C speed, and
    the way back computed from the escapes' offsets (two bytes decoded to one each, unless a
    ``\\uXXXX`` is among them). Past the first ``level``, a word holding a backslash that escapes
    nothing is kept as it is (``_kept``)."""
    if _WORTH_DECODING.search(text) is None:
        return None
    spend(len(text))
    kept = (
        sorted(
            (_kept(text) if _NOT_AN_ESCAPE.search(text) is not None else [])
            + _printed_strings(text)
        )
        if level
        else []
    )
    if kept:
        return _decoded(text, kept)
    if b"\\u" not in text:
        src = [m.start() for m in _ESCAPE.finditer(text)]
        dec = [at - k for k, at in enumerate(src)]
        decoded = _ESCAPE.sub(lambda m: _SIMPLE_ESCAPES[m.group()], text)
        return decoded, _Map(src, [at + 2 for at in src], dec, [at + 1 for at in dec])
    src, src_end, dec, dec_end = [], [], [], []
    shrink = 0

    def one(m: re.Match[bytes]) -> bytes:
        nonlocal shrink
        escape = m.group()
        out = _SIMPLE_ESCAPES.get(escape)
        if out is None:
            out = chr(int(escape[2:], 16)).encode("utf-8", "replace")
        src.append(m.start())
        src_end.append(m.end())
        dec.append(m.start() - shrink)
        shrink += len(escape) - len(out)
        dec_end.append(m.end() - shrink)
        return out

    decoded = _ESCAPE.sub(one, text)
    return decoded, _Map(src, src_end, dec, dec_end)


def _decoded(text: bytes, kept: list[tuple[int, int]]) -> tuple[bytes, _Map]:
    """``text`` with the escapes outside the spans ``kept`` decoded, and the way back."""
    src: list[int] = []
    src_end: list[int] = []
    dec: list[int] = []
    dec_end: list[int] = []
    pieces: list[bytes] = []
    pos = shrink = k = 0
    for m in _ESCAPE.finditer(text):
        while k < len(kept) and kept[k][1] <= m.start():
            k += 1
        if k < len(kept) and kept[k][0] <= m.start():
            continue
        escape = m.group()
        out = _SIMPLE_ESCAPES.get(escape)
        if out is None:
            out = chr(int(escape[2:], 16)).encode("utf-8", "replace")
        pieces += (text[pos : m.start()], out)
        src.append(m.start())
        src_end.append(m.end())
        dec.append(m.start() - shrink)
        shrink += len(escape) - len(out)
        dec_end.append(m.end() - shrink)
        pos = m.end()
    pieces.append(text[pos:])
    return b"".join(pieces), _Map(src, src_end, dec, dec_end)


JSON_LINE: Final = re.compile(rb"[ \t]*(?:\"(?:[^\"\\]|\\.)*\"[ \t]*:[ \t]*)?\"")
"""A line of pretty JSON holding a string (``"key": "`` or ``"``): its content is the region."""


def region(
    data: bytes, line_start: int, line_end: int, forward: int = WINDOW_FORWARD
) -> tuple[int, int]:
    """The bytes a window may cover around a trigger line: the JSON string it lies in when it lies
    in one (a line of a pretty JSON document, or a raw line holding escaped line breaks), else
    the text around; in both cases within ``WINDOW_BACK`` and ``forward`` (at least
    ``WINDOW_FORWARD``), not across a ``\\x00`` or ``\\xff``, and cut only at a line break."""
    lo = max(0, line_start - WINDOW_BACK)
    hi = min(len(data), line_end + forward)
    for stop in (b"\x00", b"\xff"):
        cut = data.rfind(stop, lo, line_start)
        if cut >= 0:
            lo = cut + 1
        cut = data.find(stop, line_end, hi)
        if cut >= 0:
            hi = cut
    newline = data.rfind(b"\n", lo, line_start)
    raw_start = newline + 1 if newline >= 0 else lo
    raw_end = data.find(b"\n", line_end, hi)
    raw_end = hi if raw_end < 0 else raw_end
    head = JSON_LINE.match(data, raw_start, line_end)
    close = raw_end
    while close > line_start and data[close - 1] in b" \t\r,":
        close -= 1
    closed = close > line_start and data[close - 1] == 0x22 and not _escaped(data, close - 1)
    string_lo, string_hi = lo, hi
    if (head is not None and (closed or raw_end == hi)) or (
        b"\\n" in data[raw_start:raw_end] and closed
    ):
        # one raw line holds a JSON string: the window stays in it (after the opening quote,
        # before the closing one)
        string_lo = lo = head.end() if head is not None else raw_start
        string_hi = hi = close - 1 if closed else close
        lo = max(lo, line_start - WINDOW_BACK)
        hi = min(hi, line_end + forward)
    # a window cut short of its region is cut at a line break (never inside an escape)
    if string_lo < lo < line_start:
        m = _BREAKS.search(data, lo, line_start)
        lo = m.end() if m is not None else line_start
    if line_end < hi < string_hi:
        cut, _ = break_before(data, line_end, hi)
        hi = cut if cut > line_end else hi
    return lo, max(hi, lo)


def _escaped(data: bytes, i: int) -> bool:
    """``data[i]`` is preceded by an odd number of backslashes."""
    j = i
    while j > 0 and data[j - 1] == 0x5C:
        j -= 1
    return (i - j) % 2 == 1


@dataclass(slots=True)
class View:
    text: bytes
    maps: list[_Map]
    base: int

    def raw(self, start: int, end: int) -> tuple[int, int]:
        for mapping in reversed(self.maps):
            start, end = mapping.start(start), mapping.end(end)
        return self.base + start, self.base + end

    def local(self, raw: int) -> int:
        pos = raw - self.base
        for mapping in self.maps:
            pos = mapping.back(pos)
        return pos


def view(data: bytes, lo: int, hi: int) -> View:
    """``data[lo:hi]`` with its JSON escapes decoded, as many levels as it holds (at most
    ``VIEW_LEVELS``)."""
    text = data[lo:hi]
    maps: list[_Map] = []
    for level in range(VIEW_LEVELS):
        decoded = _unescape(text, level)
        if decoded is None:
            break
        text, mapping = decoded
        maps.append(mapping)
    return View(text, maps, lo)
