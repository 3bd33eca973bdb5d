"""Line encodings of binary: uuencode, git's base85 (``git diff --binary``) and Ascii85.

Each writes bytes as lines whose alphabet includes punctuation, so the base64 runs never see them:

* **uuencode** (``uuencode``, ``shar``): after ``begin 644 name``, lines of a length character
  (``M`` for 45 bytes) and four characters of ``' '``-``'`'`` for every three bytes, read while
  each line's length checks itself;
* **git's binary patches**: after ``literal N`` or ``delta N``, lines of a length letter
  (``A``-``Z`` 1-26 bytes, ``a``-``z`` 27-52) and base85 (RFC 1924's alphabet, as Python's
  ``b85decode``) of a zlib stream; a delta's inserted bytes are taken out of its instructions;
* **Ascii85** between ``<~`` and ``~>`` (PostScript, PDF, ``base64.a85encode(adobe=True)``).

The gate (``UU_GATE``, ``GIT_BINARY_GATE``, ``ASCII85_GATE``) reports where a line or a block may
end; these read from there, raw or in a JSON string (``\\n`` between lines, ``\\\\`` and ``\\"``
escaped), and give ``(start, end, bytes)`` to be scanned like any decoded region.
"""

from __future__ import annotations

import binascii
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Final

from ._work import spend

__all__ = [
    "ASCII85_GATE",
    "ASCII85_START",
    "GIT_BINARY_GATE",
    "GIT_BINARY_START",
    "UU_GATE",
    "UU_START",
    "ascii85_blocks",
    "base85",
    "git_binary",
    "uu_ends",
    "uu_lines",
]

_INFLATE_MAX: Final = 1 << 22

# --- base85, in C ----------------------------------------------------------------------------

_B85_ALPHABET: Final = (
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
)
_B85_VALUES: Final = bytes.maketrans(_B85_ALPHABET, bytes(range(85)))
_A85_VALUES: Final = bytes.maketrans(bytes(range(33, 118)), bytes(range(85)))


def base85(text: bytes, values: bytes, pad: int) -> bytes:
    """Base85 (groups of five digits, four bytes each) decoded by big-integer arithmetic in C, not
    a Python loop per group: each digit column made a number with a 32-bit field a group, the
    columns summed by their weights (a valid group's fields never carry). ``values`` maps the
    alphabet to 0..84; a last, short group is padded with digit ``pad``."""
    short = -len(text) % 5
    digits = (text + bytes((pad,)) * short).translate(values)
    groups = len(digits) // 5
    total = 0
    for column in range(5):
        field = bytearray(4 * groups)
        field[3::4] = digits[column::5]
        total = total * 85 + int.from_bytes(field, "big")
    spend(len(text))
    return total.to_bytes(4 * groups, "big")[: 4 * groups - short] if groups else b""


# --- uuencode -------------------------------------------------------------------------------------

UU_GATE: Final = rb"begin(?:-base64)? [0-7]{3,4} [^\r\n\"\\]{1,256}(?:\r?\n|\\n)"
"""``uuencode``'s header line (the lines that follow are read by ``uu_lines``)."""
UU_START: Final = re.compile(UU_GATE)
_UU_MIN: Final = 8
_UU_MAX: Final = 1 << 20
_UU_LINE: Final = re.compile(rb"((?:[ -\[\]-`]|\\\\|\\\")+?)(?:\r?\n|\\n|$)")
"""A line of uuencode's alphabet (a JSON string's ``\\\\`` and ``\\"`` count as one character), to
its line break."""


def _unescape(line: bytes) -> bytes:
    return line.replace(b'\\"', b'"').replace(b"\\\\", b"\\") if b"\\" in line else line


def uu_ends(data: bytes) -> list[int]:
    """Where ``UU_GATE`` matches end, found by ``re``."""
    return [m.end() for m in UU_START.finditer(data)]


