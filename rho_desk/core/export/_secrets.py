"""Secret detection: the rules, the known credentials, their encoded forms, and fingerprints.

A ``SecretScanner`` finds secrets in a byte buffer: a JSON document, a Markdown or HTML transcript,
or many strings joined with ``0xFF`` (a byte that never occurs in UTF-8, so no match can run from
one string into the next). It knows two kinds of secret:

* **rule secrets**, recognised by shape: API keys of OpenAI, Anthropic, GitHub, AWS, Google,
  Slack, Stripe, GitLab, Hugging Face, npm and PyPI; JWTs; private-key blocks; authorization and
  bearer headers; cookies; signed-URL query values; passwords in URLs; credential assignments
  (``"client_secret": "..."``, ``TOKEN=...``); and upstream's audit canaries (spec/export.md §5.4);
* **known secrets**, the credentials rho-desk holds in keyring, matched literally.

Both are also found in encoded forms: JSON-escaped (``\\u0073k-...``), URL-encoded
(``sk%2Dproj...``), base64 (any alignment), and, for known secrets, upper- and lower-cased.

Speed (the export target is 30 MB/s for the whole pipeline, issue 4; ``re`` offers no
multi-pattern search, so the design counts passes over the data):

* token rules and known credentials: ``bytes.translate`` maps base64/identifier bytes to one
  letter, one literal search finds every run of at least ``MIN_RUN`` of them, and the rules run
  over those runs only (a few percent of the text);
* keyword rules (headers, assignments, URLs): one regex each over the text without its large
  base64 blobs; each starts with a literal chosen to begin with a rare letter of its keyword,
  because ``re``'s literal search runs at the speed of its first byte (~32 ms per 100 MB);
* encoded regions (a ``%`` or ``\\u`` literal, mixed-case runs, blobs) are decoded and rescanned
  as one buffer; a blob's result is memoized by SHA-256 for the next scan of the same bytes;
* ``rescan`` turns a full second scan after redaction into a scan of the changed lines.

A value found is never printed, logged or stored: ``Hit`` hides it from ``repr``, and reports
carry a keyed HMAC fingerprint instead (``fingerprint``).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import hmac
import html
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add
from typing import Final
from urllib.parse import quote, quote_plus, unquote_to_bytes

__all__ = [
    "KNOWN_SECRET_MIN_LENGTH",
    "RULES",
    "RULESET_VERSION",
    "Hit",
    "SecretScanner",
    "fingerprint",
    "merge_hits",
]

KNOWN_SECRET_MIN_LENGTH: Final = 6
"""Known secrets shorter than this are not searched: they would match ordinary text."""

SEPARATOR: Final = b"\xff"
"""Joins strings into one scan buffer; never part of UTF-8, so no match crosses it."""

RULESET_VERSION: Final = 1
"""The version of the rule set below; receipts record (and sign) it. Raise it when rules change."""

# Rule ids with what they find (the receipt and the audit report name these ids).
RULES: Final[dict[str, str]] = {
    "openai-api-key": "OpenAI API key (sk-...)",
    "anthropic-api-key": "Anthropic API key (sk-ant-...)",
    "github-token": "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    "aws-access-key-id": "AWS access key id (AKIA..., ASIA...)",
    "google-api-key": "Google API key (AIza...)",
    "slack-token": "Slack token (xox?-) or webhook URL",
    "stripe-api-key": "Stripe secret or restricted key (sk_live_, rk_test_, ...)",
    "gitlab-token": "GitLab personal access token (glpat-)",
    "huggingface-token": "Hugging Face token (hf_)",
    "npm-token": "npm token (npm_)",
    "pypi-token": "PyPI upload token (pypi-AgE...)",
    "jwt": "JSON Web Token",
    "private-key": "private key block (-----BEGIN ... PRIVATE KEY-----)",
    "authorization-header": "Authorization header value",
    "bearer-token": "Bearer token",
    "cookie": "Cookie or Set-Cookie header value",
    "url-password": "password in a URL (scheme://user:password@host)",
    "webhook-url": "secret webhook URL (Slack, Discord)",
    "signed-url-query": "signed-URL or credential query value (X-Amz-Signature, sig, token, key, ...)",
    "credential-assignment": "credential assigned to a password/secret/token/api-key name",
    "rho-audit-canary": "one of upstream Rho's secret audit canaries",
    "known-credential": "a credential rho-desk holds in keyring",
}


@dataclass(frozen=True, slots=True, repr=False)
class Hit:
    """One secret found: where (byte offsets of the span to replace) and which rule.

    ``value`` is the secret itself (decoded, canonical), kept only to compute a fingerprint.
    It never appears in ``repr``.
    """

    rule: str
    start: int
    end: int
    value: bytes = field(compare=False)
    encoding: str = "plain"
    """How the secret was written: ``plain``, ``case``, ``json-escape``, ``html-escape``,
    ``percent``, ``unicode-escape`` or ``base64``."""

    def __repr__(self) -> str:
        return f"Hit(rule={self.rule!r}, start={self.start}, end={self.end}, encoding={self.encoding!r})"


def fingerprint(key: bytes, value: bytes | str) -> str:
    """``fp:`` + the first 16 hex digits of HMAC-SHA256(key, value).

    The same secret gives the same fingerprint under the same key (so exports can be compared)
    without revealing it: a fingerprint cannot be brute-forced without the key in keyring.
    """
    data = value.encode("utf-8") if isinstance(value, str) else value
    return "fp:" + hmac.new(key, data, hashlib.sha256).hexdigest()[:16]


def merge_hits(hits: Iterable[Hit]) -> list[Hit]:
    """Hits sorted by position with overlaps merged (the first hit of a group names it)."""
    ordered = sorted(hits, key=lambda h: (h.start, -h.end))
    merged: list[Hit] = []
    for hit in ordered:
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            if hit.end > last.end:
                merged[-1] = Hit(last.rule, last.start, hit.end, last.value, last.encoding)
            continue
        merged.append(hit)
    return merged


# --- character classes ------------------------------------------------------------------------

_ALNUM: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_DIGITS: Final = frozenset(b"0123456789")
_LETTERS: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# A value ends at whitespace, quotes, backslashes (JSON escapes), separators and the buffer
# separators; \x00 separates decoded pieces in the rescans.
_VALUE: Final = rb"[^\s\"'`\\,;&<>(){}\[\]\x00\xff]"
_COOKIE_VALUE: Final = rb"[^\r\n\"'`\\<>\x00\xff]"
_QUERY_VALUE: Final = rb"[^&#\s\"'`\\<>\x00\xff]"
# an optional quote, possibly JSON-escaped once or more (`\"`, `\\\"` in JSON inside JSON)
_Q: Final = rb"(?:\\{0,7}[\"'])?"
_ASSIGN: Final = _Q + rb"[ \t]{0,4}[:=][ \t]{0,4}" + _Q
_COLON: Final = _Q + rb"[ \t]{0,4}:[ \t]{0,4}" + _Q


_HEX: Final = frozenset(b"0123456789abcdefABCDEF")


def _escaped(data: bytes, i: int) -> bool:
    """True when ``data[i]`` is preceded by an odd number of backslashes (it is escaped)."""
    j = i - 1
    while j >= 0 and data[j] == 0x5C:
        j -= 1
    return (i - 1 - j) % 2 == 1


def _escape_before(data: bytes, pos: int) -> bool:
    """True when a JSON escape (``\\n``, ``\\t``, ``\\u00e9``...) ends right before ``pos``.

    In JSON text a token after a newline reads ``\\nsk-...``: the ``n`` is not part of it.
    """
    if pos >= 1 and _escaped(data, pos - 1):
        return True
    return pos >= 6 and data[pos - 5] == 0x75 and _escaped(data, pos - 5) and all(b in _HEX for b in data[pos - 4 : pos])


def _boundary_before(data: bytes, start: int) -> bool:
    """True when ``start`` is not inside a longer alphanumeric word."""
    return start == 0 or data[start - 1] not in _ALNUM or _escape_before(data, start)


def _run_start(data: bytes, start: int, end: int) -> int:
    """Skip the tail of a JSON escape a run begins with (``\\nQUJD...`` starts at ``Q``)."""
    if start > 0 and data[start - 1] == 0x5C and _escaped(data, start):
        if data[start] == 0x75 and end - start >= 5 and all(b in _HEX for b in data[start + 1 : start + 5]):
            return start + 5
        return start + 1
    return start


def _boundary_after(data: bytes, end: int) -> bool:
    return end >= len(data) or data[end] not in _ALNUM


def _mixed(value: bytes) -> bool:
    """Has both a digit and a letter: random credentials do, ordinary words and names do not."""
    return not _DIGITS.isdisjoint(value) and not _LETTERS.isdisjoint(value)


# --- the passes -------------------------------------------------------------------------------

Handler = Callable[[bytes, "re.Match[bytes]"], "Hit | None"]


@dataclass(frozen=True)
class _Pass:
    """One regex (it starts with a literal, for speed) and what a match means."""

    pattern: re.Pattern[bytes]
    handle: Handler
    confirm: re.Pattern[bytes] | None = None
    """For token rules: the full pattern, matched on the data where ``pattern`` matched a run
    (a JWT continues past its first run at the dot)."""


def _token(rule: str, *, right: bool = False, check: Callable[[bytes], bool] | None = None, skip: int = 0) -> Handler:
    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        start, end = m.span()
        if not _boundary_before(data, start):
            return None
        if right and not _boundary_after(data, end):
            return None
        value = m.group()
        if check is not None and not check(value[skip:]):
            return None
        return Hit(rule, start, end, value)

    return handle


def _openai_or_anthropic(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    value = m.group()
    if not _boundary_before(data, start) or not _mixed(value[3:]):
        return None
    rule = "anthropic-api-key" if value.startswith(b"sk-ant-") else "openai-api-key"
    return Hit(rule, start, end, value)


def _stripe(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    value = m.group()
    if not _boundary_before(data, start) or not _mixed(value[8:]):
        return None
    return Hit("stripe-api-key", start, end, value)


_SCHEMES: Final = frozenset(
    {b"bearer", b"basic", b"token", b"digest", b"bot", b"ssws", b"apikey", b"negotiate", b"ntlm"}
)


def _authorization(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value")
    if value.lower() in _SCHEMES:
        return None  # "Authorization: Bearer <token>" with a placeholder: nothing to hide
    return Hit("authorization-header", m.start("value"), m.end("value"), value)


def _bearer(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value")
    if not _mixed(value):
        return None  # "Bearer authentication" is prose, not a token
    return Hit("bearer-token", m.start("value"), m.end("value"), value)


_COOKIE_PAIR: Final = re.compile(rb"[A-Za-z0-9_.\-]{1,128}=")


def _cookie(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value").rstrip()
    if _COOKIE_PAIR.match(value) is None:
        return None  # a cookie header starts with name=value; "Cookie: header values..." is prose
    start = m.start("value")
    return Hit("cookie", start, start + len(value), value)


_PEM_REST: Final = re.compile(rb'[^\x00\xff"]{0,65536}?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----')
_PEM_BODY: Final = re.compile(rb"(?:[A-Za-z0-9+/=\s:,.\-]|\\[nrt])*")


def _private_key(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """From ``-----BEGIN … PRIVATE KEY-----`` through its ``-----END`` line (or the end of the
    base64 body when the block is cut short)."""
    start = m.start()
    while start > 0 and m.start() - start < 5 and data[start - 1] == 0x2D:
        start -= 1
    rest = _PEM_REST.match(data, m.end())
    end = rest.end() if rest is not None else _PEM_BODY.match(data, m.end()).end()  # type: ignore[union-attr]
    return Hit("private-key", start, end, data[start:end])


def _url(data: bytes, m: re.Match[bytes]) -> Hit | None:
    for name, rule in (("password", "url-password"), ("slack", "webhook-url"), ("discord", "webhook-url")):
        if m.group(name) is not None:
            return Hit(rule, m.start(name), m.end(name), m.group(name))
    return None


def _param_name(data: bytes, end: int) -> tuple[bytes, int]:
    """The parameter name ending at ``end`` and the offset where it starts."""
    start = end
    while start > 0 and end - start < 64 and (data[start - 1] in _ALNUM or data[start - 1] in b"_-."):
        start -= 1
    return data[start:end], start


def _query_delimited(data: bytes, name_start: int) -> bool:
    """The name follows ``?``, ``&`` or ``;`` (``&amp;`` in HTML): it is a URL query parameter."""
    return name_start > 0 and data[name_start - 1] in b"?&;"


_SIGNED_PARAMS: Final = frozenset(
    {b"sig", b"signature", b"x-amz-signature", b"x-goog-signature", b"x-amz-credential",
     b"x-goog-credential", b"credential"}
)


_KEY_PARAMS: Final = frozenset({b"key", b"api_key", b"apikey", b"api-key", b"access_key", b"secret_key", b"private_key"})


def _signed_query(literal: bytes, names: frozenset[bytes] | None) -> Handler:
    """A query parameter ``NAME=VALUE`` whose name ends where ``literal`` ends (before ``=``)."""
    cut = len(literal) - 1

    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        name, name_start = _param_name(data, m.start() + cut)
        if not _query_delimited(data, name_start):
            return None
        if names is not None and name.lower() not in names:
            return None
        value = m.group("value")
        if len(value) < 8:
            return None
        return Hit("signed-url-query", m.start("value"), m.end("value"), value)

    return handle


def _assignment(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``password: x``, ``"client_secret": "..."``, ``GITHUB_TOKEN=...``, ``api_key=...``."""
    value = m.group("value")
    if not _mixed(value):
        return None  # references (os.environ, self.token) and placeholders have no digits
    _, name_start = _param_name(data, m.start())
    rule = "signed-url-query" if _query_delimited(data, name_start) else "credential-assignment"
    return Hit(rule, m.start("value"), m.end("value"), value)


