"""Decoders of encoded regions: what URL-encoded, escaped, base64, base32, hex and compressed text holds.

The scanner (``_secrets``) finds where an encoded region may start (``PERCENT``,
``ESCAPE_START``, runs of base64) and hands the region to these functions: each decodes one
encoding (URL-encoding as many times as it was applied, ``\\uXXXX``/``\\xXX``/octal escapes
at any depth of backslashes, base64 in either alphabet and any alignment, base32 in either case
(in C, by ``int``), hex, and gzip, zlib or bzip2 inflated within ``INFLATE_MAX`` and
``INFLATE_RATIO``; ``unwrap`` says what decoded bytes hold: a compressed or raw deflate stream,
UTF-16 text), and ``known_forms`` gives
the byte strings a known credential can appear as (cased, escaped, URL-encoded, base64 at each
alignment). Decoded bytes are counted by the work counter (``_work``).
"""

from __future__ import annotations

import base64
import binascii
import bz2
import html
import json
import re
import zlib
from array import array
from typing import Final
from urllib.parse import quote, quote_plus, unquote_to_bytes

import pybase64

from ._work import spend

__all__ = [
    "BASE32",
    "BASE32_LOWER",
    "ENCODED_MIN",
    "ENTITY_GATE",
    "ENTITY_START",
    "ENTITY_TOKEN",
    "ESCAPED_TOKEN",
    "ESCAPED_TOKEN_MAX",
    "ESCAPE_GATE",
    "ESCAPE_START",
    "HEX_MIN",
    "INFLATE_MAX",
    "INFLATE_RATIO",
    "PERCENT",
    "PERCENT_GATE",
    "RAW_DEFLATE_MAX",
    "URL_TABLE",
    "around_value",
    "b32_decode",
    "b64_decode",
    "base32_text",
    "decode_escapes",
    "decode_references",
    "expand",
    "hex_decode",
    "inflate",
    "is_text",
    "known_forms",
    "padded",
    "percent_decode",
    "reference_start",
    "spells_token",
    "textual",
    "unwrap",
    "widened",
]


_URL_BYTE: Final = rb"[A-Za-z0-9._~+\-%]"
PERCENT = re.compile(
    rb"(?<=" + _URL_BYTE + rb")%[0-9A-Fa-f]{2}|%[0-9A-Fa-f]{2}(?=" + _URL_BYTE + rb")"
)
"""A percent escape with a URL byte next to it: an escape alone (``%2D``) is shorter than
``ENCODED_MIN`` and is not decoded, so a text of lone escapes costs no decoding step."""
PERCENT_GATE: Final = _URL_BYTE + rb"%[0-9A-Fa-f]{2}|%[0-9A-Fa-f]{2}" + _URL_BYTE
"""``PERCENT`` without lookarounds (hyperscan has none): the same places, one byte wider."""

_ESCAPE: Final = rb"(?:u[0-9A-Fa-f]{4}|[ux]\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|[0-3][0-7]{2})"
_TOKEN_BYTE: Final = rb"[A-Za-z0-9._~+%\-/:=]"
ESCAPE_START = re.compile(
    rb"(?<="
    + _TOKEN_BYTE
    + rb")\\{1,8}"
    + _ESCAPE
    + rb"|\\{1,8}"
    + _ESCAPE
    + rb"(?="
    + _TOKEN_BYTE
    + rb"|\\)"
)
"""Where an escaped token may start: ``\\u0073`` or ``\\x73`` (one pass finds both), next to a
token byte or another escape. An escape alone (`` \\u0073 ``) decodes to one character, no
secret, so a text of lone escapes costs no decoding step. The match starts at the escape's
first backslash."""
ESCAPE_GATE: Final = (
    _TOKEN_BYTE + rb"\\{1,8}" + _ESCAPE + rb"|\\" + _ESCAPE + rb"(?:" + _TOKEN_BYTE + rb"|\\)"
)
"""``ESCAPE_START`` without lookarounds (hyperscan has none): the same places."""

# a token written with escapes: any depth of backslashes (JSON doubles them at each level)
# octal as printf and C read it: up to three digits, so ``\\75`` is ``=`` inside a token (a token
# starts at a three-digit escape: letters are three digits, and ``\\1`` alone is a regex's group)
ESCAPED_TOKEN = re.compile(
    rb"(?:[A-Za-z0-9._~+%\-/:= ]|\\{1,8}(?:u[0-9A-Fa-f]{4}|[ux]\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|[0-3][0-7]{2}|[0-7]{1,2}|/))+"
)