def uu_lines(data: bytes, ends: Iterable[int]) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of the lines after each header the reports ``ends`` (in order)
    close, read while each line's length character says how long it is (``begin-base64``, from
    ``uuencode -m``, is base64 and read as such)."""
    covered = -1
    for end in ends:
        if end <= covered or data.rfind(b"begin-base64", max(0, end - 300), end) >= 0:
            continue
        pos = end
        decoded = bytearray()
        limit = min(len(data), end + _UU_MAX)
        while pos < limit:
            m = _UU_LINE.match(data, pos, limit)
            if m is None:
                break
            line = _unescape(m.group(1))
            count = (line[0] - 32) & 63
            if count == 0 or len(line) - 1 != -(-count // 3) * 4:
                break  # its length character does not say its length: not uuencoded (or "`", the end)
            try:
                decoded += binascii.a2b_uu(line)
            except binascii.Error:
                break
            pos = m.end()
        spend(pos - end)
        covered = pos
        if len(decoded) >= _UU_MIN:
            yield end, pos, bytes(decoded)


# --- git's binary patches -------------------------------------------------------------------------

GIT_BINARY_GATE: Final = rb"(?:literal|delta) [0-9]{1,10}(?:\r?\n|\\n)[A-Za-z]"
"""The head of a binary patch's block, and its first line's length letter."""
GIT_BINARY_START: Final = re.compile(GIT_BINARY_GATE)
_B85_LINE: Final = re.compile(rb"([A-Za-z])([0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{5,})(?:\r?\n|\\n)?")
_GIT_BLOCK_MAX: Final = 1 << 20


def git_binary(data: bytes, ends: Iterable[int]) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of each binary patch block whose head the reports ``ends``
    (in order) close: its lines decoded from base85, inflated, and for a delta the bytes it inserts."""
    covered = -1
    for end in ends:
        if end <= covered:
            continue
        head = data.rfind(b"literal ", max(0, end - 32), end)
        delta = data.rfind(b"delta ", max(0, end - 32), end)
        start = max(head, delta)
        if start < 0:
            continue
        pos = end - 1  # the first line's length letter
        bodies: list[bytes] = []
        sizes: list[int] = []
        limit = min(len(data), pos + _GIT_BLOCK_MAX)
        while pos < limit:
            m = _B85_LINE.match(data, pos, limit)
            if m is None or len(m.group(2)) % 5:
                break
            size = m.group(1)[0]
            sizes.append(size - 64 if size <= 0x5A else size - 96 + 26)
            bodies.append(m.group(2))
            pos = m.end()
        # every line's whole groups decoded at once, each line's padding then cut
        body = b"".join(bodies)
        if body.translate(None, _B85_ALPHABET):
            continue
        groups = base85(body, _B85_VALUES, _B85_ALPHABET[-1])
        packed = bytearray()
        at = 0
        for size, line in zip(sizes, bodies, strict=True):
            packed += groups[at : at + size]
            at += len(line) // 5 * 4
        spend(pos - start)
        covered = pos
        try:
            out = zlib.decompressobj().decompress(bytes(packed), _INFLATE_MAX)
        except zlib.error:
            continue
        spend(len(out))
        if start == delta:
            out = _delta_inserts(out)
        if out:
            yield start, pos, out


def _varint(data: bytes, pos: int) -> int:
    while pos < len(data) and data[pos] & 0x80:
        pos += 1
    return pos + 1


def _delta_inserts(delta: bytes) -> bytes:
    """The bytes a git delta inserts (its copy instructions name bytes of the old file)."""
    pos = _varint(delta, _varint(delta, 0))  # the sizes of the old and the new file
    out = bytearray()
    while pos < len(delta):
        op = delta[pos]
        pos += 1
        if op & 0x80:
            pos += bin(op & 0x7F).count("1")  # offset and size bytes of a copy
        elif op:
            out += delta[pos : pos + op]
            pos += op
    return bytes(out)


# --- Ascii85 ----------------------------------------------------------------------------------

ASCII85_GATE: Final = rb"<~(?:[!-u\s]|\\[nrt\\\"]){10,}~>"
"""An Ascii85 block (PostScript's ``<~ … ~>``), raw or in a JSON string."""
ASCII85_START: Final = re.compile(rb"<~(?:[!-u\s]|\\[nrt\\\"]){10,65536}?~>")
_ASCII85_BACK: Final = 1 << 16


def ascii85_blocks(data: bytes, ends: Iterable[int]) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of each Ascii85 block the reports ``ends`` (in order) close."""
    covered = -1
    for end in ends:
        if end <= covered:
            continue
        start = data.rfind(b"<~", max(0, end - _ASCII85_BACK, covered), end)
        spend(end - max(0, end - _ASCII85_BACK, covered))
        covered = end  # no later report looks back past here (a text of "~>" costs one pass)
        if start < 0:
            continue
        body = data[start + 2 : end - 2]
        spend(end - start)
        if b"\\" in body:
            body = body.replace(b"\\n", b"").replace(b"\\r", b"").replace(b"\\t", b"")
            body = _unescape(body)
        body = body.translate(None, b" \t\r\n\x0b").replace(b"z", b"!!!!!")
        if not body or body.translate(None, bytes(range(33, 118))):
            continue
        decoded = base85(body, _A85_VALUES, ord("u"))
        if decoded:
            yield start, end, decoded