def _compile(pattern: bytes) -> re.Pattern[bytes]:
    return re.compile(pattern)


# Token rules: a fixed prefix then random characters. Every match lies inside one run of
# base64/identifier characters at least ``MIN_RUN`` long, so these run over the (small) buffer
# of such runs only, and each candidate is confirmed against the full data.
def _token_passes() -> list[_Pass]:
    return [
        _Pass(_compile(rb"sk-[A-Za-z0-9_\-]{32,}"), _openai_or_anthropic),
        _Pass(_compile(rb"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"), _stripe),
        _Pass(
            _compile(rb"g(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})"),
            _token("github-token"),
        ),
        _Pass(_compile(rb"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}"), _token("aws-access-key-id", right=True)),
        _Pass(_compile(rb"AIza[0-9A-Za-z_\-]{35}"), _token("google-api-key")),
        _Pass(_compile(rb"xox[abposr]-[A-Za-z0-9\-]{11,}"), _token("slack-token", check=_mixed, skip=5)),
        _Pass(_compile(rb"glpat-[A-Za-z0-9_\-]{20,}"), _token("gitlab-token")),
        _Pass(_compile(rb"hf_[A-Za-z0-9]{30,}"), _token("huggingface-token", check=_mixed, skip=3)),
        _Pass(_compile(rb"npm_[A-Za-z0-9]{36,}"), _token("npm-token")),
        _Pass(_compile(rb"pypi-AgE[A-Za-z0-9_\-]{40,}"), _token("pypi-token")),
        _Pass(
            _compile(rb"eyJ[A-Za-z0-9_\-]{13,}"),
            _token("jwt"),
            _compile(rb"eyJ[A-Za-z0-9_\-]{13,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"),
        ),
        _Pass(
            _compile(rb"RHO_AUDIT_(?:API_KEY_7f3a|OAUTH_ACCESS_1c9d|REFRESH_442e|COOKIE_88b1|SIGNED_QUERY_629a)"),
            _token("rho-audit-canary"),
        ),
    ]