_ESCAPE_SUB = re.compile(
    rb"\\{1,8}(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|([0-3][0-7]{2}|[0-7]{1,2}(?![0-7]))|[ux]\{([0-9A-Fa-f]{1,6})\}|/)"
)

_AMPERSAND: Final = rb"(?:&|\\{1,8}u0026)"
_CHAR_REF: Final = rb"#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6})"
ENTITY_START = re.compile(
    _AMPERSAND
    + rb"#(?:0*(?:4[89]|5[0-7]|6[5-9]|[78][0-9]|9[07-9]|1[01][0-9]|12[0-2])(?![0-9])"
    + rb"|[xX]0*(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa])(?![0-9A-Fa-f]))"
)
"""Where a token written with HTML numeric character references may start: a reference to an
ASCII letter or digit (``&#80;``, ``&#x50;``, ``&#X50``; in JSON from Go or PHP the ``&`` is
``\\u0026``). Typography (``&#39;``, ``&#8212;``, ``&#169;``) starts none."""
ENTITY_GATE: Final = rb"&#[0-9xX]|u0026#[0-9xX]"
"""``ENTITY_START`` for the gate: text without ``&#`` decodes nothing and costs nothing more."""
_REF_PLAIN: Final = rb"[A-Za-z0-9_.~+%\-/:=!@$*^,?#|]"
ENTITY_TOKEN = re.compile(
    rb"(?:"
    + _AMPERSAND
    + rb"(?:"
    + _CHAR_REF
    + rb";?|[A-Za-z][A-Za-z0-9]{1,31};)|"
    + _REF_PLAIN
    + rb")+"
)
"""A token written with character references, numeric (the ``;`` optional, as browsers read
them) or named (``&amp;``, with its ``;``), among plain token bytes."""
_REF_TABLE: Final = bytes(
    0x61
    if b in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~+-%&#;!@$*^"
    else 0x20
    for b in range(256)
)
_REF_AMPERSAND: Final = re.compile(rb"\\{1,8}u0026")


def reference_start(data: bytes, first: int, floor: int = 0, limit: int = 4096) -> int:
    """Where the token holding the character reference at ``first`` starts: the token bytes and
    references before it (``Hy7&amp;Rw2&#107;`` starts at ``H``), at most ``limit`` bytes back and
    not before ``floor`` (the end of the token before: each byte is looked at once)."""
    lo = max(0, floor, first - limit)
    head = data[lo:first].translate(_REF_TABLE)
    cut = head.rfind(b" ") + 1
    while cut < len(head) and data[lo + cut] in b"&#;":
        cut += 1  # a token does not start with a reference's tail
    return lo + cut


_REF_CODE: Final = re.compile(rb"#(?:([0-9]{1,7})|[xX]([0-9A-Fa-f]{1,6}))")
_ALNUM_CODES: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def spells_token(token: bytes) -> bool:
    """Two or more of ``token``'s numeric references stand for ASCII letters or digits: a token
    written in references (``&#80;&#105;``), not typography (``Caf&#233;``, ``don&#39;t``,
    ``&#8212;``), which costs no decoding and no scan."""
    found = 0
    for m in _REF_CODE.finditer(token):
        decimal, hexa = m.groups()
        code = int(decimal) if decimal is not None else int(hexa, 16)
        if code in _ALNUM_CODES:
            found += 1
            if found == 2:
                return True
    return False


def decode_references(token: bytes) -> bytes:
    """HTML character references decoded as a browser decodes them (``html.unescape``: numeric
    with or without ``;``, named, Windows-1252 for 128-159), ``\\u0026`` read as ``&``."""
    text = _REF_AMPERSAND.sub(b"&", token).decode("latin-1")
    return html.unescape(text).encode("utf-8", "surrogatepass")


ESCAPED_TOKEN_MAX: Final = 4096
"""Longest escaped token decoded, in bytes of its escaped form."""

ENCODED_MIN: Final = 8
"""Shorter encoded tokens are not decoded: they cannot hold a secret (the shortest is 6 bytes)."""

