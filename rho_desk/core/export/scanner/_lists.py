"""Byte lists and spaced characters: text that spells a secret one number or one character at a time.

* **byte lists** (``byte_lists``): printable bytes written as numbers, whatever the language or
  tool: spaced upper-case hex (``67 68 70 5F``), prefixed hex (Go's ``[]byte{0x67, …}``, C
  arrays, ``xxd -i``), decimal (Python's ``bytes([103, …])``, JavaScript's
  ``String.fromCharCode(103, …)``, ``chr(103)+chr(104)``, PowerShell's ``[char]103``), across
  lines; ``readings`` reads numbers as hex pairs, decimal, octal or hex words in either order
  (``_views.decode_dumps`` reads the dumps of ``od -t x1``, ``-b``, ``-x``, ``hexdump`` so).

The gate says whether a buffer may hold one (``LIST_TRIGGER``: a few values in a row, patterns
of fixed width that cost the gate next to nothing) and the scanner probes it block by block
(``_prefilter.Probe``); ``list_chunks`` finds each run in those blocks by C-level translations and
searches, and the decoders read it with C-level splits and maps (a megabyte of numbers costs a
few passes, not a call per number). Runs are read ``CHUNK_MAX`` bytes at a time. Raw or in a JSON
string (``\\n`` between lines).

``LOCATED`` lists the decoders the gate locates by reports (``_linecodes``' uuencode, git's base85
and Ascii85: one report a line or a block), by the encoding their findings name.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Final, NamedTuple

from ._linecodes import (
    ASCII85_GATE,
    ASCII85_START,
    GIT_BINARY_GATE,
    GIT_BINARY_START,
    UU_GATE,
    ascii85_blocks,
    git_binary,
    uu_ends,
    uu_lines,
)
from ._work import spend

__all__ = [
    "CHUNK_MAX",
    "LIST_TRIGGER",
    "LOCATED",
    "Located",
    "byte_lists",
    "list_chunks",
    "list_view",
    "readings",
]

CHUNK_MAX: Final = 1 << 16
"""Longest run read as one list, in bytes (a longer one is read in pieces that overlap)."""
_OVERLAP: Final = 256

# --- triggers -------------------------------------------------------------------------------------

# printable values: hex 20-7e, decimal 32-126, octal 040-176, a word of two printable bytes
_H: Final = rb"[2-7][0-9A-Fa-f]"
_D: Final = rb"(?:3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6])"
LIST_TRIGGER: Final = rb"|".join(
    (
        rb"(?:[2-7][0-9A-F] ){7}[2-7][0-9A-F]",  # 67 68 70 5F (upper-case hex, spaced)
        rb"(?:0[xX]" + _H + rb", ?){5}0[xX]" + _H,  # 0x67, 0x68 (Go, C, xxd -i)
        rb"[(\[{] ?"
        + _D
        + rb"(?:, ?"
        + _D
        + rb"){7}",  # (103, 104 (bytes([...]), fromCharCode(...), byte[]{...})
        rb"[Cc]h(?:r|ar)W?\(" + _D,  # chr(103)+chr(104), Chr(103) & ..., CHAR(103)
        rb"\[char\]" + _D,  # PowerShell's [char]103
    )
)
"""What a byte list starts with, in every form ``byte_lists`` reads (the dumps of ``od`` and
``hexdump`` are ``_views.decode_dumps``'): the gate says whether a buffer holds one at all
(patterns of fixed width that cost hyperscan next to nothing)."""

# --- runs -----------------------------------------------------------------------------------------

_LIST_BYTES: Final = b"0123456789ABCDEFabcdefxX \t,;:+&()[]{}\\"
_LIST_TABLE: Final = bytes(0x61 if b in _LIST_BYTES else 0x20 for b in range(256))
_LIST_SEED: Final = b"a" * 23
_HEX_LETTERS: Final = frozenset(b"ABCDEFabcdef")
_LETTERS: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
"""Eight values of two digits and the bytes between them: the shortest list worth a look."""
_LINE_BREAKS: Final = (b"\n", b"\r\n", b"n")
"""What may stand between two runs of one list (``n`` after a run's ``\\``: JSON's ``\\n``)."""
_WRAPPERS: Final = (b"ChrW", b"(byte)", b"char", b"CHAR", b"Chr", b"chr")
"""Words that wrap each number of a list, longest first (``ChrW`` before ``Chr``)."""


def list_view(window: bytes) -> bytes:
    """``window`` as the list reader sees it, the same length (offsets stay true): JSON's line
    escapes and the words that wrap numbers (``chr``, ``[char]``) as spaces."""
    if b"\\" in window:
        window = window.replace(b"\\n", b"  ").replace(b"\\r", b"  ").replace(b"\\t", b"  ")
    if b"hr" in window or b"har" in window or b"HAR" in window or b"byte" in window:
        for word in _WRAPPERS:
            if word in window:
                window = window.replace(word, b" " * len(word))
    return window


def _seeded_runs(marks: bytes, seed: bytes) -> list[tuple[int, int]]:
    """The runs of ``a`` in ``marks`` that hold ``seed``, by ``bytes.find``."""
    out = []
    at = marks.find(seed)
    while at >= 0:
        start = marks.rfind(b" ", 0, at) + 1
        end = marks.find(b" ", at)
        end = len(marks) if end < 0 else end
        out.append((start, end))
        at = marks.find(seed, end)
    return out


def list_chunks(data: bytes, areas: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of list bytes long enough to hold eight values in each of ``areas`` (where the gate
    found a list's start; a run that reaches an area's edge is followed past it), those of one
    list's lines joined (a line break between them), each at most ``CHUNK_MAX`` bytes (a longer
    run is cut in pieces that overlap)."""
    chunks: list[list[int]] = []
    for lo, hi in areas:
        marks = list_view(data[lo:hi]).translate(_LIST_TABLE)
        spend(2 * (hi - lo))
        for start, end in _seeded_runs(marks, _LIST_SEED):
            start, end = lo + start, lo + end
            if start == lo:
                start = _run_edge(data, start, -1)
            if end == hi:
                end = _run_edge(data, end, 1)
            while (
                start < end
                and start > 0
                and data[start] in _HEX_LETTERS
                and data[start - 1] in _LETTERS
            ):
                start += 1  # the end of a word (the "e" of "byte{", "de" of "fromCharCode(")
            if chunks and start <= chunks[-1][1]:
                chunks[-1][1] = max(chunks[-1][1], end)
            elif chunks and data[chunks[-1][1] : start] in _LINE_BREAKS:
                chunks[-1][1] = end
            else:
                chunks.append([start, end])
    out: list[tuple[int, int]] = []
    for start, end in chunks:
        while end - start > CHUNK_MAX:
            out.append((start, start + CHUNK_MAX))
            start += CHUNK_MAX - _OVERLAP
        out.append((start, end))
    return out


def _run_edge(data: bytes, at: int, step: int) -> int:
    """Where the run of list bytes through ``at`` ends, going back (``step`` -1) or on (1), at
    most ``CHUNK_MAX`` bytes away."""
    if step < 0:
        lo = max(0, at - CHUNK_MAX)
        marks = list_view(data[lo:at]).translate(_LIST_TABLE)
        spend(len(marks))
        return lo + marks.rfind(b" ") + 1
    marks = list_view(data[at : at + CHUNK_MAX]).translate(_LIST_TABLE)
    spend(len(marks))
    stop = marks.find(b" ")
    return at + (len(marks) if stop < 0 else stop)


# --- byte lists ---------------------------------------------------------------------------------

_SEPARATORS: Final = bytes.maketrans(b",;:+&()[]{}\t\r\n\\", b"               ")
_HEXDIGITS: Final = b"0123456789ABCDEFabcdef"
_DECIMAL: Final = {str(n).encode(): n for n in range(256)}
_OCTAL: Final = {f"{n:03o}".encode(): n for n in range(256)}
_MIN_VALUES: Final = 8


def byte_lists(data: bytes, chunks: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of every reading of each chunk as a list of byte values (hex pairs,
    decimal, octal, hex words both ways) that makes printable text."""
    for lo, hi in chunks:
        text = (
            list_view(data[lo:hi])
            .replace(b"0x", b"  ")
            .replace(b"0X", b"  ")
            .replace(b"\\x", b"  ")
            .translate(_SEPARATORS)
        )
        spend(4 * len(text))
        tokens = text.split()
        if len(tokens) < _MIN_VALUES:
            continue
        lead, trail = _edges(tokens)
        values = tokens[lead : len(tokens) - trail]
        if values and max(map(len, values)) > 4:  # line offsets of a dump (0000020, 00000010)
            values = [t for t in values if len(t) <= 4]
        if len(values) < _MIN_VALUES:
            continue
        if lead:
            start = lo + next(islice(re.finditer(rb"\S+", text), lead, None)).start()
        else:
            start = lo + len(text) - len(text.lstrip())
        end = lo + len((text.rsplit(None, trail)[0] if trail else text).rstrip())
        for decoded in readings(values):
            yield start, end, decoded


def _edges(tokens: list[bytes]) -> tuple[int, int]:
    """How many tokens at the start and at the end (three at most) are not numbers: a word
    before or after the list. A dump's offset is kept (it is dropped from the values)."""

    def fits(token: bytes) -> bool:
        return not token.translate(None, _HEXDIGITS) and len(token) <= 8

    lead = 0
    while lead < 3 and lead < len(tokens) and not fits(tokens[lead]):
        lead += 1
    trail = 0
    while trail < 3 and trail < len(tokens) - lead and not fits(tokens[-1 - trail]):
        trail += 1
    return lead, trail


def readings(tokens: list[bytes]) -> Iterator[bytes]:
    """Every reading of ``tokens`` as byte values that makes printable text: hex pairs, decimal,
    octal (three digits), hex words in either order (four digits)."""
    joined = b"".join(tokens)
    if joined.translate(None, _HEXDIGITS):
        return
    sizes = set(map(len, tokens))
    if sizes == {2}:
        yield from _printable(bytes.fromhex(b" ".join(tokens).decode("ascii")))
    if joined.isdigit() and max(sizes) <= 3:
        with contextlib.suppress(KeyError):
            yield from _printable(bytes(map(_DECIMAL.__getitem__, tokens)))
        if sizes == {3}:
            with contextlib.suppress(KeyError):
                yield from _printable(bytes(map(_OCTAL.__getitem__, tokens)))
    if sizes == {4}:
        big = bytes.fromhex(b" ".join(tokens).decode("ascii"))
        little = bytearray(len(big))
        little[0::2], little[1::2] = big[1::2], big[0::2]
        yield from _printable(big)
        yield from _printable(bytes(little))


_CONTROL: Final = bytes(b for b in range(256) if not (32 <= b < 127 or b in b"\t\n\r"))


def _printable(decoded: bytes) -> Iterator[bytes]:
    if (
        len(decoded) >= _MIN_VALUES
        and len(decoded.translate(None, _CONTROL)) * 10 >= len(decoded) * 9
    ):
        yield decoded


# --- what the gate locates ------------------------------------------------------------------------


class Located(NamedTuple):
    """A decoder the gate locates: its gate pattern (reported where a match ends), the same ends
    found by ``re`` without hyperscan, and the reader of what stands there."""

    gate: bytes
    ends: Callable[[bytes], list[int]]
    read: Callable[[bytes, list[int]], Iterable[tuple[int, int, bytes]]]


def _ends(pattern: re.Pattern[bytes]) -> Callable[[bytes], list[int]]:
    return lambda data: [m.end() for m in pattern.finditer(data)]


LOCATED: Final[dict[str, Located]] = {
    "uuencode": Located(UU_GATE, uu_ends, uu_lines),
    "git-base85": Located(GIT_BINARY_GATE, _ends(GIT_BINARY_START), git_binary),
    "ascii85": Located(ASCII85_GATE, _ends(ASCII85_START), ascii85_blocks),
}
"""The decoders the gate locates, by the encoding their findings name: each reports where what
it reads may end (one report a list or a line, not one a byte)."""