# Keyword rules run over the whole text, one regex each. ``re`` finds a literal prefix fast, at a
# speed set by how often the literal's *first* byte occurs: each literal therefore starts at a rare
# letter of its keyword ("zation" for Authorization, "ken" for Token), and a lookbehind checks
# the rest. Measured on 100 MB of session JSON: ~32 ms a pass, against ~60-75 ms for "ookie",
# "earer" or "ecret". Names may continue after the keyword (client_secret_value, TOKEN_V2).
_ASSIGNMENT_LITERALS: Final = (
    rb"word(?<=[Pp]assword)", rb"ASSWORD", rb"cret(?<=[Ss]ecret)", rb"ECRET", rb"ken(?<=[Tt]oken)", rb"OKEN",
    rb"pi(?:_key|Key|key|-key)", rb"PI_?KEY",
)


def _keyword_passes() -> list[_Pass]:
    v = _VALUE
    passes = [
        _Pass(_compile(rb"BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-{2,5}"), _private_key),
        _Pass(
            _compile(
                rb"zation(?<=[Aa]uthorization)" + _ASSIGN
                + rb"(?:(?:Bearer|Basic|Token|Digest|Bot|SSWS|ApiKey|bearer|basic|token)[ \t]+)?"
                + rb"(?P<value>" + v + rb"{6,})"
            ),
            _authorization,
        ),
        _Pass(_compile(rb"Bearer[ \t]{1,4}(?P<value>[A-Za-z0-9\-._~+/]{12,}=*)"), _bearer),
        _Pass(_compile(rb"bearer[ \t]{1,4}(?P<value>[A-Za-z0-9\-._~+/]{12,}=*)"), _bearer),
        _Pass(_compile(rb"kie(?<=[Cc]ookie)" + _COLON + rb"(?P<value>" + _COOKIE_VALUE + rb"{4,})"), _cookie),
        _Pass(
            _compile(
                rb"://(?:[^/\s:@\"'`\\<>\x00\xff]{1,128}:(?P<password>[^/\s@\"'`\\<>\x00\xff]{1,256})@"
                rb"|hooks\.slack\.com/services/(?P<slack>T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{8,})"
                rb"|discord(?:app)?\.com/api/webhooks/(?P<discord>[0-9]+/[A-Za-z0-9_\-]{20,}))"
            ),
            _url,
        ),
        _Pass(_compile(rb"gnature=(?P<value>" + _QUERY_VALUE + rb"+)"), _signed_query(b"gnature=", None)),
        _Pass(_compile(rb"g=(?<=sig=)(?P<value>" + _QUERY_VALUE + rb"+)"), _signed_query(b"g=", _SIGNED_PARAMS)),
        _Pass(_compile(rb"dential=(?P<value>" + _QUERY_VALUE + rb"+)"), _signed_query(b"dential=", _SIGNED_PARAMS)),
        _Pass(_compile(rb"key=(?P<value>" + _QUERY_VALUE + rb"+)"), _signed_query(b"key=", _KEY_PARAMS)),
    ]
    for literal in _ASSIGNMENT_LITERALS:
        passes.append(
            _Pass(
                _compile(literal + rb"(?P<name>[A-Za-z0-9_\-]{0,24})" + _ASSIGN + rb"(?P<value>" + v + rb"{8,})"),
                _assignment,
            )
        )
    return passes


