"""Generated words: a word shaped as a generated password standing apart in text, in any language.

``_sentences`` reads a value beside a credential noun of the languages ``_nouns`` knows; a
sentence in another language or a transliteration (``focal faire``, ``mima``, ``pasuwādo``) names
its credential in a word no table holds. What does not change with the language is the value:
no language writes a word whose letters change case every one or two letters among digits
(``gyeIoN^cflf7ik``, ``JALXcI4i!Zp5L4``, ``w~PnV.jF6GFU``). This pass reads that shape alone,
wherever the word stands apart (a space, a quote, a bracket or another script before it; a space,
a quote, a bracket, punctuation or another script after it) and holds ``!``, ``^`` or ``~``
between a letter or digit and two more (the gate: other symbols and none, ``cM_8TD8a3eAY``,
``HxaF2+glaNPOfj``, are left, see docs/security.md):

* 12 to 64 letters, digits and the symbols of passwords and generated strings
  (``!#$%&*+^~._-``), with upper- and lower-case letters and digits;
* read as pieces (a capitalised or lower-case run, an upper-case run, a number): three or more
  pieces of one or two letters (``Io``, ``N``, ``ik``), or two and a symbol of passwords inside
  the word (``HxaF2+glaNPOfj``), a quarter of the pieces or more;
* few words: the pieces of five letters or more (``Instruct``, ``Standard``, ``Cluster``) under
  two fifths of the word.

What is shaped otherwise stays: model names (``Llama-3.1-70B-Instruct``, ``gpt-4o-mini``),
versions, ticket ids, hashes and UUIDs (one case), identifiers (``parseHttpResponseV2``: long
pieces), base64 data longer than 15 (a key's line, a fingerprint, a ciphertext: the entropy
rules' and the decoders' to read; in prose only base64 of printable text, see ``prose_words``),
file names and paths (``/``), references (``#``, ``$``, ``@`` first), prefixed ids (``cus_…``), a
word glued to ``=``, ``/`` or ``:`` (a query, a path, a field).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable
from typing import Final

from ._catalogue import Hit
from ._rules import Pass
from ._work import spend

__all__ = ["PROSE_LINE", "generated", "generated_passes", "prose_words"]

_GATE: Final = rb"[A-Za-z0-9][!^~][A-Za-z0-9]{2}"
"""Where such a word can be: a symbol of passwords that code and prose rarely put between letters
or digits (``N^cf``, ``i!Zp``, ``w~Pn``; not ``{x!r}``, ``a^2``, ``~/``). A word of other symbols
(``HxaF2+gla``, ``cM_8TD8a3eAY``) is not read: a gate for it costs the scan more than the speed
targets allow."""
_WORD_BYTES: Final = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&*+^~._-"
)
_APART: Final = frozenset(b" \t\r\n\"'`()[]<>{},;:|") | frozenset(range(0x80, 0x100))
"""What sets a word apart: a space, a quote, a bracket, a comma, a colon, another script."""
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_DIGIT: Final = frozenset(b"0123456789")
_PIECE: Final = re.compile(rb"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_PREFIXED: Final = re.compile(rb"[a-z]{2,12}[_-]")
"""A prefixed id or a label (``cus_…``, ``nonce-…``)."""
_VERSION: Final = re.compile(rb"[vV]?[0-9]+\.[0-9]")
_HEX_ID: Final = re.compile(rb"[0-9a-f]{8,}[-_.][A-Za-z0-9]{1,8}|[A-Za-z0-9]{1,8}[-_.][0-9a-f]{8,}")
_HEX: Final = re.compile(rb"(?:0x)?[0-9A-Fa-f]+")
_SYMBOLS: Final = frozenset(b"!#$%&*+^~")
_EXTENSION: Final = re.compile(rb".*\.[a-z]{1,4}[0-9]?")
_BASE64: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+")
_DATA: Final = 15
_MIN: Final = 12
_MAX: Final = 64


def generated(word: bytes, *, prose: bool = False) -> bool:
    """``word`` (trimmed) is shaped as a generated password or token. In ``prose`` a word of
    letters and digits longer than 15 is read by its pieces too: no key's line, fingerprint or
    ciphertext is written in a sentence without a name or a glue (``SHA256:``, ``/``) beside it."""
    n = len(word)
    if n < _MIN or n > _MAX or word[0] in b"#$%&.~-" or _PREFIXED.match(word) is not None:
        return False
    chars = frozenset(word)
    if chars.isdisjoint(_UPPER) or chars.isdisjoint(_LOWER) or chars.isdisjoint(_DIGIT):
        return False
    if _HEX.fullmatch(word) is not None:
        return False  # hex in either case: a checksummed address (EIP-55's ``0x742d35Cc…``)
    if b".." in word or _VERSION.match(word) is not None or _HEX_ID.fullmatch(word) is not None:
        return False  # a mask (``sk-proj-...9fQa``), a version, a hex id (``f0f65f4c89ce96fc-AMS``)
    if n > _DATA and chars <= _BASE64 and (not prose or _encodes_text(word)):
        return False  # base64 data: a key's line, a fingerprint, a ciphertext, a nonce
    if _EXTENSION.fullmatch(word) is not None:
        return False  # a file's name
    short = pieces = words = 0
    for piece in _PIECE.findall(word):
        pieces += 1
        if piece[0] in _DIGIT:
            continue
        size = len(piece)
        if size <= 2:
            short += 1
        elif size >= 5:
            words += size
    if short < 2 or (short < 3 and _SYMBOLS.isdisjoint(word[1:-1])):
        return False  # three short pieces, or two and a symbol inside (``HxaF2+glaNPOfj``)
    return short * 4 >= pieces and words * 5 < n * 2


def _encodes_text(word: bytes) -> bool:
    """``word`` is base64 of printable text (``REJfUEFTU1dPUkQ9…``): data the decoders read and
    scan, whose findings are the text's; random letters and digits decode to bytes of every
    value."""
    try:
        raw = binascii.a2b_base64(word + b"=" * (-len(word) % 4))
    except binascii.Error:
        return False
    return bool(raw) and raw.isascii() and all(b >= 0x20 or b in b"\t\n\r" for b in raw)


_AT: Final = re.compile(_GATE)
_BEFORE: Final = frozenset(b" \t\"'`([<{") | frozenset(range(0x80, 0x100))
"""What sets a word apart before it: a space, a quote, a bracket, another script."""


def _generated(data: bytes, m: re.Match[bytes]) -> Hit | None:
    at = m.start()
    lo = max(0, at - _MAX)
    a = at
    while a > lo and data[a - 1] in _WORD_BYTES:
        a -= 1
    if a > 0 and data[a - 1] not in _BEFORE:
        return None  # glued to ``=``, ``/``, ``:``: a query, a path, a field
    hi = min(len(data), a + _MAX + 1)
    b = at + 1
    while b < hi and data[b] in _WORD_BYTES:
        b += 1
    spend(b - lo)
    if b < len(data) and data[b] not in _APART and data[b] != 0x5C:
        return None  # glued to ``=``, ``/``, ``@``: a query, a path, data
    while b > a and data[b - 1] == 0x2E:
        b -= 1  # the sentence's full stop
    word = data[a:b]
    if not generated(word):
        return None
    return Hit("credential-assignment", a, b, word)


def generated_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes: the gate
    reports where its match ends, the pass reads the word around the match's start."""
    return [Pass(_AT, _generated, gate=(_GATE, 0, 4))]


