"""Sentences: a value shaped as a credential in a sentence that names a credential, in any language.

``_prose`` reads a sentence by its words: a credential noun it knows, a link word (``is``,
``lautet``, ``是``) or a sign, then the value. A language it does not know, an inflection, a link
it lacks, the value in parentheses or before the noun, and it reads nothing. This pass reads a
sentence by its structure instead, whatever its language:

* a **noun** of ``_nouns``' table (the words of six meanings in seventy languages, as stems, in
  every spelling: ``jelszava``, ``Паролата``, ``şifrəsi``, ``Zugangstoken``, ``APIトークン``);
* on its line, in the ``_AFTER`` bytes after it (or the ``_BEFORE`` bytes before it: ``use X as
  the password``), a **word shaped as a credential**, whatever the words around it say: a run of
  printable ASCII set apart by spaces, quotes, brackets or another script (``はX です``,
  ``ແມ່ນX``), that is either

  - a **password**: letters and digits with a symbol of passwords (``!#$%&*+^~``) inside it, and
    both cases or two such symbols (``KKHo#34HLV!in%``, ``hunterTwo!2``), or ending one after both
    cases and digits (``Winter2026!``); or
  - a **token**: 16 or more letters, digits, ``_`` and ``-``, random-looking (both cases and
    digits, near the entropy of random text: ``ounqQUGNw77RQgo2n9WHCnWjs7``).

What is shaped otherwise stays: versions (``v2.14.3-rc.1``), ticket ids (``JIRA-48213``), commit
hashes and UUIDs (one case), file names and paths, identifiers (``refreshTokenV2Cache``: one
digit), error codes, addresses, URLs, references (``$VAR``, ``#channel-2``, ``@user``), code
(brackets in pairs, ``&&``), query strings.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import Final

from ._catalogue import Hit
from ._nouns import cues
from ._rules import Pass
from ._values import high_entropy
from ._work import spend

__all__ = ["SENTENCE_GATE", "sentence_passes", "shaped"]

_CUES, _WHOLE, _STEMS = cues()
_SAFE: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789") | frozenset(range(0x80, 0x100))


def _literal(cue: bytes) -> bytes:
    """``cue`` as a literal of ``re`` and hyperscan (bytes of other scripts as they are: escaped,
    the table would pass hyperscan's limit on a pattern's length)."""
    return b"".join(bytes((c,)) if c in _SAFE else b"\\x%02x" % c for c in cue)


def _either(cues: Iterable[bytes]) -> bytes:
    return b"(?:" + b"|".join(_literal(c) for c in cues) + b")"


_PROSE_AFTER: Final = rb"(?:[ \t\r\n(,\"'`*\x80-\xff]|\.(?:[ \t\r\n\\]|$)|$)"
"""What follows a noun of prose (a space, a bracket, a quote, a comma, another script, a sentence's
end): not ``=``, ``-``, ``/``, ``_`` or ``:`` as after a name of code or configuration."""
SENTENCE_GATE: Final = (
    _either(c for c in _CUES if not c.isascii())
    + b"|"
    + _either(c for c in _CUES if c.isascii() and c not in _STEMS)
    + rb"[a-z]{0,4}"
    + _PROSE_AFTER
    + b"|"
    + _either(c for c in _CUES if c in _STEMS)
    + rb"[a-z]*(?::|"
    + _PROSE_AFTER
    + b")"
)
"""Where the pass can match (caseless in ASCII): a noun of another script; an ASCII noun, its
ending (``tokens``, ``passwords``) and prose after it; an ASCII stem (``jelsz``, ``rakt``) its
ending and prose or a colon (``jelszava:``, ``raktas:``). The stems' ending is unbounded: bounded,
hyperscan spent 200 ms on 20 MB of a session for it, unbounded 21."""
_BY_HEAD: Final[dict[bytes, tuple[bytes, ...]]] = {}
for _cue in _CUES:  # longest first
    _BY_HEAD[_cue[:2]] = (*_BY_HEAD.get(_cue[:2], ()), _cue)
_ANY: Final = re.compile(rb"[\s\S]")
"""The pass's pattern: the gate found the noun, ``_BY_HEAD`` says which."""
_SYMBOL: Final = re.compile(rb"[!#$%&*+^~]")
_COLON_WORD: Final = re.compile(rb"(?::|\xef\xbc\x9a|\xd5\x9d)[ \t]*[!-~]{8}")
_TOKEN_RUN: Final = re.compile(rb"[A-Za-z0-9_\-]{16}")