# --- encoded regions --------------------------------------------------------------------------

_PERCENT = re.compile(rb"%[0-9A-Fa-f]{2}")
_UNICODE_ESCAPE = re.compile(rb"\\u[0-9A-Fa-f]{4}")
_URL_TOKEN_BYTES: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+-%")
_ESCAPED_TOKEN_RE = re.compile(rb"(?:[A-Za-z0-9._~+%\-/:= ]|\\u[0-9A-Fa-f]{4}|\\/)+")
_UNICODE_ESCAPE_SUB = re.compile(rb"\\u([0-9A-Fa-f]{4})|\\/")

_RUN_ALPHABET: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"
# Every base64/identifier character becomes "a", everything else a space: runs of MIN_RUN "a"
# are then found by a literal search, an order of magnitude faster than a character-class regex.
_RUN_TABLE: Final = bytes(0x61 if b in _RUN_ALPHABET else 0x20 for b in range(256))
MIN_RUN: Final = 16
BLOB_MIN: Final = 4096
"""Runs at least this long are blobs (images, encrypted context): decoded, not keyword-scanned."""
_BLOB_HEAD: Final = 256
"""Bytes of a blob left in the keyword-scan text, so a header value that is a blob is still seen."""
_RUN = re.compile(b"a" * MIN_RUN + b"a*")
_URLSAFE_TO_STD: Final = bytes.maketrans(b"-_", b"+/")
_PIECE_GAP: Final = b"\n\x00\n"