# --- in prose, without the gate ---------------------------------------------------------------

PROSE_LINE: Final = rb'"(?:Text|reasoning_summary|reasoning)": "'
"""Where prose is in an export's pretty JSON: a text block's string (a user's words, an answer)
and a reasoning summary, each on a line of its own (JSON writes no raw line break in a string).
A small share of a session's bytes: there every word is read, without the gate."""
_PROSE_LINE: Final = re.compile(PROSE_LINE)
_DIGIT_WORD: Final = re.compile(rb"[0-9][A-Za-z0-9!#$%&*+^~._-]*")
"""A word's digit and the rest of the word (``re`` skips to a digit: prose holds few)."""
_SEGMENT: Final = re.compile(rb"[^._-]+")
_CAPITALISED: Final = re.compile(rb"[A-Z][a-z]{2,}")
_PERCENT: Final = re.compile(rb"%[0-9A-Fa-f]{2}")
_LONG: Final = 16


def spoken_apart(word: bytes) -> bool:
    """``word`` (``generated``) is not a name: a symbol of passwords inside it, or a piece between
    ``-``, ``_`` and ``.`` of four pieces or more (``8TD8a3eAY``, ``U0JsB9``, ``1J5OGz``) that is
    neither an identifier's words (two capitalised of three letters or more: ``IPv6AddrV4Map``)
    nor a measure (numbers and single letters: ``8x22B``). A name's pieces are few between its
    dashes (``ViT-B-16-SigLIP``, ``H100-PCIe-80GB``, ``Standard_NC24ads_A100_v4``)."""
    if _PERCENT.search(word) is not None:
        return False  # URL-encoded text (``curl%20-H%20%27…``): the decoders read it
    if not _SYMBOLS.isdisjoint(word[1:-1]):
        return True
    for segment in _SEGMENT.findall(word):
        pieces = _PIECE.findall(segment)
        if len(pieces) < 4 or _words_of_a_name(segment, pieces):
            continue
        letters = [p for p in pieces if p[0] not in _DIGIT]
        if any(len(p) > 1 for p in letters) or len(pieces) - len(letters) < 2:
            return True
    return False