INFLATE_MAX: Final = 1 << 22
"""Most bytes one gzip or zlib stream is inflated to (a bomb is cut there)."""

INFLATE_RATIO: Final = 16
"""... and at most this many times its compressed size."""

_HEX_RUN: Final = b"0123456789abcdefABCDEF"

HEX_MIN: Final = 32
"""Shortest hex run decoded (16 bytes: shorter hex is an id or a colour, not an encoded key)."""

_URLSAFE_TO_STD: Final = bytes.maketrans(b"-_", b"+/")

URL_TABLE: Final = bytes(
    0x61 if b in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+-%" else 0x20
    for b in range(256)
)


def expand(marks: bytes, start: int, end: int, limit: int = 4096) -> tuple[int, int]:
    """Grow ``[start, end)`` over neighbouring URL-token bytes (at most ``limit`` each way);
    ``marks`` is the data translated by ``URL_TABLE`` (a space where a token must stop)."""
    lo = marks.rfind(b" ", max(0, start - limit), start) + 1 or max(0, start - limit)
    hi = marks.find(b" ", end, min(len(marks), end + limit))
    if hi < 0:
        hi = min(len(marks), end + limit)
    return lo, hi


def padded(data: bytes, end: int, most: int = 2) -> int:
    """``end`` moved past the base64 (or base32) padding that follows a run (``=`` is not a run byte)."""
    stop = min(end + most, len(data))
    while end < stop and data[end] == 0x3D:
        end += 1
    return end


def decode_escapes(token: bytes) -> bytes:
    """``\\uXXXX``, ``\\u{X…}``, ``\\xXX``, ``\\x{X…}``, octal ``\\NNN`` and ``\\/`` decoded, at any depth
    of backslashes."""

    def one(m: re.Match[bytes]) -> bytes:
        if m.group(1) is not None:
            return chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass")
        if m.group(2) is not None:
            return bytes((int(m.group(2), 16),))
        if m.group(3) is not None:
            return bytes((int(m.group(3), 8),))
        if m.group(4) is not None:  # \u{6e} (JavaScript, Rust, Swift), \x{6e} (Perl, PHP)
            code = int(m.group(4), 16)
            return chr(code).encode("utf-8", "surrogatepass") if code <= 0x10FFFF else m.group()
        return b"/"

    return _ESCAPE_SUB.sub(one, token)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def percent_decode(token: bytes) -> bytes:
    """URL-decoded as many times as it was encoded (``%253D`` → ``%3D`` → ``=``), at most three; not
    once more when that breaks text (``%25E5x``: ``%E5x`` is a value holding ``%``, not a byte)."""
    for round_ in range(3):
        decoded = unquote_to_bytes(token)
        if decoded == token:
            break
        if round_ and not _utf8(decoded):
            break
        token = decoded
        if b"%" not in token:
            break
    return token


def inflate(data: bytes) -> bytes | None:
    """A gzip, zlib or bzip2 stream inflated, bounded by ``INFLATE_MAX`` and ``INFLATE_RATIO``."""
    if data[:3] == b"BZh" and data[4:10] == b"1AY&SY":
        limit = min(INFLATE_MAX, INFLATE_RATIO * len(data) + 4096)
        try:
            out = bz2.BZ2Decompressor().decompress(data, limit)
        except (OSError, ValueError):
            return None
        spend(len(data) + len(out))
        return out or None
    if data[:2] == b"\x1f\x8b":
        wbits = 31
    elif len(data) >= 2 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0:
        wbits = 15
    else:
        return None
    limit = min(INFLATE_MAX, INFLATE_RATIO * len(data) + 4096)
    try:
        out = zlib.decompressobj(wbits).decompress(data, limit)
    except zlib.error:
        return None
    spend(len(data) + len(out))
    return out or None


RAW_DEFLATE_MAX: Final = 1 << 16
"""Longest binary tried as a raw deflate stream (no header says it is one), in bytes."""
_WIDE_MIN: Final = 16