def _expand(data: bytes, start: int, end: int, allowed: frozenset[int], limit: int = 4096) -> tuple[int, int]:
    """Grow ``[start, end)`` over neighbouring bytes in ``allowed`` (at most ``limit`` each way)."""
    lo = start
    while lo > 0 and start - lo < limit and data[lo - 1] in allowed:
        lo -= 1
    hi = end
    size = len(data)
    while hi < size and hi - end < limit and data[hi] in allowed:
        hi += 1
    return lo, hi


def _padded(data: bytes, end: int) -> int:
    """``end`` moved past the base64 padding that follows a run (``=`` is not a run byte)."""
    stop = min(end + 2, len(data))
    while end < stop and data[end] == 0x3D:
        end += 1
    return end


def _decode_unicode_escapes(token: bytes) -> bytes:
    def one(m: re.Match[bytes]) -> bytes:
        if m.group(1) is None:
            return b"/"
        return chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass")

    return _UNICODE_ESCAPE_SUB.sub(one, token)


def _b64_decode(run: bytes) -> bytes | None:
    if b"-" in run or b"_" in run:
        if b"+" in run or b"/" in run:
            return None  # both alphabets: a path or an identifier, not base64
        run = run.translate(_URLSAFE_TO_STD)
    # the run stops before "=" padding: pad again (a lone trailing character carries no byte)
    rest = len(run) % 4
    run = run[:-1] if rest == 1 else run + b"=" * ((4 - rest) % 4)
    try:
        return binascii.a2b_base64(run)
    except binascii.Error:
        return None


