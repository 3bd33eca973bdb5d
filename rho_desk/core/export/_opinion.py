"""The audit's second opinion: secrets found by structure and randomness, not by the scanner's rules.

The scanner (``scanner/``) decides what is redacted, and the audit's ``critical`` findings are its
scan of the exact bytes written: a secret the scanner misses would be missed by the audit too,
and the receipt would say ``findings: 0``. This pass shares none of the scanner's rules, name
lists, value readers or decoders. It reads the exported bytes (HTML as the text it shows) for:

1. **a value under a credential name** (``named``): a name holding one of a few words
   (``password``, ``secret``, ``token``, ``api key``, ``private key``, ``psk``…) followed by
   ``=``, ``:``, ``:=``, ``=>``, a JSON ``": "`` or a space, and a value that is not a
   placeholder, a reference, a template or a word of code; after a space, only a value with a
   digit or a symbol (``password is required`` is prose);
2. **a random-looking value** (``random``): a run of 20 to 200 letters, digits and ``+/_=-``
   starting after ``=``, ``:``, a quote, ``>``, ``(``, ``,`` or a space, with upper- and
   lower-case letters and digits that change class at least every third character, as generated
   secrets do and words, identifiers and camel case do not; hex (digests, ids), UUIDs and values
   after a hash's name (``sha512-``, ``h1:``) are not;
3. **shapes checked by decoding** (``jwt``, ``private-key``, ``url-password``): three base64url
   segments whose first decodes to a JSON object, a PEM private-key header followed by base64, a
   URL whose user part has a password.

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
import json
import re
from collections.abc import Sequence
from typing import Any, Final

from .scanner import Hit

try:  # one DFA for the whole alternation (the candidates of a 100 MB export in one pass)
    import re2 as _re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - the lock pins google-re2; re gives the same matches
    _re2 = None

__all__ = ["OPINION_RULE_PREFIX", "OPINION_VERSION", "second_opinion"]

OPINION_RULE_PREFIX: Final = "second-opinion:"
OPINION_VERSION: Final = 1
"""Raised whenever what the second opinion finds changes; a receipt's note names it (signed with
the rest)."""

_WORD: Final = (
    rb"pass(?:w(?:or)?d|phrase|code)?|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|"
    rb"credentials?|requirepass|masterauth|psk|auth[_.-]?(?:token|key)"
)
_NAME_TAIL: Final = rb"[A-Za-z0-9_.-]{0,24}"
_CANDIDATES: Final = (
    # 1. a credential word, the rest of its name, a separator (or a space and a value with a digit)
    rb"(?i:"
    + _WORD
    + rb")"
    + _NAME_TAIL
    + rb"(?:\\?[\"'])?(?:[ \t]*(?::=|=>|[:=])|[ \t]+[A-Za-z!#$%&*+?@^~_.-]*[0-9][A-Za-z0-9!#$%&*+?@^~_.-]*)"
    # 3. shapes
    rb"|ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    rb"|-----BEGIN[A-Z ]{0,20} PRIVATE KEY-----"
    rb"|://[^\s/@:\"'<>\\]+:[^\s/\"'<>\\]+@"
    # 2. a long run of base64 letters after a value's opening
    rb"|(?:[=:\"'`>(,\s_-]|\\\\[nrt\"])[A-Za-z0-9][A-Za-z0-9+/]{19,}={0,2}"
)
_GATE: Any = (_re2 or re).compile(_CANDIDATES)

_URL_MAX: Final = 256
_RUN_MAX: Final = 200
"""Longer runs are data (images, encrypted context, a blob of base64), not a credential."""
_JWT: Final = re.compile(rb"ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_VALUE_MAX: Final = 256
_VALUE_MIN: Final = 6
_HEX: Final = re.compile(rb"[0-9a-fA-F-]+")
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
    rb"[A-Za-z_]\w*\(|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$|[A-Za-z_]\w*\[)"
)
_QUOTES: Final = {b'"'[0], b"'"[0], b"`"[0]}


def _class_changes(run: bytes) -> int:
    changes = 0
    last = -1
    for b in run:
        kind = 0 if 0x30 <= b <= 0x39 else 1 if 0x41 <= b <= 0x5A else 2 if 0x61 <= b <= 0x7A else 3
        if kind != last and last >= 0:
            changes += 1
        last = kind
    return changes


_WORDS_IN: Final = re.compile(rb"[A-Za-z][a-z]{4,}")
"""Two of these make a run words (``Version2Release3``): a random one has one in twenty."""


def random_looking(run: bytes) -> bool:
    """Letters of both cases and digits, changing class at least every third character: what a
    generator of secrets writes and a person, a digest or an identifier does not."""
    if not 20 <= len(run) <= _RUN_MAX or _HEX.fullmatch(run):
        return False
    digits = sum(0x30 <= b <= 0x39 for b in run)
    upper = sum(0x41 <= b <= 0x5A for b in run)
    lower = sum(0x61 <= b <= 0x7A for b in run)
    if digits < 2 or upper < 2 or lower < 2 or len(_WORDS_IN.findall(run)) >= 2:
        return False
    return _class_changes(run) * 3 >= len(run)


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


_PLACEHOLDER_AT: Final = re.compile(rb"\[[a-z_]+ (?:excluded|redacted): ")
"""A placeholder rho-desk wrote where a value was (``[secret redacted: …]``, ``[tool_records excluded: …]``)."""
_IDENTIFIER: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_LETTER: Final = re.compile(rb"[A-Za-z]")
_SPACED_VALUE: Final = re.compile(rb"[A-Za-z0-9!#$%&*+?@^~_.-]*[0-9][A-Za-z0-9!#$%&*+?@^~_.-]*")


def _named(data: bytes, match_start: int, match_end: int) -> tuple[int, int] | None:
    """The value after a credential name, or None when what follows is no value."""
    name_start = match_start
    while name_start > max(0, match_start - 24) and (
        data[name_start - 1 : name_start].isalnum() or data[name_start - 1] in b"_.-"
    ):
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
    pos = name_end
    if data.startswith(b'\\"', pos):
        pos += 2
    elif data[pos : pos + 1] in (b'"', b"'"):
        pos += 1
    gap = pos
    while pos < match_end and data[pos] in b" \t":
        pos += 1
    spaced = not (data.startswith((b":=", b"=>"), pos) or data[pos : pos + 1] in (b":", b"="))
    code = False
    if not spaced:
        code = pos > gap  # ``token = value``: a spaced ``=`` is code's (or a config's) assignment
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
    if len(value) < _VALUE_MIN or _NOT_VALUE.fullmatch(value) or _REFERENCE.match(value):
        return None
    if len(set(value)) < 4:
        return None  # ``********``, ``xxxxxx``
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


def second_opinion(data: bytes, taken: Sequence[tuple[int, int]] = ()) -> list[Hit]:
    """The suspected secrets in ``data``, as hits named ``second-opinion:<kind>``.

    Args:
        taken: spans the scanner already reported (its findings, in order, not overlapping):
            not reported again.
    """
    ends = [b for _, b in taken]
    out: list[Hit] = []
    for match in _GATE.finditer(data):
        start, end = match.start(), match.end()
        if _in_placeholder(data, start):
            continue
        head = data[start : start + 1]
        span: tuple[int, int] | None = None
        kind = ""
        if data.startswith(b"-----BEGIN", start):
            span, kind = _private_key(data, end), "private-key"
        elif data.startswith(b"://", start):
            if end - start > _URL_MAX:
                continue
            colon = data.find(b":", start + 3, end - 1)
            secret = data[colon + 1 : end - 1]
            if (
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
            a = start + (2 if head == b"\\" else 1)
            jwt = (
                _JWT.match(data, a)
                if data.startswith(b"ey", a) and data[end : end + 1] == b"."
                else None
            )
            if jwt is not None:
                span, kind = ((a, jwt.end()), "jwt") if _jwt(jwt.group()) else (None, "")
            else:
                span, kind = _random(data, a, end), "random"
        else:
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


def _random(data: bytes, a: int, end: int) -> tuple[int, int] | None:
    """The run ``data[a:end]`` when it looks random and is not named as an id, a digest, a
    public key or a line of wrapped data."""
    run = data[a:end]
    token = (
        a  # the whole token a run after ``_`` or ``-`` ends (``ses_…``): named by what is before it
    )
    while (
        token > 0
        and (data[token - 1 : token].isalnum() or data[token - 1] in b"_-")
        and a - token < 24
    ):
        token -= 1
    before = data[max(0, token - 32) : token]
    if (
        random_looking(run)
        and not _DIGEST_BEFORE.search(data[max(0, token - 32) : a])
        and not _PUBLIC_BEFORE.search(before)
        and not _ID_BEFORE.search(before)
        and not _wrapped(data, a, end)
    ):
        return a, end
    return None