def _words_of_a_name(segment: bytes, pieces: list[bytes]) -> bool:
    """``segment``'s capitalised pieces of three letters or more are an identifier's words: two
    of them in a short segment (``IPv6AddrV4Map``); in one of 16 bytes or more, a third of its
    pieces (random letters of that length hold a few such pieces by chance: ``Ecf``, ``Gkk``)."""
    capitalised = len(_CAPITALISED.findall(segment))
    if len(segment) >= _LONG:
        return capitalised * 3 >= len(pieces)
    return capitalised >= 2


def prose_words(data: bytes, starts: Iterable[int] | None) -> list[Hit]:
    """The words of prose lines (``PROSE_LINE``: where the gate found its key end, or every key's
    start without hyperscan: the key holds no digit, so either reads the same words) shaped as a generated password (``generated`` and ``spoken_apart``), whatever
    symbol they hold or none: in prose no gate is needed, the bytes are few. There a word longer
    than 15 is read too (``generated(prose=True)``): data in a sentence stands beside a name or a
    glue that keeps it from being read."""
    out: list[Hit] = []
    lines = starts if starts is not None else (m.start() for m in _PROSE_LINE.finditer(data))
    last = -1
    for at in lines:
        if at < last:
            continue  # on the line read before
        end = data.find(b"\n", at)
        last = end = len(data) if end < 0 else end
        spend(end - at)
        for m in _DIGIT_WORD.finditer(data, at, end):  # the key holds no digit
            hit = _word(data, m.start(), m.end())
            if hit is not None:
                out.append(hit)
    return out


def _escapes(data: bytes, at: int) -> bool:
    """The backslash at ``at`` begins an escape (an even run of backslashes before it)."""
    k = at
    while k > 0 and data[k - 1] == 0x5C:
        k -= 1
    return (at - k) % 2 == 0


def _word(data: bytes, at: int, b: int) -> Hit | None:
    """The word around the digit at ``at`` (its end at ``b``), if it stands apart and is shaped
    as a generated password."""
    lo = max(0, at - _MAX)
    a = at
    while a > lo and data[a - 1] in _WORD_BYTES:
        a -= 1
    if a > 0 and data[a - 1] == 0x5C and data[a] in b"nrt" and _escapes(data, a - 1):
        a += 1  # a JSON escape's letter (``\\n``) is no part of the word
    elif a > 0 and data[a - 1] not in _BEFORE:
        return None  # glued to ``=``, ``/``, ``:``: a query, a path, a field
    if b < len(data) and data[b] not in _APART and data[b] != 0x5C:
        return None
    while b > a and data[b - 1] == 0x2E:
        b -= 1
    word = data[a:b]
    if not generated(word, prose=True) or not spoken_apart(word):
        return None
    return Hit("credential-assignment", a, b, word)