def _plausible(data: bytes, lo: int, hi: int) -> bool:
    """``data[lo:hi]`` holds a superset of a word ``shaped`` accepts: a symbol after a letter or
    digit, 16 letters and digits in a row, or a word after a colon. Most nouns have none on their
    line (a table's header, ``| key | value |``): three searches of the line, and the pass is
    done (each searched alone, ``re`` skips to the bytes it can begin with: as one alternation,
    led by a letter, it tried each at every byte, 4.4 µs a line against 2.7)."""
    for symbol in _SYMBOL.finditer(data, lo + 1, hi):
        if data[symbol.start() - 1] in _ALNUM:
            return True
    return (
        _COLON_WORD.search(data, lo, hi) is not None or _TOKEN_RUN.search(data, lo, hi) is not None
    )


_DIGITS: Final = tuple(bytes((c,)) for c in b"0123456789")
_LETTERS: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

_AFTER: Final = 160
_BEFORE: Final = 64
_BREAK: Final = re.compile(rb"\n|\r|\\[nr]|\x00|\xff")
_WORD: Final = re.compile(
    rb"(?:(?<![!-~])|(?<=\\[nrt]))(?:[!-\[\]-~]|\\[\\\"/]){8,128}(?![!-\[\]-~])"
)
"""A run of printable ASCII set apart (by a space, a byte of another script, a line's escape)."""
_ALNUM: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_NAME: Final = _ALNUM | frozenset(b"_-.")
_ASSIGN: Final = re.compile(rb"(?:\\?[\"'])?[ \t]*[:=]")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_DIGIT: Final = frozenset(b"0123456789")
_SYMBOLS: Final = frozenset(b"!#$%&*+^~")
"""The symbols of passwords (not of names, versions and paths: ``-``, ``_``, ``.``, ``/``, ``:``)."""
_TOKEN: Final = _ALNUM | frozenset(b"_-")
_HEX: Final = frozenset(b"0123456789abcdefABCDEF-")
_QUOTES: Final = frozenset(b"\"'`")
_QUOTE: Final = re.compile(rb"\\?[\"'`]")
_OPEN: Final = b"([{<\"'`*"
_CLOSE: Final = b")]}>\"'`*,.;:"
_REFERENCE_HEADS: Final = frozenset(b"#$@%&/~.")
"""A word starting so is a channel, a variable, a user, a path: no password."""
_BRACKETS: Final = frozenset(b"()[]{}<>")
_PARTS: Final = re.compile(rb"[,/]")
_CODE: Final = (b"&&", b"||", b"==", b"!=", b"->", b"=>", b"://", b":~/", b":/", b"[secret")
_SIGN: Final = re.compile(rb"[:=]")
_COLON_VALUE: Final = re.compile(
    rb"[ \t]*(?::|\xef\xbc\x9a|\xd5\x9d)[ \t]*([!-\[\]-~]{8,128})(?![!-~])"
)
"""``: X`` right after the noun (ASCII, full-width or Armenian colon)."""
_PASSPHRASE: Final = re.compile(rb"[a-z]{4,12}(?:-[a-z]{4,12}){2,5}-?[0-9]{2,4}")
"""Words joined by dashes and a number (``shadow-lotus-pilot-55``): a passphrase's shape."""
_CHARACTER_REFERENCE: Final = re.compile(rb"&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z]{2,8};)")
_PERCENT: Final = re.compile(rb"%[0-9A-F]{2}")
_NUMBERED: Final = re.compile(rb"([A-Za-z0-9._\-]*)([#!])[0-9A-Fa-f]+")
"""``Bug#1501``, ``PKCS#12``, ``README.md#25CB``, ``GNOME/gtk!5554``: a thing and its number."""
_CAMEL: Final = re.compile(rb"[a-z][A-Z]")
_CLASS_RANGE: Final = re.compile(rb"a-z|A-Z|0-9|\\[xdwsu]")
_WORDS_IN: Final = re.compile(rb"[A-Z][a-z]{2,}")
"""The words of an identifier (``Ed25519PublicKey``)."""
_EMAIL: Final = re.compile(rb"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")


