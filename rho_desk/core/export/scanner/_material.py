"""Key material and one-time codes written as data: no name beside them, the structure says it.

A key or a code is often not a value under a name but lines of their own, and what says so is
around them, not on their line:

* **an armored block whose label names secret material** (``-----BEGIN USER NKEY SEED-----``,
  ``-----BEGIN OpenVPN tls-crypt-v2 client key-----``, ``----- BEGIN LICENSE -----``, ``--- BEGIN
  LICENSE KEY ---``): the lines of base64, base32 or hex groups between it and its ``END`` line
  (a ``PRIVATE KEY`` block is ``_pem``'s; a ``PUBLIC`` one, a certificate or a signature is none);
* **a google-authenticator file**: the base32 seed on the line before its ``" RATE_LIMIT``,
  ``" TOTP_AUTH`` option lines, and the 8-digit scratch codes after them;
* **codes listed under a heading naming them** (``Your GitHub recovery codes. Keep them …``,
  ``BACKUP VERIFICATION CODES``, ``Discord Backup Codes``): the code lines after it (a few lines
  of other text, an address or a blank line, may come first), numbered, bulleted or two to a
  line; each code holds a digit;
* **a key as spaced hex bytes after a label naming it** (``MK dump:\t4e 9a 17 …`` and the lines of
  bytes after it), not a public one;
* **a key in hex beside its cipher** (``klist -K``'s ``(aes256-cts-hmac-sha1-96)  (0x…)``, ``ip
  xfrm state``'s ``enc cbc(aes) 0x…``, ``dmsetup table --showkeys``' ``crypt aes-xts-plain64
  …``), or in parentheses after a Kerberos principal's realm (``ktutil``'s ``user@REALM (0x…)``);
* **a key as a list of byte values under a key's name** (``network_key: [171, 204, …]``,
  ``APPKEY[16] = { 0x8A, … }``, ``byte[] HMAC_KEY = {-12, 45, …}``): eight to 64 values, mostly
  distinct, some past 127 (or negative): random bytes, not a table of small numbers.

A command's output is read by ``_printers`` (``borg key export``, ``cat …/keyfile``); these rules
read the text itself, wherever it is (a file read, a note written, a user's message). Each is a
keyword pass whose gate holds its whole shape, so text without it costs nothing; random base64
lines (a blob) are never read here unless an armor line or a heading stands above them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Final

from ._catalogue import Hit
from ._lines import ROW
from ._rules import Pass
from ._work import spend

__all__ = ["material_passes"]

_LINES_MAX: Final = 64
"""Lines read after an armor line or a heading."""
_LINE_MAX: Final = 512
"""Bytes a line of key material or codes can span."""
_EOL: Final = re.compile(rb"(?:\\{1,7}r)?\\{1,7}n|\r?\n|[\x00\xff]")
"""A line's end: a break, raw or JSON-escaped (at any depth), or a separator."""
_QUOTE: Final = re.compile(rb"\\{0,7}\"")


_JSON_HEAD: Final = re.compile(rb'[ \t]*[\[{,]?[ \t]*"[A-Za-z0-9_.\-]{1,40}"[ \t]*:[ \t]*"')
"""The head of a JSON member whose string holds the text (``"content": "``, ``{"body": "``)."""
_JSON_CLOSE: Final = re.compile(rb'(?<!\\)"[ \t]*(?:[,}\]]|$)')
"""The quote that ends a JSON string, and what follows one."""


