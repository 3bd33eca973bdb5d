"""The audit's second opinion: secrets found by structure and randomness, not by the scanner's rules.

The scanner (``scanner/``) decides what is redacted, and the audit's ``critical`` findings are its
scan of the exact bytes written: a secret the scanner misses would be missed by the audit too,
and the receipt would say ``findings: 0``. This pass shares none of the scanner's rules, name
lists, value readers or decoders. It reads the exported bytes (HTML as the text it shows) for:

1. **a value under a credential name** (``named``): a name holding one of a few words
   (``password``, ``secret``, ``token``, ``api key``, ``private key``, ``psk``…) followed by
   ``=``, ``:``, ``:=``, ``=>``, a JSON ``": "``, a table's ``|`` at a line's start, or a space,
   and a value (of 4 to 12 digits under a PIN's or a PUK's name) that is not a
   placeholder, a reference, a template or a word of code; after a space, only a value with a
   digit or a symbol (``password is required`` is prose), or a value quoted or in backticks after
   a link word (``is``, ``was``, ``to``, ``as``: ``the password is "three word phrase"``) that
   holds no word of a sentence (``"the one in 1Password"``, ``"not set"``);
2. **a random-looking value** (``random``): a run of 20 to 200 letters, digits and ``+/_=-``
   starting after ``=``, ``:``, a quote, ``>``, ``(``, ``,`` or a space, with upper- and
   lower-case letters and digits that change class at least every third character, as generated
   secrets do and words, identifiers and camel case do not; hex (digests, ids), UUIDs and values
   after a hash's name (``sha512-``, ``h1:``) are not. In a value's place (a whole quoted literal,
   of 12 characters or more too; a pair's value; a table's cell) a run random in its own
   alphabet is one too (``_randomness``: upper case and digits, lower case and digits, letters
   with one digit). A JSON-escaped line break or tab opens a value as the character does;
3. **shapes checked by decoding** (``jwt``, ``private-key``, ``url-password``): three base64url
   segments whose first decodes to a JSON object, a PEM private-key header followed by base64, a
   URL whose user part has a password, or is a random token alone (``nats://X@host``);
4. **a word read as a command line's argument** (``password``): a word with a symbol between
   two letters or digits, letters and two digits (``Velvet!9559harbor``), alone or as a field of
   the word (after ``=``, ``:``, ``,``: an option's value, ``user:X``, ``user,X``,
   ``user/X@host``, glued ``-pX``), percent escapes decoded; a word standing alone (not quoted,
   not a field) needs letters on both sides of the symbol (``issue#1234``, ``pytest-qt#448`` and
   ``README.md#L12`` are references, ``%08x`` a format); and a value glued to a mail address
   (``user@example.org:X``, ``user-password``);
5. **text after decoding** (``decoded``, ``key-bytes``): a hex or base64 run that rule 2 does
   not take, the body of an armored block (``-----BEGIN X-----``) and a list of byte values
   (``[]byte{0x57, …}``, ``bytes([115, …])``, ``{'L', 'a', …}``) and a string of six or more HTML
   character references (``&#80;&#x69;…``, ``\\u0026#80;`` in Go's JSON) are decoded; printable text is
   read again by rules 1 to 4 (once, not decoded further), and a list of 32 to 128 mostly
   distinct byte values, some above 127, is key material (a keypair's JSON array).

Every rule judges a value by its characters and the structure around it (a name, a quote, a
separator, a command line's word), never by a vendor's prefix or a program's option table.

Each finding is ``medium`` with the rule ``second-opinion:<kind>``: it does not block (this pass
has false positives the scanner's rules were tuned away from, and a person reviews them in the
preview), and it is in the receipt, so an export in which the scanner missed a secret says so.
What the scanner found and redacted is a placeholder here, never a value; a span the scanner
found but could not redact is its ``critical`` finding, not a second one.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import html
import json
import re
from collections.abc import Sequence
from typing import Any, Final

from ._randomness import HEX as _HEX
from ._randomness import PLACE_MIN as _PLACE_MIN
from ._randomness import RUN_MAX as _RUN_MAX
from ._randomness import random_in_place, random_looking
from .scanner import Hit, line_diff

try:  # one DFA for the whole alternation (the candidates of a 100 MB export in one pass)
    import re2 as _re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - the lock pins google-re2; re gives the same matches
    _re2 = None

__all__ = [
    "OPINION_RULE_PREFIX",
    "OPINION_VERSION",
    "candidates",
    "candidates_after_edit",
    "second_opinion",
]

OPINION_RULE_PREFIX: Final = "second-opinion:"
OPINION_VERSION: Final = 6
"""Raised whenever what the second opinion finds changes; a receipt's note names it (signed with
the rest). 3: a string of HTML character references is decoded. 4: a value in a value's place (a
whole quoted literal, a pair's value, a table's cell) is judged random in its own alphabet (upper
case and digits, lower case and digits, letters with one digit; 12 characters or more), and a
random value after a JSON-escaped line break or tab is read as one after a real one. 5: a PIN or a
PUK (digits under its name), a table's cell under a credential's name (``name | X``), a random
token as a URL's whole user part (``nats://X@host``). 6: a value quoted or in backticks after a
credential's name and a sentence's link word (``the password is "X"``, ``set NAME to `X```)."""

_WORD: Final = (
    rb"pass(?:w(?:or)?d|phrase|code)?|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|"
    rb"credentials?|requirepass|masterauth|psk|auth[_.-]?(?:token|key)|pin|puk"
)
_NAME_TAIL: Final = rb"[A-Za-z0-9_.-]{0,24}"
_CANDIDATES: Final = (
    # 1. a credential word, the rest of its name, a separator (or a space and a value with a digit)
    rb"(?i:"
    + _WORD
    + rb")"
    + _NAME_TAIL
    + rb"(?:\\?[\"'`])?(?:[ \t]*(?::=|=>|[:=|])|[ \t]+[A-Za-z!#$%&*+?@^~_.-]*[0-9][A-Za-z0-9!#$%&*+?@^~_.-]*"
    rb"|[ \t]+(?:[A-Za-z]{2,9}[ \t]+){1,2}\\?[\"'`])"  # or words of a sentence, then a quote
    # 3. shapes
    rb"|ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    rb"|-----BEGIN[A-Z0-9 ]{1,40}-----"
    rb"|://[^\s/@:\"'<>\\]+:[^\s/\"'<>\\]+@"
    rb"|://[A-Za-z0-9_-]{16,64}@"  # a token as the whole user part (``nats://X@host``)
    # 2. a long run of base64 letters after a value's opening (a JSON escape's line break or tab
    # too: ``\\n``, ``\\t``)
    rb"|(?:[=:\"'`>(,\s_-]|\\[nrt\"])[A-Za-z0-9][A-Za-z0-9+/]{19,}={0,2}"
    # 4. a word with a symbol inside it and a digit beside (``Velvet!9559harbor``, ``Xy7!pgRoot``)
    rb"|[A-Za-z0-9]*[0-9][A-Za-z0-9]*[!#%&*?^~][A-Za-z0-9]{2}|[A-Za-z0-9]{2}[!#%&*?^~][A-Za-z0-9]*[0-9]"
    rb"|[A-Za-z0-9]{2}[$@][0-9]{2}[0-9]*[A-Za-z]"  # ``Harbor$7712gate``: no variable, no host
    # 5. a mail address glued to a value (``user@example.org:X``, a relay's credentials)
    rb"|@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:[A-Za-z0-9]"
    # 7. base64 wrapped in short lines (``base64 -w 12``): three lines or more
    rb"|(?:\\n|[\n\"'>:=])(?:[0-9]{1,6}:)?[A-Za-z0-9+/]{8,19}(?:\\n|\n)(?:[0-9]{1,6}:)?"
    rb"[A-Za-z0-9+/]{8}"
    # 8. a string of hex escapes (``"\x4c\x61…"``, JSON-escaped too)
    rb"|(?:\\{1,2}x[0-9a-fA-F]{2}){8,}"
    # 9. a string of HTML character references (``&#80;&#x69;…``; ``\\u0026#80;`` in Go's JSON)
    rb"|(?:(?:&|\\{1,2}u0026)#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});?){6,}"
    # 6. a list of byte values (``{0x57, 0x61, …}``, ``bytes([115, …])``, ``{'L', 'a', …}``)
    rb"|(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3}|'[ -~]')(?:[ \t]*,[ \t]*(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3}|'[ -~]')){7,}"
    # 2b. a whole quoted literal of 12 to 19 of a value's letters, shorter than rule 2 asks (no
    # other rule's match fits in it), no path (``/``) and no name (not followed by ``:`` or
    # ``=``); last, so that every other rule goes first
    rb"|\\?[\"'`][A-Za-z0-9_.+-]{12,19}={0,2}\\?[\"'`](?:[^:=\w]|$)"
)
_GATE: Any = (_re2 or re).compile(_CANDIDATES)

_URL_MAX: Final = 256
_JWT: Final = re.compile(rb"ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_VALUE_MAX: Final = 256
_VALUE_MIN: Final = 6
_RUN: Final = re.compile(rb"[A-Za-z0-9+/_=-]+")
_DIGEST_BEFORE: Final = re.compile(
    rb"(?:sha(?:1|224|256|384|512)|md5|h1|blake2b?|sri|integrity|digest|etag)[-:=\"' ]*$", re.I
)
_NAMED_STOP: Final = re.compile(
    rb"(?i)(?:count|len|length|size|type|types|ttl|expir\w*|expires_in|url|uri|endpoint|file|path|dir|name|id|ids|"
    rb"limit|max|min|used|usage|header|field|env|var|source|ref|prompt|format|kind|mode|policy|scope|scopes|"
    rb"tokens|tokenizer|secrets?_manager|manager|store|provider|length|hint|label|rotation|version)$"
)
"""A name ending so is about a credential, not one (``max_tokens``, ``token_type``, ``secret_name``)."""
_NOT_VALUE: Final = re.compile(
    rb"(?i)(?:true|false|yes|no|on|off|none|null|nil|undefined|required|optional|string|str|bytes|int|bool|"
    rb"bearer|basic|token|secret|password|passwd|redacted|hidden|masked|removed|example|placeholder|"
    rb"changeme|your[\w-]*|my[_-]?(?:password|passwd|secret|token|key|api[_-]?key)|xxx+|\*+|\.{3})"
)
_REFERENCE: Final = re.compile(
    rb"^(?:\$\{?|\{\{|\{%|%\(|%[sd]|<[A-Za-z_]|\[secret redacted: |\[[a-z_]+ (?:excluded|redacted): |"
    rb"(?:os\.|process\.|env\.|self\.|this\.|config\.|settings\.|request\.|args\.|options\.)|"
    rb"[A-Za-z_][\w.]*\(|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$|[A-Za-z_]\w*\[|"
    rb"\([A-Za-z]+\)?$|[)\]},;])"
)
"""What stands in a value's place and is not one: a reference, a placeholder, a call
(``getpass.getpass(``), a status in brackets (``(sensitive value)``, ``(known after apply)``), or
the code's closing punctuation."""
_MASKED: Final = re.compile(rb"\*{3}|\.{3}|\xe2\x80\xa6")
"""A masked value (``sk-...XQ7K``, ``****ABCD``, ``ghp_****…abcd``): shown as hidden."""
_QUOTES: Final = {b'"'[0], b"'"[0], b"`"[0]}


_ID_BEFORE: Final = re.compile(
    rb"(?i)(?:^|[^a-z])(?:id|ids|uuid|guid|kid|etag|hash|digest|sha\d*|checksum|commit|nonce|request|trace|span|"
    rb"call|message|response|item|object|run|thread|cursor|after|before|next|previous|session|encrypted_content|"
    rb"encrypted|ciphertext|signature|data|image|thumbnail)\\?[\"']?\s*[:=]\s*\\?[\"']?$"
)
"""A value named as an identifier (``"id": "call_…"``, ``request_id=…``) or as data (an image's
``"data"``, encrypted content): random by design, not a secret."""
_PUBLIC_BEFORE: Final = re.compile(
    rb"(?:(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+|;base64,)$"
)
"""An OpenSSH public key's type before its base64, or a data URL's head (an image)."""
_WRAP_MIN: Final = 40
_LAST_RUN: Final = re.compile(rb"[A-Za-z0-9+/_=]*$")
_LINE_BREAKS: Final = (b"\r\n", b"\n", b"\\r\\n", b"\\n")


def _wrapped(data: bytes, a: int, b: int) -> bool:
    """A line of a block of wrapped base64 (a certificate, ``base64`` of a file): data, not a
    credential. The run fills its line and the line before or after is base64 as long."""
    if b - a < _WRAP_MIN:
        return False
    for brk in _LINE_BREAKS:
        if data.startswith(brk, b):
            nxt = _RUN.match(data, b + len(brk))
            if nxt is not None and nxt.end() - nxt.start() >= 16:
                return True
            break
    for brk in _LINE_BREAKS:
        if data.endswith(brk, 0, a):
            prev = data[max(0, a - len(brk) - _RUN_MAX) : a - len(brk)]
            return len(_LAST_RUN.search(prev).group()) >= _WRAP_MIN  # type: ignore[union-attr]
    return False


def _quoted_value(data: bytes, pos: int, escaped: bool) -> tuple[int, int]:
    """The span of a value starting with a quote at ``pos`` (``\\"`` inside a JSON string)."""
    quote = data[pos : pos + 1]
    start = pos + 1
    closing = b'\\"' if escaped else quote
    end = data.find(closing, start, start + _VALUE_MAX + 2)
    line = data.find(b"\n", start, end if end >= 0 else start + _VALUE_MAX)
    if end < 0 or line >= 0:
        end = line if line >= 0 else min(len(data), start + _VALUE_MAX)
    return start, end


def _bare_value(data: bytes, pos: int) -> tuple[int, int]:
    end = pos
    limit = min(len(data), pos + _VALUE_MAX)
    while end < limit and data[end] not in b" \t\r\n\"'<>\\`":
        end += 1
    while (
        end > pos and data[end - 1] in b".,;:)]}"
    ):  # the sentence's or the code's, not the value's
        end -= 1
    return pos, end


_LINKED: Final = re.compile(
    rb"(?i)(?:is|was|are|to|as)(?:[ \t]+(?:literally|now|still|just))?[ \t]+(?=\\?[\"'`])"
)
"""A sentence's link between a credential's name and its quoted value."""
_SENTENCE_WORD: Final = re.compile(
    rb"(?i)(?:^|[ \t])(?:the|a|an|in|of|on|at|to|is|not|no|and|or|for|from|with|your|my|our|set|"
    rb"same|empty|enter|stored|saved)(?=[ \t]|$)"
)
"""A word of a sentence in a quoted value (``"the one in 1Password"``, ``"not set"``)."""
_CODE_NAME: Final = re.compile(rb"(?i)(?:^|[_.-])p(?:in|uk)[0-9]?(?:[_.-]?code)?$")
"""A PIN or a PUK named by its name's last word."""
_ROW_START: Final = re.compile(rb"(?:^|\n|\\n)(?:[0-9]{1,6}:)?[ \t]*(?:\|[ \t]*)?$")
"""A line's start (a ``read_file`` row's number, a table's first ``|`` and spaces after it)."""
_PLACEHOLDER_AT: Final = re.compile(rb"\[[a-z_]+ (?:excluded|redacted): ")
"""A placeholder rho-desk wrote where a value was (``[secret redacted: …]``, ``[tool_records excluded: …]``)."""
_IDENTIFIER: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_LETTER: Final = re.compile(rb"[A-Za-z]")
_SPACED_VALUE: Final = re.compile(rb"[A-Za-z0-9!#$%&*+?@^~_.-]*[0-9][A-Za-z0-9!#$%&*+?@^~_.-]*")


def _named(data: bytes, match_start: int, match_end: int) -> tuple[int, int] | None:
    """The value after a credential name, or None when what follows is no value. A PIN or a PUK
    is a name's last word (``SIM_PIN``, ``puk2``, ``PIN-Code``: not ``spinner``, ``pin_count``)
    and its value a code of 4 to 12 digits (not a GPIO pin's ``13``, a version pinned); a
    table's ``|`` follows a name at its line's start (``client_secret | X``, ``| password | X |``:
    not a pipe, ``get_token | jq``)."""
    name_start = match_start
    while (
        name_start > max(0, match_start - 24)
        and (data[name_start - 1 : name_start].isalnum() or data[name_start - 1] in b"_.-")
        and not (data[name_start - 2 : name_start - 1] == b"\\" and data[name_start - 1] in b"nrt")
    ):  # a JSON escape's line break or tab ends it
        name_start -= 1
    name_end = match_start
    while name_end < match_end and (
        data[name_end : name_end + 1].isalnum() or data[name_end] in b"_.-"
    ):
        name_end += 1
    if _NAMED_STOP.search(data[name_start:name_end]) or data[name_start - 1 : name_start] in (
        b"$",
        b"{",
        b"%",
    ):
        return None
    code_word = data[match_start : match_start + 3].lower() in (b"pin", b"puk")
    if code_word and not _CODE_NAME.search(data[name_start:name_end]):
        return None  # ``spinner``, ``pinned``, ``pin_count``
    pos = name_end
    if data.startswith(b'\\"', pos):
        pos += 2
    elif data[pos : pos + 1] in (b'"', b"'", b"`"):
        pos += 1
    ticked = data[pos - 1 : pos] == b"`"  # a name in backticks: only a sentence's (``set `X` to``)
    gap = pos
    while pos < match_end and data[pos] in b" \t":
        pos += 1
    cell = data[pos : pos + 1] == b"|"
    if cell and not _ROW_START.search(data, max(0, name_start - 16), name_start):
        return None  # a pipe (``get_token | jq``), not a table's cell
    spaced = not (data.startswith((b":=", b"=>"), pos) or data[pos : pos + 1] in (b":", b"=", b"|"))
    code = False
    linked = _LINKED.match(data, pos) if spaced else None
    if ticked and linked is None:
        return None  # reStructuredText's ``.. _`name`: URL``, Markdown's code
    if linked is not None:  # ``the password is "X"``, ``set NAME to `X```
        pos = linked.end()
    if not spaced:
        code = pos > gap and not cell  # ``token = value``: a spaced ``=`` is code's assignment
        pos += 2 if data.startswith((b":=", b"=>"), pos) else 1
        while pos < len(data) and data[pos] in b" \t":
            pos += 1
    escaped = data.startswith(b'\\"', pos)
    if escaped or (pos < len(data) and data[pos] in _QUOTES):
        start, end = _quoted_value(data, pos + 1 if escaped else pos, escaped)
        code = False
    else:
        start, end = _bare_value(data, pos)
    value = data[start:end]
    if _PLACEHOLDER_AT.match(data, start):
        return None
    if code_word:  # after a separator: ``PIN 1234 is the default`` is prose
        return (start, end) if not spaced and value.isdigit() and 4 <= len(value) <= 12 else None
    if (
        len(value) < _VALUE_MIN
        or _NOT_VALUE.fullmatch(value)
        or _REFERENCE.match(value)
        or _MASKED.search(value)
    ):
        return None
    if len(set(value)) < 4:
        return None  # ``********``, ``xxxxxx``
    if linked is not None:  # words are a passphrase's, not a sentence's
        words = len(value) < 8 or _SENTENCE_WORD.search(value) or b"(" in value or b"\\" in value
        return None if words else (start, end)
    if value.isdigit() and len(value) < 8:
        return None
    if code and _IDENTIFIER.fullmatch(value):
        return None  # ``api_key = api_key_from_env``: a variable
    if spaced and not (
        len(value) >= 8 and _SPACED_VALUE.fullmatch(value) and _LETTER.search(value)
    ):
        return None  # prose: ``the token was 3 hours old``, ``token took=20ms``
    return start, end


def _jwt(token: bytes) -> bool:
    head = token.split(b".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + b"=" * (-len(head) % 4))
        value = json.loads(decoded)
    except (binascii.Error, ValueError):
        return False
    return isinstance(value, dict) and bool(value)


def _private_key(data: bytes, end: int) -> tuple[int, int] | None:
    """The base64 body after a PEM private-key header (a real newline or a JSON ``\\n``)."""
    pos = end
    for sep in (b"\\r\\n", b"\\n", b"\r\n", b"\n"):
        if data.startswith(sep, pos):
            pos += len(sep)
            break
    else:
        return None
    run = _RUN.match(data, pos)
    if run is None or run.end() - pos < 40:
        return None
    return pos, run.end()


_PLACEHOLDER_OPEN: Final = b"[secret redacted: "


def _in_placeholder(data: bytes, pos: int) -> bool:
    """``pos`` is inside a placeholder the redaction wrote (its rule id names a credential)."""
    opening = data.rfind(_PLACEHOLDER_OPEN, max(0, pos - 100), pos + 1)
    return opening >= 0 and data.find(b"]", opening, pos) < 0


def second_opinion(
    data: bytes,
    taken: Sequence[tuple[int, int]] = (),
    spans: Sequence[tuple[int, int]] | None = None,
) -> list[Hit]:
    """The suspected secrets in ``data``, as hits named ``second-opinion:<kind>``.

    Args:
        taken: spans the scanner already reported (its findings, in order, not overlapping):
            not reported again.
        spans: ``candidates(data)`` when the caller has them (found on a worker thread, or
            carried over an edit by ``candidates_after_edit``).
    """
    return _opinions(data, taken, decode=True, spans=spans)


def candidates(data: bytes) -> list[tuple[int, int]]:
    """Where the pass's candidates are in ``data``: the spans of ``_GATE``'s matches, in order.
    One RE2 pass, which lets go of the GIL: an export finds them on a worker thread."""
    return [m.span() for m in _GATE.finditer(data)]


_REACH: Final = 64
"""How far past its first byte a candidate's match reads, but to the end of its line: the one
alternative that crosses a line break (rule 7, two short lines) reads at most 46 bytes; every
other stops at the first line break after its first byte (which may be one: rules 2 and 7)."""


def candidates_after_edit(
    old: bytes, old_spans: Sequence[tuple[int, int]], new: bytes
) -> list[tuple[int, int]]:
    """``candidates(new)``, given ``old_spans = candidates(old)`` and ``new`` differing from
    ``old`` in a few lines (an export after its redaction): a 100 MB export is searched again only
    around the lines that changed.

    Around each run of changed lines a window reaches two lines and ``_REACH`` bytes further on
    each side, into lines equal in both. A match there reads nothing outside its window, so
    outside the windows the matches are ``old``'s, shifted, and the search resumes at a window's
    start as the whole search would: provided no match crosses a window's edge, which is checked
    (in ``old`` and in ``new``); where one does, ``new`` is searched whole.
    """
    same, _ = line_diff(old, new)
    seams: list[tuple[int, int]] = []  # where new stops being a copy of old, in new
    at_old = at_new = 0
    for a, b, n in same:
        if a != at_old or b != at_new:
            seams.append((at_new, b))
        at_old, at_new = a + n, b + n
    if at_old != len(old) or at_new != len(new):
        seams.append((at_new, len(new)))
    windows: list[list[int]] = []
    for c0, c1 in seams:
        lo, hi = _lines_before(new, c0), _lines_after(new, c1)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    news = [b for _, b, _ in same]
    old_starts = [s for s, _ in old_spans]

    def in_old(pos: int) -> int | None:  # where ``pos`` of new is in old (lines equal in both)
        if pos == 0:
            return 0
        k = bisect.bisect_right(news, pos) - 1
        if k < 0 or pos >= same[k][1] + same[k][2]:
            return None
        return same[k][0] + pos - same[k][1]

    def crossed(pos: int) -> bool:  # a match of ``old`` holds ``pos`` inside it
        k = bisect.bisect_left(old_starts, pos) - 1
        return k >= 0 and old_spans[k][1] > pos

    out: list[tuple[int, int]] = []
    done_old = done_new = 0  # up to here both are accounted for (and they are equal after it)
    for lo, hi in windows:
        lo_old, hi_old = in_old(lo), len(old) if hi == len(new) else in_old(hi)
        if lo_old is None or hi_old is None or crossed(lo_old) or crossed(hi_old):
            return candidates(new)
        shift = done_new - done_old
        first, last = (
            bisect.bisect_left(old_starts, done_old),
            bisect.bisect_left(old_starts, lo_old),
        )
        out.extend((s + shift, e + shift) for s, e in old_spans[first:last])
        # searched as far as a match starting before ``hi`` can read
        line_end = new.find(b"\n", hi)
        stop = max(hi + _REACH, len(new) if line_end < 0 else line_end + 1)
        for m in _GATE.finditer(new, lo, min(stop, len(new))):
            s, e = m.span()
            if s >= hi:
                break
            if e > hi:
                return candidates(new)
            out.append((s, e))
        done_old, done_new = hi_old, hi
    shift = done_new - done_old
    out.extend(
        (s + shift, e + shift) for s, e in old_spans[bisect.bisect_left(old_starts, done_old) :]
    )
    return out


def _lines_before(data: bytes, pos: int) -> int:
    """The start of the line two whole lines and ``_REACH`` bytes or more before ``pos`` (a
    line's start), or 0."""
    at = data.rfind(b"\n", 0, pos) + 1  # pos's line (pos itself, at a line's start)
    lines = 0
    while at > 0 and (lines < 2 or pos - at < _REACH):
        at = data.rfind(b"\n", 0, at - 1) + 1
        lines += 1
    return at


def _lines_after(data: bytes, pos: int) -> int:
    """The start of the line two whole lines and ``_REACH`` bytes or more after ``pos`` (a
    line's start), or the end of ``data``."""
    at = pos if pos == 0 or data[pos - 1 : pos] == b"\n" else data.find(b"\n", pos) + 1 or len(data)
    lines = 0
    while at < len(data) and (lines < 2 or at - pos < _REACH):
        nl = data.find(b"\n", at)
        at = len(data) if nl < 0 else nl + 1
        lines += 1
    return at


def _opinions(
    data: bytes,
    taken: Sequence[tuple[int, int]],
    *,
    decode: bool,
    spans: Sequence[tuple[int, int]] | None = None,
) -> list[Hit]:
    ends = [b for _, b in taken]
    out: list[Hit] = []
    word_end = -1
    armored_end = -1
    for start, end in candidates(data) if spans is None else spans:
        if _in_placeholder(data, start):
            continue
        head = data[start : start + 1]
        span: tuple[int, int] | None = None
        kind = ""
        literal = (
            _literal(data, start, end)
            if end - start <= _LITERAL_MAX and head in b"\"'`\\"
            else None
        )
        if literal is not None:  # rule 2b: a short quoted literal, judged as rule 2's runs
            if start < armored_end or literal[1] - literal[0] < _PLACE_MIN:
                continue
            span, kind = _run_opinion(data, *literal, decode)
        elif head.isalnum() and _SYMBOL_RUN.fullmatch(data, start, end):
            if start < word_end:
                continue  # a second symbol of a word already read
            a, b, word_end = _word(data, start)
            span, kind = (_word_secret(data, a, b), "password") if b > a else (None, "")
        elif head == b"@":
            span, kind = _mail_value(data, start, end), "user-password"
        elif head in b"0123456789'" and data.find(b",", start, end) >= 0:
            span, kind = _byte_list(data, start, end, decode)
        elif head == b"&" or (head == b"\\" and b"u0026#" in data[start : start + 9]):
            span, kind = (_references(data, start, end), "decoded") if decode else (None, "")
        elif head == b"\\" and b"x" in data[start + 1 : start + 3]:
            span, kind = (_hex_escapes(data, start, end), "decoded") if decode else (None, "")
        elif data.startswith(b"-----BEGIN", start):
            if data.find(b"PRIVATE KEY", start, end) >= 0:
                span, kind = _private_key(data, end), "private-key"
            else:  # a certificate's, a public key's or a message's body: data, unless it is text
                close = data.find(b"-----END", end, end + _ARMOR_MAX)
                span, kind = (_armored(data, end, close), "decoded") if decode else (None, "")
                if span is None:
                    armored_end = close
        elif end - start < _SHORT_MATCH and (
            data.find(b"\n", start + 1, end) >= 0 or data.find(b"\\n", start + 2, end) >= 0
        ):  # only rule 7 spans a line's end
            span, kind = (_short_lines(data, start), "decoded") if decode else (None, "")
        elif data.startswith(b"://", start):
            if end - start > _URL_MAX:
                continue
            colon = data.find(b":", start + 3, end - 1)
            secret = data[colon + 1 : end - 1]
            if colon < 0:  # the user part alone: a credential when it looks random
                if random_looking(data[start + 3 : end - 1]):
                    span, kind = (start + 3, end - 1), "url-password"
            elif (
                len(set(secret)) >= 3
                and not _REFERENCE.match(secret)
                and not secret.startswith((b"$", b"[secret redacted"))
            ):
                span, kind = (colon + 1, end - 1), "url-password"
        elif data.startswith(b"ey", start) and data.count(b".", start, end) == 2:
            if _jwt(data[start:end]):
                span, kind = (start, end), "jwt"
        elif (head == b"\\" or head in b"=:\"'`>(,_- \t\r\n") and _RUN.fullmatch(
            data, start + (2 if head == b"\\" else 1), end
        ):
            if start < armored_end:
                continue
            span, kind = _run_opinion(data, start + (2 if head == b"\\" else 1), end, decode)
        else:  # rule 1 (a credential word starts it)
            span, kind = _named(data, start, end), "named"
        if span is None or span[1] <= span[0]:
            continue
        a, b = span
        if out and a < out[-1].end:
            continue  # one suspicion a place (a name's value and the token in it)
        k = bisect.bisect_right(ends, a)  # the first taken span ending after ``a``
        if k < len(taken) and taken[k][0] < b:
            continue
        out.append(Hit(OPINION_RULE_PREFIX + kind, a, b, data[a:b]))
    return out


def _run_opinion(data: bytes, a: int, end: int, decode: bool) -> tuple[tuple[int, int] | None, str]:
    """Rule 2's judgement of the run ``data[a:end]``: a JWT, text after decoding, or random."""
    jwt = _JWT.match(data, a) if data.startswith(b"ey", a) and data[end : end + 1] == b"." else None
    if jwt is not None:
        return ((a, jwt.end()), "jwt") if _jwt(jwt.group()) else (None, "")
    text = _decoded_text(data[a:end]) if decode and end - a <= _RUN_MAX else None
    if text is not None:  # hex or base64 of text: judged by the text it holds
        return ((a, end), "decoded") if _suspect_text(text) else (None, "")
    return _random(data, a, end, decode), "random"


_LITERAL_MAX: Final = 26
"""Rule 2b's longest match: two escaped quotes, 19 letters, two ``=`` and the byte after."""
_LITERAL_BODY: Final = re.compile(rb"[A-Za-z0-9_.+/=-]+")


def _literal(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The body of rule 2b's quoted literal (``"X"``, ``'X'``, a JSON-escaped ``\\"X\\"``), or
    None when the candidate is another rule's."""
    escaped = data[start] == 0x5C
    quote = data[start + escaped : start + escaped + 1]
    if quote not in (b'"', b"'", b"`"):
        return None
    body = _LITERAL_BODY.match(data, start + escaped + 1, end)
    if body is None:
        return None
    closing = b"\\" + quote if escaped else quote
    after = body.end() + len(closing)
    if not data.startswith(closing, body.end()) or after not in (end, end - 1):
        return None
    return body.span()


def _random(data: bytes, a: int, end: int, place: bool) -> tuple[int, int] | None:
    """The run ``data[a:end]`` when it looks random (or, in a value's place, random in a
    narrower alphabet) and is not named as an id, a digest, a public key or a line of wrapped
    data."""
    if end - a > _RUN_MAX:
        return None  # data (an image, encrypted content), not a credential
    run = data[a:end]
    token = (
        a  # the whole token a run after ``_`` or ``-`` ends (``ses_…``): named by what is before it
    )
    escape = a >= 2 and data[a - 2] == 0x5C and data[a - 1] in b'nrt"'
    while (
        not escape
        and token > 0
        and (data[token - 1 : token].isalnum() or data[token - 1] in b"_-")
        and a - token < 24
    ):
        token -= 1
    before = data[max(0, token - 32) : token]
    lead = data[max(0, token - 32) : a]
    if escape:  # a JSON escape's line break, tab or quote: read as the character it stands for
        lead = lead[:-2] + _UNESCAPED[data[a - 1]]
    span = (a, end) if random_looking(run) else random_in_place(data, a, end) if place else None
    if (
        span is not None
        and not _DIGEST_BEFORE.search(lead)
        and not _DIGEST_HEAD.match(data, span[0])
        and not _PUBLIC_BEFORE.search(before)
        and not _ID_BEFORE.search(before)
        and not _CAMEL_ID_BEFORE.search(before)
        and not _wrapped(data, a, end)
    ):
        return span
    return None


_UNESCAPED: Final = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord('"'): b'"'}
_DIGEST_HEAD: Final = re.compile(
    rb"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2b?|nonce|id|uuid|hash|digest)[-:_]"
)
"""A token whose first part names it a digest, a nonce or an id (``sha256-…``, ``'nonce-…'``)."""
_CAMEL_ID_BEFORE: Final = re.compile(rb"[a-z](?:Id|ID|Ids|IDs)\\?[\"']?\s*[:=]\s*\\?[\"']?$")
"""A value named as an id in camel case (``"UserId": "AIDA…"``, ``accountID=``)."""


# --- words, mail addresses, byte lists and decoded text --------------------------------------------

_INSIDE_SYMBOLS: Final = b"!#%&*?^~"
"""Symbols a person puts inside a password (``Velvet!9559harbor``) and identifiers, numbers,
paths and words do not hold between two letters or digits."""
_SYMBOL_RUN: Final = re.compile(rb"[A-Za-z0-9]+[!#%&*?^~$@][A-Za-z0-9]+")
_DIGITS_THEN_LETTER: Final = re.compile(rb"[0-9]+[A-Za-z]")
"""After ``$`` or ``@``: not a variable's name nor a host (``Harbor$7712gate``, ``Fjord@8812peak``)."""
_WORD_MAX: Final = 96
_WORD_ENDS: Final = (b" ", b"\n", b"\t", b"\r", b'"', b"'", b"\\")
_TOKEN: Final = re.compile(rb"[^\s\"'\\]*")
_WORD_RUN: Final = re.compile(rb"[A-Za-z0-9!#$%&*?^~@+._:=,/-]+")
_FIELD: Final = re.compile(rb"[^:=,&]+")
_FIELD_NO_QUERY: Final = re.compile(rb"[^:=,]+")
_PASSWORD_BYTES: Final = re.compile(rb"[A-Za-z0-9!#$%&*?^~@+._-]+")
_QUOTED_BYTES: Final = re.compile(rb"[!#-&(-~]+")
"""Inside quotes, a password may hold any printable character but a quote (a salt's ``<``, ``{``)."""
_TWO_LETTERS: Final = re.compile(rb"[A-Za-z]{2}")
_SEGMENT_BEFORE: Final = re.compile(rb"[A-Za-z0-9]*$")
_SEGMENT_AFTER: Final = re.compile(rb"[A-Za-z0-9]*")
_FORMAT: Final = re.compile(rb"%[-+ #0]*[0-9]{0,2}(?:\.[0-9]{1,2})?[diouxXeEfFgGcsp]")
"""A printf conversion (``%08x``, ``%3d``): a format string's, not a password's."""
_EXTENSION: Final = re.compile(rb"\.[A-Za-z][A-Za-z0-9]{0,7}$")
"""A file's extension before ``#``: an anchor or a line's tag (``README.md#25CB``), not a password."""
_ESCAPE_TAIL: Final = re.compile(rb"x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[nrtbf0]")
_PERCENT: Final = re.compile(rb"%([0-9A-Fa-f]{2})")
_URL_ENCODED: Final = frozenset(b" /=&?:+")
"""Characters a percent escape stands for in an encoded URL or form (``%20``, ``%2F``), not in a
password."""
_PRINTABLE: Final = re.compile(rb"[ -~\t\r\n]+")


def _word(data: bytes, pos: int) -> tuple[int, int, int]:
    """The word around ``pos``: the bytes between spaces or quotes (JSON's escapes end it too),
    without the brackets, backticks and a sentence's punctuation around it; empty when it holds
    anything else (a line of base85 or of code: not an argument). And where its token ends."""
    lo = max(0, pos - _WORD_MAX)
    a = max(data.rfind(d, lo, pos) for d in _WORD_ENDS) + 1 or lo
    token = _TOKEN.match(data, pos, pos + _WORD_MAX)
    b = token_end = token.end() if token is not None else pos
    if (a == lo and lo > 0) or token_end == pos + _WORD_MAX:
        return a, a, token_end  # longer than a password
    if _quoted(data, a, b):  # a whole quoted string, whatever it holds
        if data.startswith(b"${", a) and data[b - 1 : b] == b"}":
            a, b = a + 2, b - 1  # a reference's default (``"${db.password:X}"``)
        return a, b, token_end
    closing = data.find(b"</", pos, b)
    if closing >= 0:  # an element's text (``>X</``): base85 has no ``/``
        b = closing
        a = max(a, data.rfind(b">", a, pos) + 1)
    if data.startswith(b"${", a):  # a reference's default (``${db.password:X}``)
        a += 2
    while a < b and data[a] in b"([{`":
        a += 1
    while b > a and data[b - 1] in b".,:;)]}`":
        b -= 1
    if not _WORD_RUN.fullmatch(data, a, b):
        return a, a, token_end  # not an argument
    return a, b, token_end


def _quoted(data: bytes, a: int, b: int) -> bool:
    """The word is a whole quoted string (``'X'``, ``"X"``, a JSON-escaped ``\\"X\\"``)."""
    q = data[a - 1 : a]
    if q not in (b'"', b"'"):
        return False
    if data[a - 2 : a - 1] == b"\\":  # an escaped quote closes it
        return data.startswith(b"\\" + q, b)
    return data[b : b + 1] == q


def _word_secret(data: bytes, a: int, b: int) -> tuple[int, int] | None:
    """The password in the word ``data[a:b]``: the word itself, or one of its fields (after
    ``=``, ``:``, ``,`` or ``&``: an option's value, ``user:X``, ``user,X``, ``user/X@host``,
    ``-pX``), judged by its characters alone."""
    escape = _ESCAPE_TAIL.match(data, a) if data[a - 1 : a] == b"\\" else None
    if escape is not None:
        a = escape.end()  # ``\\x22#ffffff``, ``\\u2026?mode``: an escape's letters, not the word's
    word = data[a:b]
    if b"://" in word or not 8 <= b - a <= _WORD_MAX:
        return None  # a URL (its password is read as one), or data
    quoted = _quoted(data, a, b)
    fields = _FIELD if b"=" in word else _FIELD_NO_QUERY  # ``&`` joins a query's pairs
    for i, field in enumerate(fields.finditer(word)):
        f0, f1 = field.span()
        at = word.rfind(b"@", f0, f1)
        if at >= 0 and not _DIGITS_THEN_LETTER.match(word, at + 1):  # ``user/X@host``
            f1 = at
            f0 = max(f0, word.rfind(b"/", f0, f1) + 1)
        elif word.find(b"/", f0, f1) >= 0:
            continue  # a path
        if word.startswith(b"--", f0):
            continue
        if word.startswith(b"-", f0) and word[f0 + 1 : f0 + 2].isalpha():
            f0 += 2  # a value glued to its option (``-pX``)
        if _password_shaped(word[f0:f1], strong=quoted or i > 0):
            return a + f0, a + f1
    return None


def _percent_decoded(field: bytes) -> bytes | None:
    """``field`` with its percent escapes of printable characters decoded; None when they are a
    URL's or a form's (a space, ``/``, ``=``…)."""
    out = field
    for m in _PERCENT.finditer(field):
        c = int(m.group(1), 16)
        if c in _URL_ENCODED:
            return None
        if chr(c).isalnum() and c < 0x80:
            return field  # no encoder escapes a letter or a digit: ``%55`` is the password's
        if 0x21 <= c <= 0x7E:
            out = out.replace(m.group(), bytes([c]))
    return out


def _password_shaped(field: bytes, *, strong: bool) -> bool:
    """Letters, at least two digits and a symbol between two letters or digits, 8 to 64
    characters: how people write passwords (``Prairie?9694harbor``, ``Xy7!pgRoot2024``). A word
    standing alone (not quoted, not after ``=`` or ``:``) must also hold two runs of letters and
    no dot (``issue#1234`` and ``README.md#L12`` are references)."""
    if b"%" in field:
        decoded = _percent_decoded(field)
        if decoded is None:
            return False
        field = decoded
    if not 8 <= len(field) <= 64 or not (_QUOTED_BYTES if strong else _PASSWORD_BYTES).fullmatch(
        field
    ):
        return False
    letters = sum(0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A for c in field)
    digits = sum(0x30 <= c <= 0x39 for c in field)
    if letters < 4 or digits < 2:
        return False
    inside = [
        i
        for i in range(1, len(field) - 1)
        if (
            field[i] in _INSIDE_SYMBOLS
            or (field[i] in b"$@" and _DIGITS_THEN_LETTER.match(field, i + 1))
        )
        and field[i - 1 : i].isalnum()
        and field[i + 1 : i + 2].isalnum()
        and not (field[i] == 0x25 and _FORMAT.match(field, i))
        and not (field[i] == 0x23 and _EXTENSION.search(field, 0, i))
    ]
    if not inside:
        return False
    if strong:
        return True
    # standing alone: letters on both sides of a symbol (not ``pytest-qt#448``, ``HcmV?d00001``)
    return b"." not in field and any(
        _TWO_LETTERS.search(_SEGMENT_BEFORE.search(field, 0, i).group())  # type: ignore[union-attr]
        and _TWO_LETTERS.search(_SEGMENT_AFTER.match(field, i + 1).group())  # type: ignore[union-attr]
        for i in inside
    )


_MAIL_VALUE: Final = re.compile(rb"[A-Za-z0-9!#$%&*?^~+_-]+")


def _mail_value(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The value glued to a mail address by a colon (``user@example.org:X``, how relays and
    mail clients store a login): a path, a port or a short word is not one."""
    if start == 0 or not (data[start - 1 : start].isalnum() or data[start - 1] in b"._%+-"):
        return None
    value = _MAIL_VALUE.match(data, end - 1, end - 1 + 65)
    if value is None:
        return None
    v0, v1 = value.span()
    if data[v1 : v1 + 1] in (b"/", b".", b"@") or not 8 <= v1 - v0 <= 64:
        return None
    text = data[v0:v1]
    if text.isdigit() or (text.isalpha() and len(text) < 12):
        return None
    return v0, v1


_HEX_ITEMS: Final = re.compile(rb"0[xX]([0-9a-fA-F]{1,2})")
_DEC_ITEMS: Final = re.compile(rb"[0-9]+")
_CHAR_ITEMS: Final = re.compile(rb"'([ -~])'")
_KEY_BYTES_MIN: Final = 32
_KEY_BYTES_MAX: Final = 128


def _byte_list(
    data: bytes, start: int, end: int, decode: bool
) -> tuple[tuple[int, int] | None, str]:
    """A list of byte values: the text it spells when that is a suspicion (``decoded``), or key
    material (``key-bytes``: 32 to 128 values, most of them distinct, some above 127, as a
    keypair's JSON array is)."""
    if start > 0 and (data[start - 1 : start].isalnum() or data[start - 1] in b"._"):
        return None, ""  # the end of a longer number or a version
    chunk = data[start:end]
    try:
        if chunk.startswith(b"'"):
            raw = b"".join(_CHAR_ITEMS.findall(chunk))
        elif chunk.startswith((b"0x", b"0X")):
            digits = _HEX_ITEMS.findall(chunk)
            raw = bytes.fromhex(b"".join(d.rjust(2, b"0") for d in digits).decode())
        else:
            raw = bytes(map(int, _DEC_ITEMS.findall(chunk)))
    except ValueError:  # a value above 255
        return None, ""
    if _PRINTABLE.fullmatch(raw):
        return ((start, end), "decoded") if decode and _suspect_text(raw) else (None, "")
    if (
        _KEY_BYTES_MIN <= len(raw) <= _KEY_BYTES_MAX
        and len(set(raw)) * 5 >= len(raw) * 3
        and max(raw) > 127
    ):
        return (start, end), "key-bytes"
    return None, ""


def _suspect_text(raw: bytes) -> bool:
    """Decoded text holds a suspicion (read as one quoted value, without decoding again)."""
    return bool(_opinions(b'"' + raw + b'"', (), decode=False))


_DECODED_MIN: Final = 6


def _decoded_text(run: bytes) -> bytes | None:
    """The printable text a hex or base64 run encodes (``Basic dXNlcjpY``, ``echo 5061… | xxd
    -r -p``, base64 of a sentence), or None. Random bytes decode to text about once in a
    million 16-byte runs, so a generated secret stays a run."""
    if len(run) > _RUN_MAX:
        return None
    try:
        if _HEX.fullmatch(run):
            raw = bytes.fromhex(run.decode())
        else:
            bare = run.rstrip(b"=")
            raw = base64.b64decode(bare + b"=" * (-len(bare) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) >= _DECODED_MIN and _PRINTABLE.fullmatch(raw) else None


_SHORT_LINES: Final = re.compile(
    rb"(?:\\n|[\n\"'>:=])(?:(?:[0-9]{1,6}:)?[A-Za-z0-9+/]{8,19}(?:\\n|\n)){2,}"
    rb"(?:[0-9]{1,6}:)?[A-Za-z0-9+/]{2,19}={0,2}"
)
_LINE_BREAK: Final = re.compile(rb"(?:\\n|\n)(?:[0-9]{1,6}:)?")
"""A line's end, and the row number ``read_file`` puts before the next one."""


_SHORT_MATCH: Final = 64
"""Rule 7's candidate is two lines' beginnings; a longer match is a run of rule 2."""
_ROW: Final = re.compile(rb"[0-9]{1,6}:(?=[A-Za-z0-9+/]{8})")


def _short_lines(data: bytes, start: int) -> tuple[int, int] | None:
    """Lines of base64 wrapped short, all as long but the last (``base64 -w 12`` of a file),
    when they decode to text that holds a suspicion."""
    block = _SHORT_LINES.match(data, start, start + _ARMOR_MAX)
    if block is None:
        return None
    end = block.end()
    if data[end : end + 1].isalnum() or data[end : end + 1] in (b"+", b"/"):
        return None  # the last line goes on: not the end of a block
    head = 2 if data.startswith(b"\\n", start) else 1
    first = _ROW.match(data, start + head)
    body = first.end() if first else start + head
    lines = _LINE_BREAK.split(data[body:end])
    width = len(lines[0])
    if width % 4 or any(len(line) != width for line in lines[:-1]) or len(lines[-1]) > width:
        return None
    text = _decoded_text(b"".join(lines))
    if text is not None and _suspect_text(text):
        return body, end
    return None


_HEX_ESCAPE: Final = re.compile(rb"x([0-9a-fA-F]{2})")


def _hex_escapes(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """A string written as hex escapes (``\\x4c\\x61…``) when the text it spells holds a
    suspicion."""
    raw = bytes.fromhex(b"".join(_HEX_ESCAPE.findall(data, start, end)).decode())
    if _PRINTABLE.fullmatch(raw) and _suspect_text(raw):
        return start, end
    return None


_AMPERSAND: Final = re.compile(rb"\\{1,2}u0026")


def _references(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """A string written as HTML character references (``&#80;&#x69;…``, ``\\u0026#80;``) when the
    text it spells holds a suspicion."""
    written = _AMPERSAND.sub(b"&", data[start:end]).decode("ascii")
    raw = html.unescape(written).encode("utf-8", "surrogatepass")
    if _PRINTABLE.fullmatch(raw) and _suspect_text(raw):
        return start, end
    return None


_ARMOR_MAX: Final = 65536
_ARMOR_SPACE: Final = re.compile(rb"\\[nrt]|\s")
_BASE64_BODY: Final = re.compile(rb"[A-Za-z0-9+/]+={0,2}")


def _armored(data: bytes, end: int, close: int) -> tuple[int, int] | None:
    """The body of an armored block (``-----BEGIN X-----``, wrapped base64 to ``-----END`` at
    ``close``) when it is base64 of text that holds a suspicion; a certificate's or a public
    key's body decodes to binary and is not."""
    if close < 0:
        return None
    body = _ARMOR_SPACE.sub(b"", data[end:close])
    if not _BASE64_BODY.fullmatch(body):
        return None
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) >= _DECODED_MIN and _PRINTABLE.fullmatch(raw) and _suspect_text(raw):
        return end, close
    return None