def _numbered(part: bytes, value: bytes) -> bool:
    """``part`` has no symbol of passwords, or is a thing's name and its number (``Bug#1501``;
    ``gtk!5554`` in a project's path), the name in one case (not ``hunterTwo!2``)."""
    if _SYMBOLS.isdisjoint(part):
        return True
    m = _NUMBERED.fullmatch(part)
    return (
        m is not None
        and _CAMEL.search(m.group(1)) is None
        and (m.group(2) == b"#" or b"/" in value)
    )


def shaped(value: bytes, *, tokens: bool = True) -> bool:
    """``value`` (one word, trimmed) is shaped as a password or (with ``tokens``) a token."""
    n = len(value)
    if n < 8 or value[0] in _REFERENCE_HEADS or _DIGIT.isdisjoint(value):
        return False  # no shape without a digit (nor its URL-decoding: %3X is the only way to one)
    if any(c in value for c in _CODE):
        return False
    if _CHARACTER_REFERENCE.search(value) is not None or _CLASS_RANGE.search(value) is not None:
        return False  # HTML's &#39; and &quot;, a regex's class: text and code, not symbols
    if _PERCENT.search(value) is not None:
        return shaped(urllib.parse.unquote_to_bytes(value), tokens=tokens)  # sk%2Dproj
    chars = frozenset(value)
    upper = not chars.isdisjoint(_UPPER)
    lower = not chars.isdisjoint(_LOWER)
    if chars.isdisjoint(_DIGIT) or not (upper or lower):
        return False
    if _PASSPHRASE.fullmatch(value) is not None:
        return True
    if chars <= _TOKEN:
        words = sum(len(w) for w in _WORDS_IN.findall(value))
        return (
            tokens
            and n >= 16
            and not chars <= _HEX
            and words * 5 < n * 2  # an identifier's words: Ed25519PublicKey, MLKEM768PublicKey
            and high_entropy(value)
        )
    if not chars.isdisjoint(_BRACKETS) or (b"=" in value and b"&" in value):
        return False  # code, markup, a query string
    if all(_numbered(part, value) for part in _PARTS.split(value)):
        return False  # Bug#1501,#75791; PKCS#12/PKCS#8
    if _EMAIL.fullmatch(value) is not None:
        return False
    inner = sum(1 for c in value[1:-1] if c in _SYMBOLS)
    last = value[-1] in _SYMBOLS
    if inner and ((upper and lower) or inner + last >= 2):
        return True
    return last and upper and lower and frozenset(value[:-1]) <= _ALNUM


def _trimmed(data: bytes, a: int, b: int) -> tuple[int, int]:
    """The word without the quotes, brackets and punctuation around it (JSON-escaped too)."""
    while a < b and (data[a] in _OPEN or data.startswith((b'\\"', b"\\'"), a)):
        a += 2 if data[a] == 0x5C else 1
    while b > a and (data[b - 1] in _CLOSE or data[b - 1] == 0x5C):
        b -= 1
    return a, b


def _pieces(data: bytes, a: int, b: int) -> Iterator[tuple[int, int]]:
    """The word from ``a`` to ``b``, or the parts its quotes set apart (``set("X", …)``), trimmed."""
    word = data[a:b]
    if not _QUOTES.intersection(word[1:-1]):
        yield _trimmed(data, a, b)
        return
    at = a
    for q in _QUOTE.finditer(data, a, b):
        if q.start() > at:
            yield _trimmed(data, at, q.start())
        at = q.end()
    if b > at:
        yield _trimmed(data, at, b)


def _first(
    data: bytes, lo: int, hi: int, *, last: bool = False, tokens: bool = True
) -> tuple[int, int] | None:
    """The first (or last) word between ``lo`` and ``hi`` shaped as a credential."""
    found = None
    for m in _WORD.finditer(data, lo, hi):
        if m.end() == hi and hi < len(data) and data[hi] in _ALNUM:
            break  # cut by the window: not a word
        if _DIGIT.isdisjoint(m.group()):
            continue  # no piece of it is shaped (``shaped`` wants a digit)
        for a, b in _pieces(data, m.start(), m.end()):
            sign = _SIGN.search(data, a, b)
            if sign is not None and shaped(data[sign.end() : b], tokens=tokens):
                a = sign.end()  # pass:X, jo:X, password=X: the value, not its name
            if shaped(data[a:b], tokens=tokens):
                found = (a, b)
                if not last:
                    return found
    return found


