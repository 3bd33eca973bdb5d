"""The private-key rule: a ``-----BEGIN … PRIVATE KEY-----`` block, and the gate that finds one.

``PEM_HEADER`` matches a header that can begin a key (not one that the next header follows with
too little between, as in ``grep`` output of many headers), ``private_key`` reads the block after
it. ``PEM_GATE`` is what the hyperscan gate looks for instead: the same headers, found without
lookarounds, so a text of many headers and no key asks the scanner for no work at all (a text
with one place it could hold a key used to be searched whole, header by header).
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import Hit
from ._work import spend

__all__ = [
    "PEM_BODY_MIN",
    "PEM_GATE",
    "PEM_HEADER",
    "PEM_MATERIAL_MIN",
    "PEM_MAX",
    "PEM_WINDOW",
    "private_key",
]

_PEM_END: Final = re.compile(rb"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY: Final = re.compile(rb"(?:[A-Za-z0-9+/=\s:,.\-\\|>]|\xe2\x86\x92)*")
"""A key's body: base64 and line breaks (escaped or not), headers (``Proc-Type: 4,ENCRYPTED``),
and the prefixes of numbered, quoted or diffed lines (``12:``, ``12→``, ``  12 |``, ``> ``, ``+``)."""
PEM_MAX: Final = 65536
"""Longest private-key block looked for, in bytes (a 16384-bit RSA key is about 12 KB)."""
_PEM_BEGIN: Final = b"-----BEGIN"
PEM_MATERIAL_MIN: Final = 16
"""Base64 characters a private-key block without its ``-----END`` line needs to count as a key."""
PEM_BODY_MIN: Final = 12
"""... and with it (``-----BEGIN PRIVATE KEY-----`` around ``anything`` is a template)."""
# Not a byte of base64, nor the first dash of ``-----BEGIN`` or ``-----END``: a run of other
# bytes, then each allowed dash with the run after it (unrolled, about a third faster than an
# alternation per byte; possessive: the filler and the base64 characters never overlap, so
# nothing is given back)
_PEM_FILLER: Final = rb"[^A-Za-z0-9+/\-]*+(?:-(?!----(?:BEGIN|END))[^A-Za-z0-9+/\-]*+)*+"
_PEM_NOT_BEFORE_HEADER: Final = (
    rb"(?!(?:"
    + _PEM_FILLER
    + rb"[A-Za-z0-9+/]){0,%d}+" % (PEM_MATERIAL_MIN - 1)
    + _PEM_FILLER
    + rb"-----BEGIN)"
)
"""A header followed by the next ``-----BEGIN`` with fewer than ``PEM_MATERIAL_MIN`` base64
characters and no ``-----END`` between holds no key (``private_key`` would find none): the
pattern leaves it, so ``grep`` output of many headers costs no call per header."""
_NOT_BASE64: Final = bytes(
    b
    for b in range(256)
    if b not in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)


def private_key(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """From ``-----BEGIN … PRIVATE KEY-----`` through its ``-----END`` line (or the end of the
    base64 body when the block is cut short).

    A block never runs past the next ``-----BEGIN``, nor past ``PEM_MAX`` bytes: each byte after
    a header is examined for one block only, so a text of many headers costs one pass.
    """
    head, tail = m.span()
    start = head
    lowest = max(0, head - 5)
    while start > lowest and data[start - 1] == 0x2D:
        start -= 1
    limit = min(len(data), tail + PEM_MAX)
    following = data.find(_PEM_BEGIN, tail, limit)
    if following >= 0:
        limit = following
    spend(limit - tail)
    close = data.find(b"-----END", tail, limit)
    if (
        close < 0
        and limit - tail <= 256
        and len(data[tail:limit].translate(None, _NOT_BASE64)) < PEM_MATERIAL_MIN
    ):
        return None  # the next header follows with too little between for a key (grep output)
    end_match = _PEM_END.match(data, close, limit) if close >= 0 else None
    if end_match is None:
        cut = _PEM_BODY.match(data, tail, limit)
        end = cut.end() if cut is not None else tail
    else:
        end = end_match.end()
    # the fingerprinted value: the header and the key's first base64 characters, however the block
    # is escaped or wrapped (a JSON export and a Markdown export of one key agree)
    body = data[tail : min(close if end_match is not None else end, tail + 2048)]
    if b"\\" in body:
        body = body.replace(b"\\n", b"").replace(b"\\r", b"")
    material = body.translate(None, _NOT_BASE64)
    if len(material) < (PEM_BODY_MIN if end_match is not None else PEM_MATERIAL_MIN):
        return None  # a header and no key (``grep 'PRIVATE KEY'`` output, prose about keys, a template)
    value = m.group().rstrip(b"-") + b":" + material[:64]
    return Hit("private-key", start, end, value)


_HEAD: Final = rb"BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-{2,5}"
PEM_HEADER: Final = re.compile(_HEAD + rb"+" + _PEM_NOT_BEFORE_HEADER)
"""A header that can begin a key (``private_key`` reads the block after it)."""

# The gate's form of PEM_HEADER's lookahead, which hyperscan does not take: after the header,
# the text up to the first -----BEGIN or -----END is a run of tokens, each up to 4 dashes and a
# byte that is not a dash (a byte of base64 or another); the lookahead refuses the header only
# when fewer than PEM_MATERIAL_MIN of them are base64 and a -----BEGIN ends the run. The gate
# reports a header whose run holds that many base64 bytes (at most _GAP others before each), or
# whose run ends some other way (-----END, the end of the text, a dash run not before BEGIN), or
# that has more than _GAP other tokens in a row, or more than _DASHES dashes in a row: a
# superset, bounded so that a report's end lies within PEM_WINDOW of the header's start.
_GAP: Final = 4
_DASHES: Final = 8
_BASE64: Final = rb"[A-Za-z0-9+/]"
_OTHER: Final = rb"(?:-{0,4}[^A-Za-z0-9+/\-])"
_STEP: Final = rb"(?:" + _OTHER + rb"{0,%d}-{0,4}" % _GAP + _BASE64 + rb")"
PEM_GATE: Final = (
    rb"(?-i:"
    + _HEAD
    + rb"(?:"
    + _STEP
    + rb"{%d}|" % PEM_MATERIAL_MIN
    + _STEP
    + rb"{0,%d}(?:" % (PEM_MATERIAL_MIN - 1)
    + _OTHER
    + rb"{%d}|" % (_GAP + 1)
    + _OTHER
    + rb"{0,%d}(?:-{%d}" % (_GAP, _DASHES + 1)
    + rb"|-{5,%d}(?:[^B\-]|B(?:[^E]|E(?:[^G]|G(?:[^I]|I[^N]))))" % _DASHES
    + rb"|-{5,%d}(?:B(?:E(?:G(?:I)?)?)?)?$|-{0,4}$)))" % _DASHES
    + rb")"
)
"""What the gate reports for ``PEM_HEADER`` (case-sensitive, as the header is, in a gate whose
anchored rules are caseless)."""
PEM_WINDOW: Final = (
    len(b"BEGIN")
    + 40
    + len(b" PRIVATE KEY BLOCK")
    + 5
    + (PEM_MATERIAL_MIN - 1) * (5 * _GAP + 5)
    + 5 * _GAP
    + _DASHES
    + 5
)
"""The longest match of ``PEM_GATE``: a header begins at most this far before a report's end."""