def _content(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The content of the line ``data[start:end]``: without the head of a JSON string that opens
    on it, its row wrapper (``12:``, ``path:12:``) or a diff's ``+``, and the quote that ends the
    JSON string on it."""
    head = _JSON_HEAD.match(data, start, end)
    if head is not None:
        start = head.end()
    row = ROW.match(data, start, end)
    if row is not None:
        start = row.end()
    if start < end and data[start] == 0x2B and data[start + 1 : start + 2] != b"+":
        start += 1  # a diff's added line
    close = _JSON_CLOSE.search(data, start, end)
    return start, close.start() if close is not None else end


def _lines(data: bytes, pos: int, count: int) -> list[tuple[int, int]]:
    """The content spans (``_content``) of up to ``count`` lines after the line holding ``pos``."""
    out: list[tuple[int, int]] = []
    m = _EOL.search(data, pos, pos + _LINE_MAX)
    if m is None or data[m.start()] in (0x00, 0xFF):
        return out
    at = m.end()
    while len(out) < count and at < len(data):
        m = _EOL.search(data, at, at + _LINE_MAX)
        end = m.start() if m is not None else min(len(data), at + _LINE_MAX)
        out.append(_content(data, at, end))
        if m is None or data[m.start()] in (0x00, 0xFF):
            break
        at = m.end()
    spend(at - pos)
    return out


def _line_start(data: bytes, pos: int) -> int:
    """Where the content of the line holding ``pos`` starts (``_content``)."""
    lo = max(0, pos - _LINE_MAX)
    start = lo
    for m in _EOL.finditer(data, lo, pos):
        start = m.end()
    return _content(data, start, pos)[0]


# --- armored blocks -----------------------------------------------------------------------------

_ARMOR_WORDS: Final = rb"(?:seed|secret|licen[cs]e|password|[a-z0-9\-]{2,24}[ \t]key)"
"""What a label naming secret material ends with: a seed, a secret, a licence, a password, a key
of any kind (``Static key``, ``tls-crypt-v2 client key``, ``NKEY SEED``); words after it may
follow (``Static key V1``, ``MASTER KEY BLOCK``)."""
_ARMOR: Final = re.compile(
    rb"-{3}[ \t]?begin[ \t](?P<label>[^\r\n\x00\xff\\]{0,60}?" + _ARMOR_WORDS + rb")",
    re.IGNORECASE,
)
_ARMOR_TAIL: Final = (
    rb"(?:[a-z0-9] seed|secret|icense|icence|ssword|(?:[a-su-z0-9][a-z0-9]|t[a-df-z0-9]) key)"
)
"""The last six bytes of a label ``_ARMOR_WORDS`` ends with (not ``te key``: ``PRIVATE KEY`` is
``_pem``'s, and a line of such headers is no work here)."""
_ARMOR_GATES: Final = (
    _ARMOR_TAIL + rb"-{3}",
    _ARMOR_TAIL + rb"(?:[ \t][a-z0-9.]{1,8})?[ \t]?-{3}",
)
"""The label's end and the dashes after it, joined or apart (``----- BEGIN LICENSE -----``), or a
word after it (``Static key V1-----``, ``KEY BLOCK-----``)."""
_NOT_SECRET_LABEL: Final = re.compile(
    rb"public|certificate|signature|private|message|request|parameters", re.IGNORECASE
)
_ARMOR_END: Final = re.compile(rb"[ \t]*-{3,}[ \t]?end\b", re.IGNORECASE)
_MATERIAL: Final = re.compile(
    rb"[ \t]*(?:[A-Za-z0-9+/=_\-]{16,}|[0-9A-Fa-f]{2,8}(?:[ \t][0-9A-Fa-f]{2,8}){3,})[ \t]*"
)
"""A line of key material: one run of base64, base32 or hex, or hex in groups."""


def _armored(data: bytes, tail: re.Match[bytes]) -> Hit | None:
    """The material lines of an armored block whose label (ending at ``tail``) names secret
    material."""
    m = _ARMOR.search(data, _line_start(data, tail.start()), tail.end())
    if m is None or _NOT_SECRET_LABEL.search(m.group("label")) is not None:
        return None
    first = last = -1
    for start, end in _lines(data, m.end(), _LINES_MAX):
        if _ARMOR_END.match(data, start, end) is not None:
            break
        if _MATERIAL.fullmatch(data, start, end) is not None:
            if first < 0:
                first = start
            last = end
    if first < 0:
        return None
    return Hit("key-material", first, last, data[first:last])


# --- a google-authenticator file ----------------------------------------------------------------

_OPTION: Final = (
    rb"\"[ \t](?:RATE_LIMIT|WINDOW_SIZE|DISALLOW_REUSE|TOTP_AUTH|HOTP_COUNTER|STEP_SIZE)"
)
_OPTION_LINE: Final = re.compile(rb"[ \t]*\\{0,7}" + _OPTION)
_GAUTH: Final = re.compile(_OPTION)
_GAUTH_GATE: Final = rb"\"[ \t](?:RATE_|WINDO|DISAL|TOTP_|HOTP_|STEP_)"
"""``_OPTION``'s head, of one width."""
_SEED: Final = re.compile(rb"[ \t]*([A-Z2-7]{16,128})[ \t]*")
_SCRATCH: Final = re.compile(rb"[ \t]*[0-9]{8}[ \t]*")
_BACK_LINES: Final = 12


def _authenticator(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A google-authenticator file: the seed line above its first option line, and the codes
    after its options."""
    here = _line_start(data, m.start())
    seed = -1
    lo = max(0, here - _LINE_MAX)
    breaks = [b for b in _EOL.finditer(data, lo, here)]
    if breaks:
        prev_start, prev_end = _content(
            data, breaks[-2].end() if len(breaks) > 1 else lo, breaks[-1].start()
        )
        if _OPTION_LINE.match(data, prev_start, prev_end) is not None:
            return None  # not the first option line: the first one's call reads the file
        if _SEED.fullmatch(data, prev_start, prev_end) is not None:
            seed = prev_start
    first, last = seed, -1
    for start, end in _lines(data, m.start(), _BACK_LINES):
        if _OPTION_LINE.match(data, start, end) is not None:
            continue
        if _SCRATCH.fullmatch(data, start, end) is None:
            break
        first = start if first < 0 else first
        last = end
    if first < 0:
        return None
    if last < 0:
        eol = _EOL.search(data, first, first + _LINE_MAX)
        last = eol.start() if eol is not None else min(len(data), first + _LINE_MAX)
    return Hit("key-material", first, last, data[first:last])


# --- codes under a heading ----------------------------------------------------------------------

_HEADING_GATE: Final = (
    rb"(?:recovery|backup|scratch|verification|emergency|one-time|single-use)[ \t_\-]codes?"
)
_HEADING: Final = re.compile(_HEADING_GATE, re.IGNORECASE)
_HEADING_TAIL: Final = rb"(?:overy|ackup|ratch|ation|gency|-time|e-use)[ \t_\-]code"
"""The heading's last bytes, of one width (the gate then knows where a match starts)."""
_HEADING_AT: Final = re.compile(_HEADING_TAIL, re.IGNORECASE)
_CODE: Final = rb"([A-Za-z0-9]{3,10}(?:[- ][A-Za-z0-9]{3,10}){0,3})"
_BULLET: Final = rb"(?:(?:[-*]|\xe2\x80\xa2|[0-9]{1,2}[.)])[ \t]+)?"
_CODE_LINE: Final = re.compile(
    rb"[ \t]*" + _BULLET + _CODE + rb"(?:(?:[ \t]{2,}|\t)" + _BULLET + _CODE + rb"){0,3}[ \t]*"
)
_DIGIT: Final = re.compile(rb"[0-9]")
_BEFORE_CODES: Final = 3
"""Lines of other text (an address, a blank line, a sentence) between a heading and its codes."""


def _code_line(data: bytes, start: int, end: int) -> bool:
    """A line of one to four codes: each a digit in every group, or groups of one length, most
    of them holding a digit (``16a90-ffee0``; ``Ticket 4711`` is no code)."""
    m = _CODE_LINE.fullmatch(data, start, end) if end - start <= 120 else None
    if m is None:
        return False
    for code in (g for g in m.groups() if g is not None):
        groups = re.split(rb"[- ]", code)
        with_digit = sum(1 for g in groups if _DIGIT.search(g) is not None)
        if with_digit == len(groups):
            continue
        if len(groups) < 2 or len({len(g) for g in groups}) > 1 or with_digit * 2 < len(groups):
            return False
    return True


def _codes(data: bytes, tail: re.Match[bytes]) -> Hit | None:
    """The code lines after a heading naming recovery or backup codes."""
    m = _HEADING.search(data, max(0, tail.start() - 7), tail.end() + 1)
    if m is None:
        return None  # ``authorization code``, ``error code``
    first = last = -1
    skipped = 0
    for start, end in _lines(data, m.end(), _LINES_MAX):
        if _code_line(data, start, end):
            first = start if first < 0 else first
            last = end
            continue
        if first >= 0:
            break
        skipped += 1
        if skipped > _BEFORE_CODES:
            return None
    if first < 0:
        return None
    return Hit("key-material", first, last, data[first:last])


# --- a hex key beside its cipher ----------------------------------------------------------------

_CIPHER: Final = (
    rb"(?:aes|des|3des|camellia|arcfour|rc4|chacha20|hmac|blowfish|twofish|serpent|sm4)"
    rb"[a-z0-9()_\-]*[ \t]+\(?(?:0x)?"
)
_REALM: Final = rb"@(?-i:[A-Z0-9][A-Z0-9.\-]*)[ \t]+\(0x"
"""A Kerberos principal's realm (upper case), then a key in parentheses (``ktutil``'s ``list -k``)."""
_HEX_KEY: Final = rb"[0-9a-f]{32,128}"
_TAB: Final = rb"(?:[ \t]|\\{1,7}t)"
"""A space or a tab, raw or JSON-escaped."""
_SPACED_HEX: Final = rb"(?:[0-9a-f]{2}" + _TAB + rb"+){7}[0-9a-f]{2}"
_KEY_LABEL: Final = rb"(?:key|mk)(?:[ \t]dump|[ \t]bytes)?[ \t]*:" + _TAB + rb"*"
_KEY_DUMP: Final = re.compile(_KEY_LABEL + rb"(?P<key>" + _SPACED_HEX + rb")", re.IGNORECASE)
_KEY_DUMP_TAIL: Final = rb"(?: dump|e key|bytes):"
"""The end of a key's label, of one width (``MK dump:``, ``Volume key:``, ``Key bytes:``)."""
_KEY_DUMP_AT: Final = re.compile(
    _KEY_DUMP_TAIL + _TAB + rb"*(?P<key>" + _SPACED_HEX + rb")", re.IGNORECASE
)
_DUMP_LINE: Final = re.compile(
    _TAB + rb"*(?:[0-9a-f]{2}" + _TAB + rb"+){7,}[0-9a-f]{2}" + _TAB + rb"*", re.IGNORECASE
)
_PUBLIC_LABEL: Final = re.compile(rb"pub", re.IGNORECASE)
_HEX_BYTE: Final = re.compile(rb"[0-9a-fA-F]{2}")
_CIPHER_BEFORE: Final = re.compile(rb"(?:" + _CIPHER + rb"|" + _REALM + rb")$", re.IGNORECASE)
_HEX_AT: Final = re.compile(rb"[ \t(]0x(?P<key>" + _HEX_KEY + rb")(?![0-9a-z])", re.IGNORECASE)
_HEX_GATE: Final = rb"[ \t(]0x[0-9a-f]{32}"
"""A key's ``0x`` and its first 32 digits, of one width: what stands before it (a cipher, a
realm) is looked for on its line by the pass."""
_CRYPT_AT: Final = re.compile(
    rb" crypt [a-z0-9:\-]{2,40}[ \t]+(?P<key>" + _HEX_KEY + rb")(?![0-9a-z])", re.IGNORECASE
)
_CRYPT_GATE: Final = rb" crypt [a-z]"
"""A dm-crypt table row (``0 N crypt aes-xts-plain64 <key> …``)."""


def _cipher_key(data: bytes, m: re.Match[bytes]) -> Hit | None:
    key = m.group("key")
    if len(key) % 2 or not _random(key):
        return None
    if m.re is _HEX_AT:
        head = max(_line_start(data, m.start()), m.start() - 80)
        if _CIPHER_BEFORE.search(data, head, m.start() + 3) is None:
            return None  # a wallet's address, a hash: no cipher or realm before it
    return Hit("key-material", m.start("key"), m.end("key"), key)


def _key_dump(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A key as spaced hex bytes after a label naming it (``MK dump:``, ``Key bytes:``), on its
    line and the lines of hex bytes after it (``cryptsetup luksDump --dump-master-key``)."""
    here = _line_start(data, m.start())
    if _KEY_DUMP.search(data, max(here, m.start() - 8), m.end("key")) is None:
        return None  # ``Cipher dump:``: no key's label
    if _PUBLIC_LABEL.search(data, here, m.start()) is not None:
        return None  # ``Public key: 04 a3 …``
    if len(set(_HEX_BYTE.findall(m.group("key")))) < 6:
        return None  # ``key: 00 00 04 00 …``: a report, not random bytes
    end = _EOL.search(data, m.end(), m.end() + _LINE_MAX)
    last = end.start() if end is not None else m.end()
    for start, stop in _lines(data, m.end(), _LINES_MAX):
        if _DUMP_LINE.fullmatch(data, start, stop) is None:
            break
        last = stop
    while last > m.start("key") and data[last - 1] in b" \t":
        last -= 1  # (a JSON-escaped tab left at the end is harmless)
    return Hit("key-material", m.start("key"), last, data[m.start("key") : last])


def _random(key: bytes) -> bool:
    """Hex that reads as random: letters and digits, and near the entropy of random hex."""
    digits = len(_DIGIT.findall(key))
    if digits < 2 or digits > len(key) - 2:
        return False
    n = len(key)
    counts = Counter(key.lower())
    return -sum(c / n * math.log2(c / n) for c in counts.values()) >= 3.0


# --- a key as a list of byte values -------------------------------------------------------------

_BYTE: Final = rb"-?(?:0x[0-9a-f]{1,2}|[0-9]{1,3})"
_KEY_NAME: Final = rb"(?:key|secret|token|seed|salt|psk|pass)"
_LIST_GATE: Final = rb"[=:][ \t][\[{(][ \t0-9\-][0-9x,]"
"""An assignment of a list that starts with a number (``= [171,``, ``= { 0x8A``, ``: [12,``), of
one width: the key's name before it is looked for on its line by the pass."""
_LIST_AT: Final = re.compile(
    rb"[=:][ \t]*(?P<list>[\[{(][ \t]*(?:"
    + _BYTE
    + rb"[ \t]*,[ \t]*){7,63}"
    + _BYTE
    + rb"[ \t]*,?[ \t]*[\]})])",
    re.IGNORECASE,
)
_NAME_BEFORE: Final = re.compile(
    rb"(?P<name>[a-z0-9_]*" + _KEY_NAME + rb"[a-z0-9_]*)[^=\r\n\x00\xff]{0,30}$", re.IGNORECASE
)
_NOT_KEY_NAME: Final = re.compile(
    rb"keys|keycode|keymap|hotkey|keyboard|keypad|ids|pos", re.IGNORECASE
)
"""Names holding a key word that are no key's: key codes, a key map, token ids, positions."""
_VALUE: Final = re.compile(_BYTE, re.IGNORECASE)
_IDENTIFIER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _int(value: bytes) -> int:
    digits = value.lstrip(b"-").lower()
    n = int(digits[2:], 16) if digits.startswith(b"0x") else int(digits)
    return -n if value.startswith(b"-") else n


def _byte_list(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A list of byte values under a key's name that reads as random bytes."""
    named = _NAME_BEFORE.search(data, max(_line_start(data, m.start()), m.start() - 96), m.start())
    if named is None:
        return None
    start = named.start("name")
    while start > 0 and start > named.start() - 64 and data[start - 1] in _IDENTIFIER:
        start -= 1
    if _NOT_KEY_NAME.search(data, start, named.end("name")) is not None:
        return None
    values = [_int(v) for v in _VALUE.findall(m.group("list"))]
    if any(v > 255 or v < -128 for v in values):
        return None
    if len(set(values)) * 4 < len(values) * 3 or not any(v > 127 or v < 0 for v in values):
        return None
    return Hit("key-material", m.start("list"), m.end("list"), m.group("list"))


def material_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes: each gated
    by its whole shape (an armor line naming secret material, an option line, a heading, a hex
    key beside its cipher, a list after a key's name)."""
    return [
        *(
            Pass(re.compile(gate, re.IGNORECASE), _armored, gate=(gate, 0, 0))
            for gate in _ARMOR_GATES
        ),
        Pass(_GAUTH, _authenticator, gate=(_GAUTH_GATE, 0, 0)),
        Pass(_HEADING_AT, _codes, gate=(_HEADING_TAIL, 0, 0)),
        Pass(_HEX_AT, _cipher_key, gate=(_HEX_GATE, 0, 0)),
        Pass(_CRYPT_AT, _cipher_key, gate=(_CRYPT_GATE, 0, 0)),
        Pass(_KEY_DUMP_AT, _key_dump, gate=(_KEY_DUMP_TAIL, 0, 0)),
        Pass(_LIST_AT, _byte_list, gate=(_LIST_GATE, 0, 0)),
    ]