def _noun_end(data: bytes, start: int) -> int:
    """Where the noun starting at ``start`` ends, its ASCII ending included; -1 if none does."""
    for cue in _BY_HEAD.get(data[start : start + 2].lower(), ()):
        end = start + len(cue)
        if data[start:end].lower() == cue:
            break
    else:
        return -1
    if cue in _WHOLE and start > 0 and data[start - 1] in _ALNUM:
        return -1  # pin of spinning, key of monkey
    tail = end
    while tail < len(data) and tail - end < 4 and data[tail] in _LETTERS:
        tail += 1
    if cue in _WHOLE and (
        data[end:tail] not in (b"", b"s", b"S") or data[tail : tail + 1] in _DIGITS
    ):
        return -1  # key of keyboard, pin of pinned
    return tail if cue.isascii() else end


def _lead(data: bytes, lo: int, start: int) -> int:
    """The start of the line ``start`` is on, or ``lo`` if it begins before (0 at a buffer's
    start: a noun on the first line is read from its first byte)."""
    last = _LAST_END.match(data, lo, start)
    return max(lo, last.end() if last is not None else 0)


_LAST_END: Final = re.compile(rb"[\s\S]*(?:\n|\r|\\[nr]|\x00|\xff)")
"""The text up to the end of the last line break in it: the greedy head leaves the break that
starts last, which no other break ends after."""


def _after_colon(data: bytes, end: int, hi: int) -> tuple[int, int] | None:
    """``NOUN: X`` (``нууц үг: X``, ``jelszava: X``): in a value's position, a word of both cases
    and digits is enough (``kewNt3BsJs.US-``), not an identifier's words."""
    m = _COLON_VALUE.match(data, end, hi)
    if m is None:
        return None
    a, b = _trimmed(data, m.start(1), m.end(1))
    value = data[a:b]
    chars = frozenset(value)
    if (
        len(value) >= 8
        and not chars.isdisjoint(_UPPER)
        and not chars.isdisjoint(_LOWER)
        and not chars.isdisjoint(_DIGIT)
        and chars.isdisjoint(_BRACKETS)
        and value[0] not in _REFERENCE_HEADS
        and not any(c in value for c in _CODE)
        and sum(len(w) for w in _WORDS_IN.findall(value)) * 5 < len(value) * 2
    ):
        return a, b
    return None


def _sentence(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start = m.start()
    lo = max(0, start - _BEFORE)
    spend(_BEFORE + _AFTER)
    end = _noun_end(data, start)
    if end < 0 or data.startswith(b"[secret redacted", start - 1):
        return None  # the redaction's own words, read again by the audit
    stop = _BREAK.search(data, end, end + _AFTER)
    hi = stop.start() if stop is not None else min(len(data), end + _AFTER)
    lo = _lead(data, lo, start)
    if not _plausible(data, lo, hi):
        return None  # a table's header, a line of words: nothing on the noun's line to read
    head = start
    while head > lo and data[head - 1] in _NAME:
        head -= 1
    word = data[head:end]
    if word.isalnum() and not _DIGIT.isdisjoint(word):
        return None  # inside a random word (base64, a hash)
    # ``Idempotency-Key: X``: a name's value is the name grammar's, but for a password's shape
    tail = end
    while tail < hi and data[tail] in _NAME:
        tail += 1
    name = data[head:tail]
    named = (
        head < start or _CAMEL.search(name) is not None or not name.isalpha()
    ) and _ASSIGN.match(data, tail) is not None
    span = (
        _first(data, end, hi, tokens=not named)
        or _after_colon(data, end, hi)
        or _first(data, lo, start, last=True)
    )
    if span is None:
        return None
    a, b = span
    return Hit("credential-assignment", a, b, data[a:b])


def sentence_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [Pass(_ANY, _sentence, anchor=re.compile(SENTENCE_GATE), gate=(SENTENCE_GATE, 0, 0))]