def widened(data: bytes) -> bytes | None:
    """UTF-16 text (ASCII with a NUL beside nine in ten of its characters, or a byte-order mark)
    as UTF-8: what PowerShell's ``-EncodedCommand`` and Windows tools write; else None."""
    if len(data) < _WIDE_MIN or b"\x00" not in data[:64]:
        return None
    even, odd = data[0::2], data[1::2]
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16"
    elif odd.count(0) * 10 >= len(odd) * 9 and textual(even):
        codec = "utf-16-le"
    elif even.count(0) * 10 >= len(even) * 9 and textual(odd):
        codec = "utf-16-be"
    else:
        return None
    spend(len(data))
    return data[: len(data) & ~1].decode(codec, "replace").encode("utf-8")


def unwrap(decoded: bytes, encoding: str) -> tuple[bytes, str, bool]:
    """What decoded bytes hold, the encoding that says how, and whether it is text: a gzip, zlib or
    bzip2 stream inflated (``gzip+``), UTF-16 made UTF-8 (``utf-16+``), or binary that inflates as
    a raw deflate stream to text (``deflate+``); else the bytes as they are."""
    inflated = inflate(decoded) if len(decoded) >= 18 else None
    if inflated is not None:
        decoded, encoding = inflated, "gzip+" + encoding
    text = is_text(decoded)
    if not text and 8 <= len(decoded) <= RAW_DEFLATE_MAX and _deflate_head(decoded):
        raw = _inflate_raw(decoded)
        if raw is not None:
            decoded, encoding, text = raw, "deflate+" + encoding, True
    if (text and b"\x00" in decoded[:64]) or decoded[:2] in (b"\xff\xfe", b"\xfe\xff"):
        wide = widened(decoded)
        if wide is not None:
            return wide, "utf-16+" + encoding, True
    return decoded, encoding, text


def _deflate_head(data: bytes) -> bool:
    """The first block header of a raw deflate stream can be ``data``'s: not the reserved block
    type, and a stored block's length next to its complement."""
    kind = data[0] >> 1 & 3
    return kind in (1, 2) or (
        kind == 0 and len(data) >= 5 and data[1] ^ data[3] == 0xFF and data[2] ^ data[4] == 0xFF
    )


def _inflate_raw(data: bytes) -> bytes | None:
    """``data`` as a raw deflate stream (no header), inflated within the bounds, when that gives
    text (random bytes often start a valid stream and give noise)."""
    limit = min(INFLATE_MAX, INFLATE_RATIO * len(data) + 4096)
    try:
        out = zlib.decompressobj(-15).decompress(data, limit)
    except zlib.error:
        return None
    spend(len(data) + len(out))
    return out if len(out) >= 8 and (textual(out) or widened(out) is not None) else None


def hex_decode(run: bytes) -> bytes | None:
    """``run`` as hex (at least ``HEX_MIN`` digits, an odd last one dropped), or None when it is
    not all hex digits (its head is looked at first: a chunk of base64 has a letter past ``f``
    within a few bytes, and the whole chunk need not be copied to say so)."""
    if len(run) < HEX_MIN or run[:64].translate(None, _HEX_RUN) or run.translate(None, _HEX_RUN):
        return None
    try:
        return binascii.unhexlify(run[: len(run) & ~1])
    except binascii.Error:
        return None


def textual(decoded: bytes) -> bool:
    """Mostly printable ASCII: decoded text worth scanning, not random bytes."""
    if not decoded:
        return False
    printable = len(decoded.translate(None, _CONTROL))
    return printable * 10 >= len(decoded) * 9


_NEVER_UTF8: Final = bytes((0xC0, 0xC1, *range(0xF5, 0x100)))
"""Bytes no UTF-8 text holds: binary is told apart without a decoding attempt, most of the time."""


def is_text(decoded: bytes) -> bool:
    """ASCII, or UTF-8 text (a key with a zero-width space decodes to that), possibly cut inside
    its last character (a piece of a longer text: a wrapped block without its short last line)."""
    if decoded.isascii():
        return True
    if len(decoded.translate(None, _NEVER_UTF8)) < len(decoded):
        return False
    try:
        decoded.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data" and exc.start >= len(decoded) - 3
    return True


_CONTROL: Final = bytes(b for b in range(256) if not (32 <= b < 127 or b in b"\t\n\r"))

BASE32: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
BASE32_LOWER: Final = BASE32.lower()