class _Joined:
    """Pieces of bytes joined into one buffer, with the way back to where each piece came from."""

    __slots__ = ("buffer", "origins", "starts")

    def __init__(self, pieces: list[bytes], origins: list[int], gap: bytes) -> None:
        self.buffer = gap.join(pieces)
        self.origins = origins
        # start of piece i = the lengths of pieces before it + i gaps (C-level loops: there can
        # be hundreds of thousands of pieces)
        ends = list(accumulate(map(len, pieces)))
        self.starts = list(map(add, [0, *ends[:-1]], range(0, len(pieces) * len(gap), len(gap)) if gap else repeat(0)))

    def locate(self, offset: int) -> tuple[int, int]:
        """(piece index, offset of ``offset`` in the original coordinates)."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index, self.origins[index] + offset - self.starts[index]


class SecretScanner:
    """Finds rule secrets and known secrets, plain and encoded, in byte buffers.

    Build one per export: it precomputes the known secrets' forms and memoizes the rescan of
    large base64 blobs by their SHA-256, so an image scanned while redacting is not decoded
    again by the audit of the output that holds the same bytes (same bytes, same result).

    Args:
        known_secrets: credential values to find literally (shorter than
            ``KNOWN_SECRET_MIN_LENGTH`` characters are skipped and counted in ``ignored_short``).
    """

    def __init__(self, known_secrets: Iterable[str] = ()) -> None:
        self._token_passes = _token_passes()
        self._keyword_passes = _keyword_passes()
        secrets = sorted({s for s in known_secrets if s and s.strip()})
        self.ignored_short = sum(1 for s in secrets if len(s) < KNOWN_SECRET_MIN_LENGTH)
        self.known_count = len(secrets) - self.ignored_short
        # forms made only of run characters and long enough are searched among the runs;
        # the others over the whole text
        self._known_in_runs: list[tuple[re.Pattern[bytes], bytes, str]] = []
        self._known_in_text: list[tuple[re.Pattern[bytes], bytes, str]] = []
        seen: set[bytes] = set()
        run_bytes = frozenset(_RUN_ALPHABET)
        for secret in secrets:
            if len(secret) < KNOWN_SECRET_MIN_LENGTH:
                continue
            raw = secret.encode("utf-8")
            for form, encoding in _known_forms(secret):
                if not form or form in seen:
                    continue
                seen.add(form)
                entry = (re.compile(re.escape(form)), raw, encoding)
                if len(form) >= MIN_RUN and run_bytes.issuperset(form):
                    self._known_in_runs.append(entry)
                else:
                    self._known_in_text.append(entry)
        self._blob_cache: dict[bytes, list[tuple[str, bytes]]] = {}

    # -- public ---------------------------------------------------------------------------------

    def scan(self, data: bytes, *, decoded: list[tuple[int, int, bytes]] | None = None) -> list[Hit]:
        """Every secret in ``data``, plain and encoded, overlaps merged, in order.

        Args:
            decoded: if given, receives ``(start, end, text)`` for every encoded region that
                decodes to ASCII text (URL-encoded and unicode-escaped tokens, base64 runs under
                ``BLOB_MIN``): the audit looks there for echoes of excluded content.
        """
        return merge_hits(self._scan(data, decode=True, keywords=True, decoded=decoded))

    def scan_strings(self, strings: list[str]) -> dict[int, list[Hit]]:
        """Secrets per string (offsets within each string's UTF-8 bytes), for many strings at once.

        The strings are joined with ``SEPARATOR`` and scanned as one buffer.
        """
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        joined = _Joined(encoded, [0] * len(encoded), SEPARATOR)
        result: dict[int, list[Hit]] = {}
        for hit in self.scan(joined.buffer):
            index = bisect.bisect_right(joined.starts, hit.start) - 1
            base = joined.starts[index]
            end = min(hit.end, base + len(encoded[index]))
            result.setdefault(index, []).append(Hit(hit.rule, hit.start - base, end - base, hit.value, hit.encoding))
        return result

    def redact_location(self, location: str) -> str:
        """``location`` (a JSON path, which names object keys) with any secret in it masked.

        Reports carry paths, and a path can hold a key that is itself a secret.
        """
        data = location.encode("utf-8", "surrogatepass")
        hits = self.scan(data)
        if not hits:
            return location
        out = []
        pos = 0
        for hit in hits:
            out.append(data[pos : hit.start])
            out.append(f"[secret: {hit.rule}]".encode())
            pos = max(pos, hit.end)
        out.append(data[pos:])
        return b"".join(out).decode("utf-8", "replace")

    def rescan(
        self,
        old: bytes,
        old_hits: list[Hit],
        new: bytes,
        *,
        old_decoded: list[tuple[int, int, bytes]] | None = None,
        decoded: list[tuple[int, int, bytes]] | None = None,
    ) -> list[Hit]:
        """``scan(new)``, given ``old_hits = scan(old)`` and ``new`` differing from ``old`` in a few lines.

        Every byte of ``new`` is accounted for: lines byte-identical to lines of ``old`` (compared
        in full) keep ``old``'s hits, shifted; every other line is scanned. The result equals a
        full scan for text in which no detection crosses a line break, which holds for pretty
        JSON (rho-desk's JSON exports): every pattern, context check and token expansion stops at
        ``\\n``, and JSON writes no raw newline inside a string. Used after redaction, where a
        100 MB export differs from its first encoding in a few dozen lines.
        """
        same, changed = _line_diff(old, new)
        starts = [a for a, _, _ in same]

        def moved(start: int, end: int) -> int | None:
            """How far a span of ``old`` moved, if it lies in an unchanged run of lines."""
            k = bisect.bisect_right(starts, start) - 1
            if k < 0:
                return None
            a, b, n = same[k]
            return b - a if end <= a + n else None

        out: list[Hit] = []
        for hit in old_hits:
            shift = moved(hit.start, hit.end)
            if shift is not None:
                out.append(Hit(hit.rule, hit.start + shift, hit.end + shift, hit.value, hit.encoding))
        if decoded is not None and old_decoded:
            for start, end, text in old_decoded:
                shift = moved(start, end)
                if shift is not None:
                    decoded.append((start + shift, end + shift, text))
        if changed:
            joined = _Joined([new[s:e] for s, e in changed], [s for s, _ in changed], b"\n")
            fresh: list[tuple[int, int, bytes]] | None = [] if decoded is not None else None
            for hit in self.scan(joined.buffer, decoded=fresh):
                _, origin = joined.locate(hit.start)
                out.append(Hit(hit.rule, origin, origin + hit.end - hit.start, hit.value, hit.encoding))
            if decoded is not None and fresh:
                for start, end, text in fresh:
                    _, origin = joined.locate(start)
                    decoded.append((origin, origin + end - start, text))
        if decoded is not None:
            decoded.sort(key=lambda piece: piece[0])
        return merge_hits(out)

    # -- the scan -------------------------------------------------------------------------------

    def _scan(self, data: bytes, *, decode: bool, keywords: bool, decoded: list[tuple[int, int, bytes]] | None = None) -> list[Hit]:
        hits: list[Hit] = []
        # 1. runs of base64/identifier characters: candidates for token rules, known secrets and
        #    base64; long ones are blobs
        runs = [m.span() for m in _RUN.finditer(data.translate(_RUN_TABLE))]
        if b"\\" in data:
            runs = [(_run_start(data, s, e), e) for s, e in runs]
            runs = [(s, e) for s, e in runs if e - s >= MIN_RUN]
        small = [(s, e) for s, e in runs if e - s < BLOB_MIN]
        blobs = [(s, e) for s, e in runs if e - s >= BLOB_MIN]
        if small:
            self._scan_runs(data, small, hits)
        # 2. keyword rules and non-run known secrets over the text without the blobs' bodies
        if keywords:
            text = self._text_without_blobs(data, blobs)
            passes = [*self._keyword_passes, *(_Pass(p, _known_handler(raw, enc)) for p, raw, enc in self._known_in_text)]
            for rule in passes:
                for m in rule.pattern.finditer(text.buffer):
                    _, origin = text.locate(m.start())
                    m2 = rule.pattern.match(data, origin)
                    if m2 is None:
                        continue  # only possible at a blob cut: the data continues differently
                    hit = rule.handle(data, m2)
                    if hit is not None:
                        hits.append(hit)
        if decode:
            self._scan_decoded(data, small, blobs, hits, decoded)
        return hits

    def _scan_runs(self, data: bytes, runs: list[tuple[int, int]], hits: list[Hit]) -> None:
        joined = _Joined([data[s:e] for s, e in runs], [s for s, _ in runs], SEPARATOR)
        buffer = joined.buffer
        for rule in self._token_passes:
            confirm = rule.confirm or rule.pattern
            for m in rule.pattern.finditer(buffer):
                _, origin = joined.locate(m.start())
                m2 = confirm.match(data, origin)
                if m2 is not None:
                    hit = rule.handle(data, m2)
                    if hit is not None:
                        hits.append(hit)
        for pattern, raw, encoding in self._known_in_runs:
            for m in pattern.finditer(buffer):
                _, origin = joined.locate(m.start())
                hits.append(Hit("known-credential", origin, origin + m.end() - m.start(), raw, encoding))

    def _text_without_blobs(self, data: bytes, blobs: list[tuple[int, int]]) -> _Joined:
        if not blobs:
            return _Joined([data], [0], b"")
        pieces: list[bytes] = []
        origins: list[int] = []
        prev = 0
        for start, end in blobs:
            cut = start + _BLOB_HEAD
            pieces.append(data[prev:cut])
            origins.append(prev)
            prev = end
        pieces.append(data[prev:])
        origins.append(prev)
        return _Joined(pieces, origins, b"\x00")

    def _scan_decoded(
        self,
        data: bytes,
        runs: list[tuple[int, int]],
        blobs: list[tuple[int, int]],
        hits: list[Hit],
        decoded_out: list[tuple[int, int, bytes]] | None,
    ) -> None:
        text_pieces: list[tuple[int, int, bytes, str]] = []
        binary_pieces: list[tuple[int, int, bytes, str]] = []

        def add(start: int, end: int, decoded: bytes, encoding: str) -> None:
            (text_pieces if decoded.isascii() else binary_pieces).append((start, end, decoded, encoding))

        # URL-encoded tokens (sk%2Dproj..., RHO%5FAUDIT...)
        covered = -1
        for m in _PERCENT.finditer(data):
            if m.start() < covered:
                continue
            lo, hi = _expand(data, m.start(), m.end(), _URL_TOKEN_BYTES)
            covered = hi
            add(lo, hi, unquote_to_bytes(data[lo:hi]), "percent")
        # unicode escapes written out as text (\u0073k-...)
        covered = -1
        for m in _UNICODE_ESCAPE.finditer(data):
            if m.start() < covered:
                continue
            token = _ESCAPED_TOKEN_RE.match(data, m.start())
            hi = token.end() if token else m.end()
            lo, _ = _expand(data, m.start(), m.start(), _URL_TOKEN_BYTES)
            covered = hi
            add(lo, hi, _decode_unicode_escapes(data[lo:hi]), "unicode-escape")
        # base64: mixed-case runs (identifiers, paths and hex digests are all one case)
        for start, end in runs:
            run = data[start:end]
            if run.islower() or run.isupper() or run.isdigit():
                continue
            decoded = _b64_decode(run)
            if decoded and len(decoded) >= 8:
                add(start, _padded(data, end), decoded, "base64")
        for start, end in blobs:
            blob = data[start:end]
            digest = hashlib.sha256(blob).digest()
            cached = self._blob_cache.get(digest)
            if cached is None:
                decoded = _b64_decode(blob)
                cached = []
                if decoded:
                    # a blob decodes to an image or ciphertext, or to text (a base64 file)
                    for hit in self._scan(decoded, decode=False, keywords=decoded.isascii()):
                        cached.append((hit.rule, hit.value))
                self._blob_cache[digest] = cached
            hits.extend(Hit(rule, start, _padded(data, end), value, "base64") for rule, value in cached)
        if decoded_out is not None:
            decoded_out.extend((start, end, text) for start, end, text, _ in text_pieces)
        for pieces, keywords in ((text_pieces, True), (binary_pieces, False)):
            if not pieces:
                continue
            joined = _Joined([p[2] for p in pieces], list(range(len(pieces))), _PIECE_GAP)
            for sub in self._scan(joined.buffer, decode=False, keywords=keywords):
                index = bisect.bisect_right(joined.starts, sub.start) - 1
                start, end, _, encoding = pieces[index]
                hits.append(Hit(sub.rule, start, end, sub.value, encoding))


def _known_handler(raw: bytes, encoding: str) -> Handler:
    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        return Hit("known-credential", m.start(), m.end(), raw, encoding)

    return handle


def _common_prefix(a: memoryview, i: int, b: memoryview, j: int) -> int:
    """How many bytes ``a[i:]`` and ``b[j:]`` share at their start (galloping, then bisection)."""
    limit = min(len(a) - i, len(b) - j)
    n = 0
    step = 1 << 16
    while n < limit:
        k = min(step, limit - n)
        if a[i + n : i + n + k] != b[j + n : j + n + k]:
            lo, hi = n, n + k  # equal before lo; a difference before hi
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if a[i + lo : i + mid] == b[j + lo : j + mid]:
                    lo = mid
                else:
                    hi = mid
            return lo
        n += k
        step = min(step * 2, 1 << 24)
    return limit


def _line_diff(a: bytes, b: bytes) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]]]:
    """Line-aligned ``(a_start, b_start, length)`` runs equal in both, and the other lines of ``b``.

    Lines are paired in order; a line only in ``b`` (an insertion) makes the following lines
    differ as well, which costs a larger rescan but never a wrong result.
    """
    ma, mb = memoryview(a), memoryview(b)
    same: list[tuple[int, int, int]] = []
    changed: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        n = _common_prefix(ma, i, mb, j)
        if i + n == len(a) and j + n == len(b):
            if n:
                same.append((i, j, n))
            break
        keep = b.rfind(b"\n", j, j + n) + 1 - j  # whole lines only
        if keep > 0:
            same.append((i, j, keep))
            i += keep
            j += keep
        if i >= len(a):
            changed.append((j, len(b)))  # lines only in b, at the end
            break
        if j >= len(b):
            break  # lines only in a: nothing of b left to scan
        end_a = a.find(b"\n", i)
        end_b = b.find(b"\n", j)
        end_a = len(a) if end_a < 0 else end_a
        end_b = len(b) if end_b < 0 else end_b
        changed.append((j, end_b))
        i, j = end_a, end_b
    return same, changed


def _known_forms(secret: str) -> list[tuple[bytes, str]]:
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
