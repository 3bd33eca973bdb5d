"""Secret detection: the scanner, the known credentials, and the encoded forms it decodes.

The rules themselves (their shapes, ``Hit``, fingerprints, the token and keyword passes) live in
``_rules``; this module runs them over a buffer and over what its encoded regions decode to.

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
import bz2
import hashlib
import html
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from itertools import accumulate, repeat
from operator import add
from typing import Final
from urllib.parse import quote, quote_plus, unquote_to_bytes

from ._grammar import der_private_key, entropy_hits, grammar_passes, hex_key_pass, jwk_hits
from ._prefilter import HYPERSCAN, Gate, Reports, Rule, gate, hyperscan_syntax
from ._rules import (
    KNOWN_SECRET_MIN_LENGTH,
    RULES,
    RULESET_VERSION,
    SEPARATOR,
    Handler,
    Hit,
    _aws_secret_near,
    _keyword_passes,
    _Pass,
    _run_start,
    _spend,
    _spent,
    _token_passes,
    _unescaped_start,
    _vendor,
    fingerprint,
    merge_hits,
    placeholder,
)
from ._views import (
    _DUMP_START,
    CONTINUATION,
    FOLD_TRIGGER,
    decode_dumps,
    fold_pieces,
    removal_pieces,
    windows,
)

__all__ = [
    "KNOWN_SECRET_MIN_LENGTH",
    "RULES",
    "RULESET_VERSION",
    "Hit",
    "SecretScanner",
    "fingerprint",
    "merge_hits",
]


# --- encoded regions --------------------------------------------------------------------------

_PERCENT = re.compile(rb"%[0-9A-Fa-f]{2}")
_ESCAPE_START = re.compile(rb"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[0-3][0-7]{2})")
"""Where an escaped token may start: ``\\u0073`` or ``\\x73`` (one pass finds both)."""
# a token written with escapes: any depth of backslashes (JSON doubles them at each level)
_ESCAPED_TOKEN_RE = re.compile(rb"(?:[A-Za-z0-9._~+%\-/:= ]|\\{1,8}(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[0-3][0-7]{2}|/))+")
_ESCAPE_SUB = re.compile(rb"\\{1,8}(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|([0-3][0-7]{2})|/)")
ESCAPED_TOKEN_MAX: Final = 4096
"""Longest escaped token decoded, in bytes of its escaped form."""
_ENCODED_MIN: Final = 8
"""Shorter encoded tokens are not decoded: they cannot hold a secret (the shortest is 6 bytes)."""
MAX_DEPTH: Final = 4
"""Encodings decoded inside one another at most (base64 in base64 in gzip is depth 3)."""
INFLATE_MAX: Final = 1 << 22
"""Most bytes one gzip or zlib stream is inflated to (a bomb is cut there)."""
INFLATE_RATIO: Final = 16
"""... and at most this many times its compressed size."""
# zero-width and invisible characters a key can hide behind (U+200B-U+200D, U+2060, U+FEFF, U+00AD)
_ZERO_WIDTH = re.compile(rb"\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xc2\xad")
_ZERO_WIDTH_WINDOW: Final = 192
_HEX_RUN: Final = b"0123456789abcdefABCDEF"
HEX_MIN: Final = 32
"""Shortest hex run decoded (16 bytes: shorter hex is an id or a colour, not an encoded key)."""
_WRAP_CHUNK: Final = 32768
"""Wrapped blocks are decoded this many characters at a time."""
_WRAP_GAP = re.compile(
    rb"[ \t]{0,16}(?:\r?\n|\\r\\n|\\n|<br>|<br/>)"
    rb"(?:[ \t>]{0,16}|[+\-]|[ \t]{0,8}[0-9]{1,7}(?::|\xe2\x86\x92|\\u2192|\t|\\t|[ \t]{1,2}\|)[ \t]?)"
)
"""What separates two lines of wrapped base64 or hex: a line break (raw, or JSON-escaped),
with indentation, a quote marker, a diff's ``+`` or ``-``, or a line number (``12:``, ``12→``,
``  12 |``, ``12<tab>``: a file read back through a tool)."""
_SIGNS: Final = frozenset(b"+-")
_DIFF_SIGN: Final = re.compile(rb"(?:\n|\\n)[+\-]")
"""A diff line's sign: after a line break, raw or JSON-escaped."""
NARROW_SKIP: Final = 512
"""Pieces this long whose last ``NARROW_BLOCK`` bytes are base64 data are data, not a token ..."""
NARROW_BLOCK: Final = 128
NARROW_HEAD: Final = 320
"""... of which the first this many bytes are searched (a long token such as ``ops_eyJ…`` or
``fm2_…`` starts there)."""
_BASE64_TEXT: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\\ \t\r\n"
TOKEN_MAX: Final = 8192
"""Longest token a token rule matches, in bytes."""


_NOT_DIGITS: Final = bytes(b for b in range(256) if b not in b"0123456789")


def _base64_block(piece: bytes) -> bool:
    """Base64 data (with its line breaks): only base64 characters, and some ``+`` or ``/``."""
    return not piece.translate(None, _BASE64_TEXT) and (b"+" in piece or b"/" in piece)