def base32_text(text: bytes) -> bool:
    """All of base32's alphabet in one case (its head looked at first: base64 has a letter of the
    other case within a few bytes)."""
    alphabet = BASE32 if text[:1].isupper() else BASE32_LOWER
    return not text[:64].translate(None, alphabet) and not text.translate(None, alphabet)


_B32_TO_DIGITS: Final = bytes.maketrans(
    BASE32 + BASE32_LOWER, b"0123456789ABCDEFGHIJKLMNOPQRSTUV" * 2
)
"""Base32's alphabet as the digits ``int(…, 32)`` reads (C-level; ``base64.b32decode`` is Python)."""


def b32_decode(run: bytes) -> bytes | None:
    """Base32, either case, padded or not, decoded by ``int``; None when ``run`` is not base32."""
    run = run.rstrip(b"=")
    while len(run) % 8 in (1, 3, 6):
        run = run[:-1]  # a partial quantum carries no whole byte
    if not run or run.translate(None, BASE32 + BASE32_LOWER):
        return None
    size, spare = divmod(len(run) * 5, 8)
    return (int(run.translate(_B32_TO_DIGITS), 32) >> spare).to_bytes(size, "big")


def b64_decode(run: bytes) -> bytes | None:
    if b"-" in run or b"_" in run:
        if b"+" in run or b"/" in run:
            return None  # both alphabets: a path or an identifier, not base64
        run = run.translate(_URLSAFE_TO_STD)
    # the run stops before "=" padding: pad again (a lone trailing character carries no byte)
    rest = len(run) % 4
    run = run[:-1] if rest == 1 else run + b"=" * ((4 - rest) % 4)
    try:  # SIMD, for text of the base64 alphabet only (everything a run holds, mostly)
        return pybase64.b64decode(run, validate=True)
    except binascii.Error:
        pass
    try:  # binascii leaves out what is not base64
        return binascii.a2b_base64(run)
    except binascii.Error:
        return None


def known_forms(secret: str) -> list[tuple[bytes, str]]:
    """The byte strings a known secret can appear as, with the name of each encoding."""
    raw = secret.encode("utf-8")
    forms: list[tuple[bytes, str]] = [(raw, "plain")]
    for cased in (secret.lower(), secret.upper()):
        forms.append((cased.encode("utf-8"), "case"))
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    forms.append((escaped.encode("utf-8"), "json-escape"))
    forms.append((json.dumps(secret)[1:-1].encode("ascii"), "json-escape"))
    forms.append((html.escape(secret, quote=True).encode("utf-8"), "html-escape"))
    forms.append((quote(secret, safe="").encode("ascii"), "percent"))
    forms.append((quote_plus(secret, safe="").encode("ascii"), "percent"))
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw)
        # drop the characters that also carry bits of the unknown bytes before and after
        first = (0, 2, 3)[k]
        last = (k + len(raw)) * 8 // 6
        core = encoded[first:last]
        if len(core) >= 4:
            forms.append((core, "base64"))
            forms.append((core.translate(bytes.maketrans(b"+/", b"-_")), "base64"))
    # each form once more JSON-escaped: the scanned bytes are often JSON holding that text
    for form, _ in list(forms):
        twice = json.dumps(form.decode("utf-8"), ensure_ascii=False)[1:-1].encode("utf-8")
        if twice != form:
            forms.append((twice, "json-escape"))
    return forms