_PIECE_MAX: Final = 1024
_KTY: Final = re.compile(rb"kty")
_SEPARATORS: Final = frozenset(b"\x00\xff")
_RUN_CONTEXT: Final = 12
"""Bytes before a run (and between runs) kept with it for the token rules: ``ya29.``, ``SG.``."""

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
_TRIGGERS: Final = {
    "continuation": CONTINUATION.pattern,
    "fold": FOLD_TRIGGER.pattern,
    "zero-width": _ZERO_WIDTH.pattern,
    "percent": _PERCENT.pattern,
    "escape": _ESCAPE_START.pattern,
    "dump": re.escape(_DUMP_START),
    "diff": rb"\n[+\-]|\\n[+\-]",
}
"""What makes a view or a decoder worth running: a gate scan finds which occur, in one pass."""
_FOLD_LEADS: Final = (b"\xef\xbc", b"\xef\xbd", b"\xd0", b"\xd1")
"""The lead bytes of every ``FOLD_TRIGGER`` match: found by ``bytes.find`` before the regex,
which has no literal to search for and would try every position."""


_URL_TABLE: Final = bytes(0x61 if b in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+-%" else 0x20 for b in range(256))


def _expand(marks: bytes, start: int, end: int, limit: int = 4096) -> tuple[int, int]:
    """Grow ``[start, end)`` over neighbouring URL-token bytes (at most ``limit`` each way);
    ``marks`` is the data translated by ``_URL_TABLE`` (a space where a token must stop)."""
    lo = marks.rfind(b" ", max(0, start - limit), start) + 1 or max(0, start - limit)
    hi = marks.find(b" ", end, min(len(marks), end + limit))
    if hi < 0:
        hi = min(len(marks), end + limit)
    return lo, hi


def _padded(data: bytes, end: int, most: int = 2) -> int:
    """``end`` moved past the base64 (or base32) padding that follows a run (``=`` is not a run byte)."""
    stop = min(end + most, len(data))
    while end < stop and data[end] == 0x3D:
        end += 1
    return end


def _decode_escapes(token: bytes) -> bytes:
    """``\\uXXXX``, ``\\xXX`` and ``\\/`` decoded, at any depth of backslashes."""

    def one(m: re.Match[bytes]) -> bytes:
        if m.group(1) is not None:
            return chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass")
        if m.group(2) is not None:
            return bytes((int(m.group(2), 16),))
        if m.group(3) is not None:
            return bytes((int(m.group(3), 8),))
        return b"/"

    return _ESCAPE_SUB.sub(one, token)


def _percent_decode(token: bytes) -> bytes:
    """URL-decoded as many times as it was encoded (``%253D`` → ``%3D`` → ``=``), at most three."""
    for _ in range(3):
        decoded = unquote_to_bytes(token)
        if decoded == token:
            break
        token = decoded
        if b"%" not in token:
            break
    return token


def _inflate(data: bytes) -> bytes | None:
    """A gzip, zlib or bzip2 stream inflated, bounded by ``INFLATE_MAX`` and ``INFLATE_RATIO``."""
    if data[:3] == b"BZh" and data[4:10] == b"1AY&SY":
        limit = min(INFLATE_MAX, INFLATE_RATIO * len(data) + 4096)
        try:
            out = bz2.BZ2Decompressor().decompress(data, limit)
        except (OSError, ValueError):
            return None
        _spend(len(data) + len(out))
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
    _spend(len(data) + len(out))
    return out or None


def _hex_decode(run: bytes) -> bytes | None:
    if len(run) < HEX_MIN or run.translate(None, _HEX_RUN):
        return None
    try:
        return binascii.unhexlify(run[: len(run) & ~1])
    except binascii.Error:
        return None


def _textual(decoded: bytes) -> bool:
    """Mostly printable ASCII: decoded text worth scanning, not random bytes."""
    if not decoded:
        return False
    printable = len(decoded.translate(None, _CONTROL))
    return printable * 10 >= len(decoded) * 9


def _is_text(decoded: bytes) -> bool:
    """ASCII, or UTF-8 text (a key with a zero-width space decodes to that)."""
    if decoded.isascii():
        return True
    try:
        decoded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_CONTROL: Final = bytes(b for b in range(256) if not (32 <= b < 127 or b in b"\t\n\r"))


_BASE32: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _b32_decode(run: bytes) -> bytes | None:
    while len(run) % 8 in (1, 3, 6):
        run = run[:-1]  # a partial quantum carries no whole byte
    try:
        return base64.b32decode(run + b"=" * (-len(run) % 8))
    except binascii.Error:
        return None


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

    def __init__(self, pieces: list[bytes] | list[bytes | memoryview], origins: list[int], gap: bytes) -> None:
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
        self._keyword_passes = _keyword_passes() + grammar_passes()
        self._token_passes.append(hex_key_pass())
        # one hyperscan pass says which rules can match where (None without hyperscan)
        # the token rules, the keyword rules and what makes a view or decoder worth running, in one
        # hyperscan pass (None without hyperscan)
        self._gate = gate([
            *(_token_rule(p) for p in self._token_passes),
            *(_keyword_rule(p) for p in self._keyword_passes),
            *(Rule(t, once=True) for t in _TRIGGERS.values()),
        ])
        self._first_keyword = len(self._token_passes)
        self._first_trigger = self._first_keyword + len(self._keyword_passes)
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
        # every form of every known credential, in one pass (this scanner's own database)
        self._known = [*self._known_in_runs, *self._known_in_text]
        self._known_gate = Gate([Rule(p.pattern, start=p.pattern) for p, _, _ in self._known]) if HYPERSCAN and self._known else None
        self._blob_cache: dict[bytes, list[tuple[str, bytes, str]]] = {}
        self.cost = 0
        """Work done by the scans so far: bytes offered to patterns and decoders (see ``_spend``)."""

    # -- public ---------------------------------------------------------------------------------

    def scan(self, data: bytes, *, decoded: list[tuple[int, int, bytes]] | None = None) -> list[Hit]:
        """Every secret in ``data``, plain and encoded, overlaps merged, in order.

        Args:
            decoded: if given, receives ``(start, end, text)`` for every encoded region that
                decodes to ASCII text (URL-encoded and unicode-escaped tokens, base64 runs under
                ``BLOB_MIN``): the audit looks there for echoes of excluded content.
        """
        before = _spent()
        hits = merge_hits(self._scan(data, depth=0, keywords=True, decoded=decoded))
        self.cost += _spent() - before
        return hits

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

    def _scan(self, data: bytes, *, depth: int, keywords: bool, decoded: list[tuple[int, int, bytes]] | None = None) -> list[Hit]:
        hits: list[Hit] = []
        # binary (a decoded image or ciphertext) is searched for tokens, not decoded further
        decode = depth < MAX_DEPTH and keywords
        # 1. runs of base64/identifier characters: candidates for token rules, known secrets and
        #    base64; long ones are blobs
        _spend(2 * len(data))
        runs = list(map(_SPAN, _RUN.finditer(data.translate(_RUN_TABLE))))
        if b"\\" in data:
            # a run right after a backslash may begin with an escape's tail (\nQUJD...)
            runs = [(_unescaped_start(data, s, e), e) if data[s - 1] == 0x5C else (s, e) for s, e in runs]
            runs = [(s, e) for s, e in runs if e - s >= MIN_RUN]
        reports = self._gate.scan(data) if self._gate is not None else None
        present = self._triggers(data, reports)
        if "diff" in present and runs:
            # a diff line's "+" or "-" before base64 is not part of the run that follows (the
            # signs found by one search, each run moved in place: the runs can be every line)
            for sign in _DIFF_SIGN.finditer(data):
                at = sign.end() - 1
                k = bisect.bisect_left(runs, (at, -1))
                if k < len(runs) and runs[k][0] == at:
                    runs[k] = (at + 1, runs[k][1])
        blobs = [run for run in runs if run[1] - run[0] >= BLOB_MIN]
        small = [run for run in runs if run[1] - run[0] < BLOB_MIN] if blobs else runs
        if small:
            if reports is not None:
                self._scan_runs_gated(data, small, hits, reports)
            else:
                self._scan_runs(data, small, hits)
        if self._known_gate is not None:
            self._scan_known(data, hits)
        # 2. keyword rules (and without hyperscan the known secrets that are not runs) over the
        #    text without the blobs' bodies
        if keywords:
            self._keywords(data, blobs, reports, hits)
        if keywords and small:
            hits.extend(entropy_hits(data, small))
        # 3. an access key id's unlabelled secret key next to it
        for hit in [h for h in hits if h.rule == "aws-access-key-id"]:
            hits.extend(_aws_secret_near(data, hit))
        if decode:
            del reports  # the decoders below can hold a lot: free the gate's reports first
            if "zero-width" in present:
                self._scan_zero_width(data, hits, depth)
            self._scan_views(data, hits, depth, present)
            self._scan_decoded(data, runs, blobs, hits, decoded, depth, present)
        return [hit for hit in hits if not placeholder(hit)]

    def _keywords(self, data: bytes, blobs: list[tuple[int, int]], reports: Reports | None, hits: list[Hit]) -> None:
        """The keyword rules (and without a known-secret gate the known credentials that are not
        runs) over the data without the blobs' bodies. With the gate's ``reports`` (positions in
        ``data``), an anchored rule is confirmed where the gate found its start (outside the
        blobs' bodies), any other rule is searched only when the gate found it."""
        text = self._text_without_blobs(data, blobs)
        whole = not blobs  # the text is the data: its matches need no second look
        known = [] if self._known_gate is not None else self._known_in_text
        passes = [*self._keyword_passes, *(_Pass(p, _known_handler(raw, enc)) for p, raw, enc in known)]
        _spend(len(text.buffer) * (len(passes) + 1))
        lowered = b""
        bodies = [(start + _BLOB_HEAD, end) for start, end in blobs]
        body_starts = [start for start, _ in bodies]
        for i, rule in enumerate(passes):
            gated = reports is not None and i < len(self._keyword_passes)
            if rule.anchor is not None or (gated and rule.gate is not None):
                if gated:
                    assert reports is not None
                    starts = reports.starts[self._first_keyword + i]
                    if not starts:
                        continue  # the gate found no place the rule can begin
                    origins: Iterable[int] = _gated_origins(starts, bodies, body_starts)
                else:
                    anchor = rule.anchor
                    assert anchor is not None  # not gated: only anchored rules come here
                    lowered = lowered or text.buffer.lower()
                    origins = (m.start() if whole else text.locate(m.start())[1] for m in anchor.finditer(lowered))
                skip = rule.skip
                for origin in origins:
                    if skip is not None and data[origin : origin + 16].lower().startswith(skip):
                        continue
                    confirmed = rule.pattern.match(data, origin)
                    hit = rule.handle(data, confirmed) if confirmed is not None else None
                    if hit is not None:
                        hits.append(hit)
                continue
            if gated and reports is not None and not reports.ends[self._first_keyword + i]:
                continue  # the rule cannot match anywhere in this text
            for m in rule.pattern.finditer(text.buffer):
                m2: re.Match[bytes] | None
                if whole:
                    m2 = m
                else:
                    _, origin = text.locate(m.start())
                    m2 = rule.pattern.match(data, origin)
                if m2 is None:
                    continue  # only possible at a blob cut: the data continues differently
                hit = rule.handle(data, m2)
                if hit is not None:
                    hits.append(hit)

        # JWK private members, around each "kty"
        kty = [text.locate(m.start())[1] for m in _KTY.finditer(text.buffer)]
        if kty:
            hits.extend(jwk_hits(data, kty))

    def _scan_runs(self, data: bytes, runs: list[tuple[int, int]], hits: list[Hit]) -> None:
        # runs closer than _RUN_CONTEXT bytes join one piece (``SG.<run>.<run>``), and each piece
        # keeps the bytes before its first run (``ya29.<run>``)
        starts: list[int] = []
        ends: list[int] = []
        first = last = -_PIECE_MAX  # the current piece
        for s, e in runs:
            if s - last <= _RUN_CONTEXT and e - first <= _PIECE_MAX and not _SEPARATORS.intersection(data[last:s]):
                ends[-1] = last = e
            else:
                first = max(0, s - _RUN_CONTEXT)
                starts.append(first)
                ends.append(e)
                last = e
        # each piece ends 2 bytes after its run: base64 padding is part of some tokens
        # long pieces are joined from views of the data, not copies (memory stays near the input)
        view: bytes | memoryview = memoryview(data) if len(starts) * 256 < len(data) else data
        joined = _Joined([view[s : e + 2] for s, e in zip(starts, ends, strict=True)], starts, SEPARATOR)
        size = len(data)
        spent = 0
        narrow, narrow_ends = self._narrow(data, starts, ends, joined)
        for rule in self._token_passes:
            confirm = rule.confirm or rule.pattern
            source, source_ends = (narrow, narrow_ends) if rule.narrow else (joined, ends)
            if not source.buffer:
                continue
            spent += len(source.buffer)
            for m in rule.pattern.finditer(source.buffer):
                index, origin = source.locate(m.start())
                bound = min(size, source_ends[index] + (BLOB_MIN if rule.confirm is not None else 4), origin + TOKEN_MAX)
                spent += bound - origin
                m2 = confirm.match(data, origin, bound)
                if m2 is not None:
                    hit = rule.handle(data, m2)
                    if hit is not None:
                        hits.append(hit)
        buffer = joined.buffer
        _spend(spent + len(buffer) * len(self._known_in_runs))
        for pattern, raw, encoding in self._known_in_runs:
            for m in pattern.finditer(buffer):
                _, origin = joined.locate(m.start())
                hits.append(Hit("known-credential", origin, origin + m.end() - m.start(), raw, encoding))

    def _scan_runs_gated(self, data: bytes, runs: list[tuple[int, int]], hits: list[Hit], reports: Reports) -> None:
        """The token rules where the gate reports them: each report's run, the piece
        ``_scan_runs`` would put it in (``_Pieces``), that piece searched by the rule as the
        joined buffer would be (no token crosses a piece's bounds)."""
        pieces = _Pieces(data, runs)
        size = len(data)
        spent = len(data)
        for i, rule in enumerate(self._token_passes):
            # a vendor token's report ends after the boundary byte that follows it (``_token_rule``)
            shift = 1 if rule.handle is _vendor else 0
            found = {piece for end in reports.ends[i] if (piece := pieces.of(end) or pieces.of(end - shift)) is not None}
            if not found:
                continue
            confirm = rule.confirm or rule.pattern
            for start, end in sorted(found):
                stop = min(size, end + 2)
                if rule.narrow:
                    kind = _narrow_kind(data, start, end)
                    if kind == _SKIP:
                        continue
                    if kind == _HEAD:
                        stop = min(stop, start + NARROW_HEAD)
                spent += stop - start
                for m in rule.pattern.finditer(data, start, stop):
                    origin = m.start()
                    bound = min(size, end + (BLOB_MIN if rule.confirm is not None else 4), origin + TOKEN_MAX)
                    spent += bound - origin
                    m2 = confirm.match(data, origin, bound)
                    if m2 is not None:
                        hit = rule.handle(data, m2)
                        if hit is not None:
                            hits.append(hit)
        _spend(spent)

    def _scan_known(self, data: bytes, hits: list[Hit]) -> None:
        """Every form of every known credential, by this scanner's gate (one pass)."""
        assert self._known_gate is not None
        _spend(len(data))
        reports = self._known_gate.scan(data)
        for (pattern, raw, encoding), found in zip(self._known, reports.starts, strict=True):
            if not found:
                continue
            for start in sorted(set(found)):
                m = pattern.match(data, start)
                if m is not None:
                    hits.append(Hit("known-credential", start, m.end(), raw, encoding))

    @staticmethod
    def _narrow(data: bytes, starts: list[int], ends: list[int], joined: _Joined) -> tuple[_Joined, list[int]]:
        """The pieces the narrow token rules search: mixed runs, and of a run of base64 data only
        its head (a vendor token starts a run, it is not buried in one)."""
        keep = [i for i in range(len(starts)) if _narrow_kind(data, starts[i], ends[i]) != _SKIP]
        data_runs = {i for i in keep if _narrow_kind(data, starts[i], ends[i]) == _HEAD}
        if len(keep) == len(starts) and not data_runs:
            return joined, ends
        pieces = [data[starts[i] : starts[i] + NARROW_HEAD if i in data_runs else ends[i] + 2] for i in keep]
        return _Joined(pieces, [starts[i] for i in keep], SEPARATOR), [ends[i] for i in keep]

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

    def _triggers(self, data: bytes, reports: Reports | None) -> frozenset[str]:
        """Which of ``_TRIGGERS`` occur in ``data`` (the gate's pass; without hyperscan, the cheap
        checks that rule a trigger out, else all of them)."""
        if reports is not None:
            found = reports.ends[self._first_trigger :]
            return frozenset(name for name, ends in zip(_TRIGGERS, found, strict=True) if ends)
        present = {"percent", "escape", "dump"}
        if b"\n+" in data or b"\n-" in data or b"\\n+" in data or b"\\n-" in data:
            present.add("diff")
        if b"\\\n" in data or b"\\\r\n" in data or b"\\\\\\n" in data or b"\\\\\\r" in data:
            present.add("continuation")
        if not data.isascii():
            present.add("zero-width")
            if any(lead in data for lead in _FOLD_LEADS):
                present.add("fold")
        return frozenset(present)

    def _scan_views(self, data: bytes, hits: list[Hit], depth: int, present: frozenset[str]) -> None:
        """Backslash-newline continuations removed, fullwidth and look-alike letters folded
        (``_views``): the windows around each scanned again, hits mapped back."""
        views: list[tuple[tuple[list[bytes], list[int]], str]] = []
        if "continuation" in present:
            views += [(removal_pieces(data, lo, hi, CONTINUATION), "continuation") for lo, hi in windows(data, CONTINUATION)]
        if "fold" in present and FOLD_TRIGGER.search(data) is not None:
            views += [(fold_pieces(data, lo, hi), "nfkc") for lo, hi in windows(data, FOLD_TRIGGER)]
        for (pieces, origins), encoding in views:
            joined = _Joined(pieces, origins, b"")
            size = len(joined.buffer)
            for sub in self._scan(joined.buffer, depth=depth + 1, keywords=True):
                _, start = joined.locate(sub.start)
                index, last = joined.locate(max(sub.start, sub.end - 1))
                piece_end = joined.starts[index + 1] if index + 1 < len(pieces) else size
                end = origins[index + 1] if sub.end == piece_end and index + 1 < len(pieces) else last + 1
                hits.append(Hit(sub.rule, start, end, sub.value, encoding if sub.encoding == "plain" else sub.encoding))

    def _scan_zero_width(self, data: bytes, hits: list[Hit], depth: int) -> None:
        """Zero-width characters removed around each one, and the windows scanned again (the
        caller knows ``data`` holds one: ``_triggers``)."""
        _spend(len(data))
        windows: list[list[int]] = []
        for m in _ZERO_WIDTH.finditer(data):
            lo, hi = max(0, m.start() - _ZERO_WIDTH_WINDOW), min(len(data), m.end() + _ZERO_WIDTH_WINDOW)
            if windows and lo <= windows[-1][1]:
                windows[-1][1] = hi
            else:
                windows.append([lo, hi])
        for lo, hi in windows:
            window = data[lo:hi]
            kept: list[bytes] = []
            origins: list[int] = []
            pos = lo
            for m in _ZERO_WIDTH.finditer(data, lo, hi):
                kept.append(data[pos : m.start()])
                origins.append(pos)
                pos = m.end()
            kept.append(data[pos:hi])
            origins.append(pos)
            joined = _Joined(kept, origins, b"")
            del window
            for sub in self._scan(joined.buffer, depth=depth + 1, keywords=True):
                _, start = joined.locate(sub.start)
                _, end = joined.locate(max(sub.start, sub.end - 1))
                hits.append(Hit(sub.rule, start, end + 1, sub.value, "zero-width" if sub.encoding == "plain" else sub.encoding))

    def _scan_decoded(
        self,
        data: bytes,
        runs: list[tuple[int, int]],
        blobs: list[tuple[int, int]],
        hits: list[Hit],
        decoded_out: list[tuple[int, int, bytes]] | None,
        depth: int,
        present: frozenset[str],
    ) -> None:
        text_pieces: list[tuple[int, int, bytes, str]] = []
        binary_pieces: list[tuple[int, int, bytes, str]] = []

        def add(start: int, end: int, decoded: bytes, encoding: str) -> None:
            _spend(len(decoded))
            inflated = _inflate(decoded) if len(decoded) >= 18 else None
            if inflated is not None:
                decoded, encoding = inflated, "gzip+" + encoding
            (text_pieces if _is_text(decoded) else binary_pieces).append((start, end, decoded, encoding))

        marks: bytes | None = None
        # URL-encoded tokens (sk%2Dproj..., RHO%5FAUDIT..., and twice: %253D)
        covered = -1
        _spend(len(data))
        for m in _PERCENT.finditer(data) if "percent" in present else ():
            if m.start() < covered:
                continue
            if marks is None:
                _spend(len(data))
                marks = data.translate(_URL_TABLE)
            lo, hi = _expand(marks, m.start(), m.end())
            lo = _unescaped_start(data, lo, hi)
            _spend(hi - lo)
            covered = hi
            if hi - lo >= _ENCODED_MIN:
                add(lo, hi, _percent_decode(data[lo:hi]), "percent")
        # escapes written out as text (\u0073k-..., \\u0073 in JSON, \x73\x6b of a bytes repr)
        done: set[int] = set()  # token ends already decoded
        covered = -1
        _spend(len(data))
        for m in _ESCAPE_START.finditer(data) if "escape" in present else ():
            if m.start() < covered:
                continue
            first = m.start()
            while first > 0 and m.start() - first < 8 and data[first - 1] == 0x5C:
                first -= 1
            bound = min(len(data), first + ESCAPED_TOKEN_MAX)
            _spend(bound - first)
            token = _ESCAPED_TOKEN_RE.match(data, first, bound)
            hi = token.end() if token else m.end()
            if marks is None:
                _spend(len(data))
                marks = data.translate(_URL_TABLE)
            lo, _ = _expand(marks, first, first)
            lo = _unescaped_start(data, lo, first) if lo < first else lo
            covered = hi
            if hi - lo >= _ENCODED_MIN and hi not in done:
                done.add(hi)
                add(lo, hi, _decode_escapes(data[lo:hi]), "unicode-escape")
        # hex dumps (xxd, hexdump -C, od -c) read back to their bytes
        for start, end, dumped in decode_dumps(data) if "dump" in present else ():
            add(start, end, dumped, "hexdump")
        # wrapped base64 or hex: lines of equal width (the last one shorter), decoded as one
        wrapped = self._wrapped(data, runs)
        for i, j in wrapped:
            for start, end, body in self._chunks(data, runs, i, j):
                hexed = _hex_decode(body)
                if hexed is not None:
                    if _textual(hexed):
                        add(start, end, hexed, "hex")
                    continue
                self._blob(body, start, end, hits, depth)
                del body
        del marks
        # base64: mixed-case runs (identifiers, paths and hex digests are all one case); a run
        # that begins with an escape's tail (\nQUJD, =3DQUJD) is also decoded without it
        for start, end in _outside(runs, wrapped):  # the runs of a block are decoded with it
            if end - start >= BLOB_MIN:
                continue  # a blob, decoded whole
            run = data[start:end]
            if run.islower() or run.isupper() or run.isdigit():
                hexed = _hex_decode(run) if end - start >= HEX_MIN else None
                if hexed is not None and _textual(hexed):
                    add(start, end, hexed, "hex")
                elif end - start >= MIN_RUN and run.isupper() and not run.translate(None, _BASE32):
                    based = _b32_decode(run)
                    if based is not None and _textual(based):
                        add(start, _padded(data, end, 6), based, "base32")
                continue
            alternative = _run_start(data, start, end)
            for first in (start,) if alternative == start else (start, alternative):
                decoded = _b64_decode(data[first:end]) if end - first >= MIN_RUN else None
                if decoded and len(decoded) >= 8:
                    if der_private_key(decoded):
                        hits.append(Hit("private-key", first, _padded(data, end), b"der:" + decoded[:64], "base64"))
                    add(first, _padded(data, end), decoded, "base64")
        for start, end in blobs:
            self._blob(data[start:end], start, _padded(data, end), hits, depth)
        if decoded_out is not None:
            decoded_out.extend((start, end, text) for start, end, text, _ in text_pieces)
        for pieces, keywords in ((text_pieces, True), (binary_pieces, False)):
            if not pieces:
                continue
            joined = _Joined([p[2] for p in pieces], list(range(len(pieces))), _PIECE_GAP)
            pieces[:] = [(start, end, b"", encoding) for start, end, _, encoding in pieces]  # joined now
            for sub in self._scan(joined.buffer, depth=depth + 1, keywords=keywords):
                index = bisect.bisect_right(joined.starts, sub.start) - 1
                start, end, _, encoding = pieces[index]
                hits.append(Hit(sub.rule, start, end, sub.value, encoding))

    def _blob(self, blob: bytes, start: int, end: int, hits: list[Hit], depth: int) -> None:
        """A long base64 text decoded and scanned (memoized by SHA-256: same bytes, same result)."""
        _spend(len(blob))
        digest = hashlib.sha256(blob).digest()
        cached = self._blob_cache.get(digest)
        if cached is None:
            decoded = _b64_decode(blob)
            cached = []
            if decoded:
                _spend(len(decoded))
                encoding = "base64"
                if der_private_key(decoded):
                    cached.append(("private-key", b"der:" + decoded[:64], encoding))
                inflated = _inflate(decoded)
                if inflated is not None:
                    decoded, encoding = inflated, "gzip+base64"
                # a blob decodes to an image or ciphertext, or to text (a base64 file)
                for hit in self._scan(decoded, depth=depth + 1, keywords=_is_text(decoded)):
                    cached.append((hit.rule, hit.value, encoding))
            self._blob_cache[digest] = cached
        hits.extend(Hit(rule, start, end, value, encoding) for rule, value, encoding in cached)

    def _wrapped(self, data: bytes, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Blocks of wrapped lines (base64 at 76 or 64 columns, ``xxd -p`` at 60): runs that are
        separated by one line break, all as wide as the first but the last, which may be shorter.
        ``(first run, last run)`` of each block of two lines or more. A line of an unsigned
        block that lost a leading ``+`` or ``-`` to the diff rule (base64 wraps a ``+`` to the
        start of a line about once in 64 lines) gets it back, in ``runs``, when that makes it as
        wide as the block's lines and more follow: the block goes on instead of ending there."""
        out: list[tuple[int, int]] = []
        count = len(runs)
        spent = 0
        i = 0
        while i + 1 < count:
            start, end = runs[i]
            ns, ne = runs[i + 1]
            if ns - end > 40 or ne - ns > end - start:
                i += 1  # a block starts where a run is followed closely by a run no wider
                continue
            width = end - start
            j = i
            gap = b""  # the last gap that matched: the lines of one block are mostly joined alike
            # a block of unsigned lines: a line the diff rule took a sign from (a line of base64
            # that begins with "+") gets it back when that makes it as wide as the others
            unsigned = start == 0 or data[start - 1] not in _SIGNS
            while j + 1 < count:
                ns, ne = runs[j + 1]
                if (
                    unsigned and ne - ns == width - 1 and data[ns - 1] in _SIGNS and j + 2 < count
                    and runs[j + 2][0] - ne <= 40 and runs[j + 2][1] - runs[j + 2][0] <= width
                ):
                    ns -= 1
                    runs[j + 1] = (ns, ne)
                if ns - end > 40 or end - start != width or ne - ns > width:
                    break
                spent += ns - end
                if ns - end != len(gap) or not data.startswith(gap, end):
                    if _WRAP_GAP.fullmatch(data, end, ns) is None:
                        break
                    gap = data[end:ns]
                j += 1
                start, end = ns, ne
            if j > i:
                out.append((i, j))
            i = j + 1
        _spend(spent)
        return out

    @staticmethod
    def _chunks(data: bytes, runs: list[tuple[int, int]], i: int, j: int) -> Iterator[tuple[int, int, bytes]]:
        """A block's lines joined, ``_WRAP_CHUNK`` characters at a time, one chunk alive at a time:
        whole lines, a multiple of 4 of them (base64 and hex stay aligned), overlapping by 4 lines
        so that nothing shorter than 4 lines is cut."""
        width = runs[i][1] - runs[i][0]
        step = max(4, (_WRAP_CHUNK // max(width, 1)) & ~3)
        first = i
        while True:
            last = min(j, first + step + 3)
            stop = runs[last][1]
            yield runs[first][0], _padded(data, stop), b"".join(data[a:b] for a, b in runs[first : last + 1])
            if last >= j:
                return
            first += step


def _outside(runs: list[tuple[int, int]], blocks: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The runs not in ``blocks`` (``(first, last)`` run indices, in order, not overlapping)."""
    k = 0
    for first, last in blocks:
        yield from runs[k:first]
        k = last + 1
    yield from runs[k:]


def _known_handler(raw: bytes, encoding: str) -> Handler:
    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        return Hit("known-credential", m.start(), m.end(), raw, encoding)

    return handle


def _common_prefix(a: bytes, i: int, b: memoryview, j: int) -> int:
    """How many bytes ``a[i:]`` and ``b[j:]`` share at their start (galloping, then bisection;
    ``bytes.startswith`` compares with memcmp, where comparing memoryviews goes byte by byte)."""
    limit = min(len(a) - i, len(b) - j)
    n = 0
    step = 1 << 16
    while n < limit:
        k = min(step, limit - n)
        if not a.startswith(b[j + n : j + n + k], i + n):
            lo, hi = n, n + k  # equal before lo; a difference before hi
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if a.startswith(b[j + lo : j + mid], i + lo):
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
    mb = memoryview(b)
    same: list[tuple[int, int, int]] = []
    changed: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        n = _common_prefix(a, i, mb, j)
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


_SPAN: Final = re.Match.span


class _Pieces:
    """The pieces ``_scan_runs`` joins runs into (runs closer than ``_RUN_CONTEXT`` bytes, with
    no separator between, one piece of at most ``_PIECE_MAX`` bytes; each piece starts
    ``_RUN_CONTEXT`` bytes before its first run), worked out only around the runs asked about:
    a chain of close runs is replayed once, from its first run, as the full pass would."""

    __slots__ = ("_data", "_piece", "_runs", "_separated", "_starts")

    def __init__(self, data: bytes, runs: list[tuple[int, int]]) -> None:
        self._data = data
        self._runs = runs
        self._starts = [start for start, _ in runs]
        self._piece: dict[int, tuple[int, int]] = {}
        # without a separator in the data, two runs are linked by their distance alone
        self._separated = any(separator in data for separator in (b"\x00", b"\xff"))

    def of(self, end: int) -> tuple[int, int] | None:
        """``(start, end of its last run)`` of the piece holding the match that ends at ``end``
        (its last byte in the piece's runs, between them, or in the two bytes after), or None."""
        k = bisect.bisect_right(self._starts, end - 1) - 1
        if k < 0:
            return None
        piece = self._piece.get(k)
        if piece is None:
            runs, data, separated = self._runs, self._data, self._separated
            first = k
            while first > 0:
                (_, last), (start, _) = runs[first - 1], runs[first]
                if start - last > _RUN_CONTEXT or (separated and _SEPARATORS.intersection(data[last:start])):
                    break
                first -= 1
            self._replay(first)
            piece = self._piece[k]
        return piece if end - 1 <= piece[1] + 1 else None

    def _replay(self, first: int) -> None:
        """The pieces of the chain of linked runs that starts at run ``first`` (one loop, no call
        per run: a chain can hold every line of a megabyte of wrapped base64)."""
        runs, data, pieces = self._runs, self._data, self._piece
        separated = self._separated
        count = len(runs)
        start = max(0, runs[first][0] - _RUN_CONTEXT)
        head = first  # the piece's first run
        last = runs[first][1]
        k = first + 1
        while True:
            linked = False
            if k < count:
                s, e = runs[k]
                linked = s - last <= _RUN_CONTEXT and not (separated and _SEPARATORS.intersection(data[last:s]))
            if linked and e - start <= _PIECE_MAX:
                last = e
                k += 1
                continue
            piece = (start, last)
            for member in range(head, k):
                pieces[member] = piece
            if not linked:
                return
            start = max(0, s - _RUN_CONTEXT)  # the chain goes on in a new piece
            head = k
            last = e
            k += 1


_WHOLE, _HEAD, _SKIP = 0, 1, 2


def _narrow_kind(data: bytes, start: int, end: int) -> int:
    """How a narrow token rule searches a piece: whole, its head only (a long run of base64
    data), or not at all (vendor tokens mix digits and letters, or cases: ``session_state_index``
    cannot be one)."""
    run = data[start + _RUN_CONTEXT : end]
    if run.islower() and not run.translate(None, _NOT_DIGITS):
        return _SKIP
    if end - start >= NARROW_SKIP and _base64_block(data[end - NARROW_BLOCK : end]):
        return _HEAD
    return _WHOLE


def _gated_origins(starts: Iterable[int], bodies: list[tuple[int, int]], body_starts: list[int]) -> Iterator[int]:
    """Where a gated rule's pattern can begin, as the gate reported them (a place reported
    again right after itself once), outside the blobs' bodies. No set or sorted copy: an
    adversarial text holds such a place every few bytes."""
    last = -1
    for at in starts:
        if at != last and not (bodies and _inside(at, bodies, body_starts)):
            yield at
        last = at


def _inside(at: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """``at`` lies in one of ``spans`` (sorted, not overlapping; ``starts`` their starts)."""
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and at < spans[k][1]


_LOOKBEHIND_HEAD: Final = re.compile(rb"\A([a-z]+)\(\?<=([a-z]+)\)")
_OPEN_BOUNDED: Final = re.compile(rb"\{([0-9]+),\}")


_RIGHT_BOUNDARY: Final = rb"(?:[^A-Za-z0-9]|$)"


def _token_rule(rule: _Pass) -> Rule:
    """The gate rule of a token pass: its pattern, and for a vendor token the boundary its handler
    requires after it (a vendor token shape inside a run of base64 data is not reported)."""
    right = _RIGHT_BOUNDARY if rule.handle is _vendor else b""
    return Rule(rule.pattern.pattern + right, caseless=bool(rule.pattern.flags & re.IGNORECASE))


def _keyword_rule(rule: _Pass) -> Rule:
    """The gate rule of a keyword pass: an anchored pass by the start of its anchor (caseless:
    anchors are searched in lower-cased text), any other by its pattern."""
    if rule.gate is not None:
        regex, offset, back = rule.gate
        caseless = rule.anchor is not None  # anchored: searched in the lower-cased text
        if back:
            return Rule(rule.pattern.pattern, caseless=caseless, last=regex, back=back)
        return Rule(rule.pattern.pattern, caseless=caseless, start=regex, offset=offset)
    if rule.anchor is None:
        return Rule(rule.pattern.pattern, caseless=bool(rule.pattern.flags & re.IGNORECASE), once=True)
    start = rule.anchor.pattern
    offset = 0
    head = _LOOKBEHIND_HEAD.match(start)
    if head is not None and head.group(2).endswith(head.group(1)):
        # "zation(?<=authorization)": the gate finds "authorization", the pattern starts 7 in
        offset = len(head.group(2)) - len(head.group(1))
        start = head.group(2) + start[head.end() :]
    start = _OPEN_BOUNDED.sub(rb"{\1}", _strip_lookarounds(hyperscan_syntax(start)))
    return Rule(rule.pattern.pattern, caseless=True, start=start, offset=offset)


def _strip_lookarounds(pattern: bytes) -> bytes:
    """``pattern`` without its lookahead and lookbehind groups (a superset: only the start counts)."""
    out = bytearray()
    i = 0
    while i < len(pattern):
        if pattern.startswith((b"(?=", b"(?!", b"(?<=", b"(?<!"), i):
            depth = 0
            while True:
                c = pattern[i]
                if c == 0x5C:
                    i += 2
                    continue
                if c == 0x5B:  # a class: brackets inside do not nest
                    i = pattern.index(b"]", i + 2) + 1
                    continue
                depth += c == 0x28
                depth -= c == 0x29
                i += 1
                if depth == 0:
                    break
            continue
        if pattern[i] == 0x5C:
            out += pattern[i : i + 2]
            i += 2
            continue
        out.append(pattern[i])
        i += 1
    return bytes(out)