_AROUND_BEFORE: Final = 48
_AROUND_AFTER: Final = 24
_BREAK_BYTES: Final = re.compile(rb"[\r\n\x00\xff]|\\[nr]")
_DECODING_CALL: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_.:\[\]]*\([ \t]*(\\{0,3}['\"]?)\Z")
"""A call whose argument the encoded bytes are (``atob('``, ``CHAR(``, ``FromBase64String('``)."""
_PIPED_INTO: Final = re.compile(
    rb"\$\((?:echo(?:[ \t]+-[ne]{1,2})?|printf(?:[ \t]+\\{0,3}['\"]?%s\\{0,3}['\"]?)?)"
    rb"[ \t]+\\{0,3}['\"]?\Z"
)
"""A command substitution that prints the encoded bytes (``$(echo ``, ``$(printf '%s' ``)…"""
_DECODER_AFTER: Final = re.compile(
    rb"\\{0,3}['\"]?[ \t]*\|[ \t]*(?:xxd[ \t]+-(?:r[ \t]+-)?[rp]{1,2}|base64[ \t]+(?:-d|--decode)"
    rb"|openssl[ \t]+(?:base64|enc[ \t]+-base64)[ \t]+-d)"
)
"""… into a decoder (``| xxd -r -p``, ``| base64 -d``, ``| openssl base64 -d``)."""


def around_value(
    data: bytes, start: int, end: int, floor: int = 0, ceiling: int | None = None
) -> tuple[bytes, bytes]:
    """The text of the line before ``data[start:end]`` (at most ``_AROUND_BEFORE`` bytes, none
    before ``floor``) and the few bytes after it (at most ``_AROUND_AFTER``, none from
    ``ceiling`` on), each cut at a line break."""
    head = data[max(floor, start - _AROUND_BEFORE) : start]
    cuts = [m.end() for m in _BREAK_BYTES.finditer(head)]
    head = head[cuts[-1] :] if cuts else head
    head = head.rstrip(
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
    )  # 0x|67,…: no word runs on
    tail = data[end : min(end + _AROUND_AFTER, len(data) if ceiling is None else ceiling)]
    cut = _BREAK_BYTES.search(tail)
    tail = tail[: cut.start()] if cut is not None else tail
    call = _DECODING_CALL.search(head)
    if call is not None:  # api_key = CHAR(…), key = atob('…'): the decoded text is the value
        head = head[: call.start()] + call.group(1)
    elif head.rstrip(b" ").endswith(b"::"):  # LDIF's NAME:: base64 (RFC 2849): NAME: text
        head = head[: head.rindex(b"::") + 1] + b" "
    else:
        piped = _PIPED_INTO.search(head)
        if piped is not None and _DECODER_AFTER.match(tail) is not None:
            head = head[: piped.start()]  # NAME=$(echo … | xxd -r -p): the decoded text
    return head, tail


class Placed:
    """Decoded pieces as their scan needs them once their texts are joined, in arrays (a dense
    input decodes thousands: a tuple each would hold more than the input): for piece ``i``, the
    span it was decoded from (``span(i)``), its encoding, and where its decoded text lies in its
    scanned text (``bounds(i)``)."""

    __slots__ = ("_bounds", "_spans", "encodings")

    def __init__(self) -> None:
        self._spans = array("q")
        self._bounds = array("q")
        self.encodings: list[str] = []

    def __len__(self) -> int:
        return len(self.encodings)

    def add(self, span: tuple[int, int], bounds: tuple[int, int], encoding: str) -> None:
        self._spans.extend(span)
        self._bounds.extend(bounds)
        self.encodings.append(encoding)

    def span(self, i: int) -> tuple[int, int]:
        return self._spans[2 * i], self._spans[2 * i + 1]

    def bounds(self, i: int) -> tuple[int, int]:
        return self._bounds[2 * i], self._bounds[2 * i + 1]


def placed(
    data: bytes, pieces: list[tuple[int, int, bytes, str]], keywords: bool
) -> tuple[list[bytes], Placed]:
    """The decoded ``pieces`` (``(start, end, text, encoding)``, emptied: the texts hold their
    bytes now) as they are scanned, and where each came from and where its decoded text lies in
    its scanned text. A decoded value of one line is read in its place (``around_value``: ``const
    key = atob('…')``, ``pw = "\\121…";``), so its name, quotes and position count as for the
    plain value; text of several lines carries its own.

    The text around a piece stops at its neighbours of the same decoder (pieces one decoder found
    come in order): a text dense with escaped tokens (``\\u0041\\u0042,`` over and over) would
    otherwise carry each neighbour's escapes around every piece, decoded again at each depth
    (a 64 KB text held 789 times its size)."""
    texts: list[bytes] = []
    where = Placed()
    floor = 0
    for i, (start, end, text, encoding) in enumerate(pieces):
        after = pieces[i + 1][0] if i + 1 < len(pieces) else len(data)
        after = after if after >= end else len(data)
        head, tail = (
            around_value(data, start, end, floor if floor <= start else 0, after)
            if keywords and b"\n" not in text
            else (b"", b"")
        )
        floor = end
        texts.append(head + text + tail)
        where.add((start, end), (len(head), len(head) + len(text)), encoding)
    pieces.clear()
    return texts, where
