"""The scan driver: ``SecretScanner`` runs the rules over a buffer and over what its encoded regions decode to.

The rules themselves are ``_rules`` (token and keyword passes) and ``_grammar`` (the credential
grammar, its names read by ``_names``), with every reader's keyword passes listed by
``_readers``; their ids and ``Hit`` are ``_catalogue``; ``_prefilter``'s
gate says which rules can match where, ``_engine`` holds the buffers the passes run over,
``_views`` and ``_decoders`` turn rewritten and encoded text back into what it says. This module
puts them together.

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
* with hyperscan, one gate pass says which of those rules can match, and where;
* encoded regions (a ``%`` or ``\\u`` literal, mixed-case runs, blobs) are decoded and rescanned
  as one buffer; a blob's result is memoized by SHA-256 for the next scan of the same bytes;
* ``rescan`` turns a full second scan after redaction into a scan of the changed lines.

A value found is never printed, logged or stored: ``Hit`` hides it from ``repr``, and reports
carry a keyed HMAC fingerprint instead (``fingerprint``).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from ._benign import without_benign
from ._bounded import PassHits
from ._catalogue import (
    KNOWN_SECRET_MIN_LENGTH,
    RULES,
    RULESET_VERSION,
    SEPARATOR,
    Hit,
    fingerprint,
    known_handler,
    merge_hits,
)
from ._decoders import (
    BASE32,
    BASE32_LOWER,
    ENCODED_MIN,
    ENTITY_GATE,
    ENTITY_START,
    ENTITY_TOKEN,
    ESCAPE_GATE,
    ESCAPE_START,
    ESCAPED_TOKEN,
    ESCAPED_TOKEN_MAX,
    HEX_MIN,
    PERCENT,
    PERCENT_GATE,
    URL_TABLE,
    b32_decode,
    b64_decode,
    base32_text,
    decode_escapes,
    decode_references,
    expand,
    hex_decode,
    is_text,
    known_forms,
    padded,
    percent_decode,
    placed,
    reference_start,
    spells_token,
    textual,
    unwrap,
)
from ._engine import (
    BATCH_SIZE,
    HEAD,
    MIN_RUN,
    NARROW_HEAD,
    RUN_ALPHABET,
    RUN_TABLE,
    SKIP,
    BlobBatch,
    Joined,
    Pieces,
    block_chunks,
    gated_origins,
    joined_pieces,
    line_diff,
    narrow_kind,
    outside,
    run_regions,
    runs_of,
    spans_around,
    text_without_blobs,
    wrapped_blocks,
    wrapped_tail,
)
from ._entropy import entropy_hits
from ._generated import PROSE_LINE, prose_words
from ._grammar import (
    der_private_key,
    hex_key_pass,
    jwk_hits,
)
from ._lists import (
    LIST_TRIGGER,
    LOCATED,
    byte_lists,
    list_chunks,
)
from ._names import named_from
from ._prefilter import (
    GATE_PARTS,
    HYPERSCAN,
    Gate,
    GatePasses,
    Probe,
    Reports,
    Rule,
    every_start,
    gate,
    keyword_rule,
    token_rule,
    window_starts,
)
from ._readers import reader_passes
from ._rules import (
    Pass,
    aws_secret_near,
    run_start,
    token_passes,
    unescaped_start,
)
from ._structure import structure_hits, structure_rules
from ._views import (
    DUMP_START,
    NORMALIZE_AT,
    NORMALIZE_GATE,
    WINDOW,
    decode_dumps,
    normalized,
)
from ._work import spend, spent

__all__ = [
    "KNOWN_SECRET_MIN_LENGTH",
    "RULES",
    "RULESET_VERSION",
    "Hit",
    "SecretScanner",
    "fingerprint",
    "merge_hits",
]


MAX_DEPTH: Final = 4
"""Encodings decoded inside one another at most (base64 in base64 in gzip is depth 3)."""
TOKEN_MAX: Final = 8192
"""Longest token a token rule matches, in bytes."""
# a quoted kty (JWK members are quoted names; an unquoted kty is 1 in 260,000 bytes of base64)
_KTY: Final = re.compile(rb"kty\\{0,7}[\"']")
BLOB_MIN: Final = 4096
"""Runs at least this long are blobs (images, encrypted context): decoded, not keyword-scanned."""
_BLOB_HEAD: Final = 256
"""Bytes of a blob left in the keyword-scan text, so a header value that is a blob is still seen."""
_PIECE_GAP: Final = b"\n\x00\n"
PIECES_CHUNK: Final = 1024
"""Decoded pieces are scanned this many at a time (their objects held at most that long)."""
_MEMO_TOKEN_MAX: Final = 256
_MEMO_TOKENS: Final = 1024
"""Escaped tokens up to this long, this many of them, are remembered decoded for the rest of a scan."""
_TRIGGERS: Final = {
    "normalize": NORMALIZE_GATE,
    "byte-list": LIST_TRIGGER,
    "percent": PERCENT_GATE,
    "escape": ESCAPE_GATE,
    "entity": ENTITY_GATE,
    "dump": re.escape(DUMP_START),
    "diff": rb"\n[+\-]|\\n[+\-]",
}
"""What makes a view or a decoder worth running: a gate scan finds which occur, in one pass."""
_PROBED: Final = ("normalize", "byte-list")
"""The triggers whose work is done where they occur: a buffer that holds one is probed block by
block (``_prefilter.Probe``)."""


class SecretScanner:
    """Finds rule secrets and known secrets, plain and encoded, in byte buffers.

    Build one per export: it precomputes the known secrets' forms and memoizes the rescan of
    large base64 blobs by their SHA-256, so an image scanned while redacting is not decoded
    again by the audit of the output that holds the same bytes (same bytes, same result).

    Args:
        known_secrets: credential values to find literally (shorter than
            ``KNOWN_SECRET_MIN_LENGTH`` characters are skipped and counted in ``ignored_short``).
        printed: values found literally as ``known_secrets`` are, reported as ``printed-secret``:
            what a command that prints a secret printed (``tool_values``).
    """

    def __init__(self, known_secrets: Iterable[str] = (), printed: Iterable[str] = ()) -> None:
        self._token_passes, self._keyword_passes, token_rules, keyword_rules = _passes()
        # the keyword rules and what makes a view or decoder worth running, in one hyperscan pass;
        # the token rules in another, run only when the data holds runs (None without hyperscan)
        self._gate = gate(keyword_rules, GATE_PARTS)
        self._token_gate = gate(token_rules)
        self._probe = Probe(
            {name: _TRIGGERS[name] for name in _PROBED}, {"normalize": NORMALIZE_AT.pattern}
        )
        self._first_trigger = len(self._keyword_passes)
        self._kty = self._first_trigger + len(_TRIGGERS) + len(LOCATED)
        secrets = sorted({s for s in known_secrets if s and s.strip()})
        self.ignored_short = sum(1 for s in secrets if len(s) < KNOWN_SECRET_MIN_LENGTH)
        self.known_count = len(secrets) - self.ignored_short
        shown = sorted({s for s in printed if len(s) >= KNOWN_SECRET_MIN_LENGTH} - set(secrets))
        self._printed = frozenset(s.encode("utf-8") for s in shown)
        secrets += shown
        # forms made only of run characters and long enough are searched among the runs;
        # the others over the whole text
        self._known_in_runs: list[tuple[re.Pattern[bytes], bytes, str]] = []
        self._known_in_text: list[tuple[re.Pattern[bytes], bytes, str]] = []
        seen: set[bytes] = set()
        run_bytes = frozenset(RUN_ALPHABET)
        for secret in secrets:
            if len(secret) < KNOWN_SECRET_MIN_LENGTH:
                continue
            raw = secret.encode("utf-8")
            for form, encoding in known_forms(secret):
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
        self._known_gate = (
            Gate([Rule(p.pattern, start=p.pattern) for p, _, _ in self._known])
            if HYPERSCAN and self._known
            else None
        )
        self._blob_cache: dict[bytes, list[tuple[str, bytes, str]]] = {}
        self.cost = 0
        """Work done by the scans so far: bytes offered to patterns and decoders (see ``spend``)."""

    # -- public ---------------------------------------------------------------------------------

    def scan(
        self,
        data: bytes,
        *,
        decoded: list[tuple[int, int, bytes]] | None = None,
        started: Callable[[], object] | None = None,
    ) -> list[Hit]:
        """Every secret in ``data``, plain and encoded, overlaps merged, in order.

        Args:
            decoded: if given, receives ``(start, end, text)`` for every encoded region that
                decodes to ASCII text (URL-encoded and unicode-escaped tokens, base64 runs under
                ``BLOB_MIN``): the audit looks there for echoes of excluded content.
            started: called once the gates' passes over ``data`` are queued on the ``workers``
                (``GatePasses``), before any other work: a caller's own task for the workers
                submitted there runs after the gates' parts, not before them (the scan waits for
                the gates within a tenth of its time; the workers are idle for the rest of it).
        """
        before = spent()
        hits = merge_hits(
            self._scan(data, depth=0, keywords=True, decoded=decoded, started=started)
        )
        self.cost += spent() - before
        return hits

    def scan_strings(self, strings: list[str]) -> dict[int, list[Hit]]:
        """Secrets per string (offsets within each string's UTF-8 bytes), for many strings at once.

        The strings are joined with ``SEPARATOR`` and scanned as one buffer.
        """
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        joined = Joined(encoded, [0] * len(encoded), SEPARATOR)
        result: dict[int, list[Hit]] = {}
        for hit in self.scan(joined.buffer):
            index = bisect.bisect_right(joined.starts, hit.start) - 1
            base = joined.starts[index]
            end = min(hit.end, base + len(encoded[index]))
            result.setdefault(index, []).append(
                Hit(hit.rule, hit.start - base, end - base, hit.value, hit.encoding)
            )
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
        same, changed = line_diff(old, new)
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
                out.append(
                    Hit(hit.rule, hit.start + shift, hit.end + shift, hit.value, hit.encoding)
                )
        if decoded is not None and old_decoded:
            for start, end, text in old_decoded:
                shift = moved(start, end)
                if shift is not None:
                    decoded.append((start + shift, end + shift, text))
        if changed:
            joined = Joined([new[s:e] for s, e in changed], [s for s, _ in changed], b"\n")
            fresh: list[tuple[int, int, bytes]] | None = [] if decoded is not None else None
            for hit in self.scan(joined.buffer, decoded=fresh):
                _, origin = joined.locate(hit.start)
                out.append(
                    Hit(hit.rule, origin, origin + hit.end - hit.start, hit.value, hit.encoding)
                )
            if decoded is not None and fresh:
                for start, end, text in fresh:
                    _, origin = joined.locate(start)
                    decoded.append((origin, origin + end - start, text))
        if decoded is not None:
            decoded.sort(key=lambda piece: piece[0])
        return merge_hits(out)

    # -- the scan -------------------------------------------------------------------------------

    def _scan(
        self,
        data: bytes,
        *,
        depth: int,
        keywords: bool,
        decoded: list[tuple[int, int, bytes]] | None = None,
        started: Callable[[], object] | None = None,
    ) -> list[Hit]:
        hits: list[Hit] = []
        # binary (a decoded image or ciphertext) is searched for tokens, not decoded further
        decode = depth < MAX_DEPTH and keywords
        # 1. runs of base64/identifier characters: candidates for token rules, known secrets and
        #    base64; long ones are blobs
        spend(2 * len(data))
        # the gates' passes (hyperscan lets go of the GIL) on worker threads while this one finds
        # the runs, for a large buffer; a binary one needs no keyword gate
        marks = data.translate(RUN_TABLE)
        gates = GatePasses((self._gate if keywords else None, self._known_gate), data)
        if started is not None:
            started()
        runs, blobs, small = runs_of(data, BLOB_MIN, marks)
        del marks
        # the token rules match in the runs' pieces only: their gate reads the runs' regions (a
        # tenth of an export's bytes), on this thread while the keyword gate's parts run
        gate = self._token_gate
        tokens = gate.scan_spans(data, *run_regions(small, len(data))) if gate and small else None
        reports = gates.reports(0)
        present = self._triggers(data, reports) if decode else frozenset()  # only the decoders ask
        if tokens is not None:
            self._scan_runs_gated(data, small, hits, tokens)
        elif small:
            self._scan_runs(data, small, hits)
        known = gates.reports(1)
        if known is not None:
            self._scan_known(data, hits, known)
        # 2. keyword rules (and without hyperscan the known secrets that are not runs) over the
        #    text without the blobs' bodies
        if keywords:
            self._keywords(data, blobs, reports, hits)
        if keywords and small:
            hits.extend(entropy_hits(data, small))
        # 3. an access key id's unlabelled secret key next to it
        for hit in [h for h in hits if h.rule == "aws-access-key-id"]:
            hits.extend(aws_secret_near(data, hit))
        if decode:
            listed = self._listed(data, reports)
            del reports  # the decoders below can hold a lot: free the gate's reports first
            probed = self._probe.blocks(data, present)
            if probed.get("normalize"):
                self._scan_normalized(
                    data, hits, depth, spans_around(probed["normalize"], len(data), WINDOW)
                )
            self._scan_decoded(data, runs, blobs, hits, decoded, depth, present, listed, probed)
        return without_benign(data, hits)

    def _keywords(
        self, data: bytes, blobs: list[tuple[int, int]], reports: Reports | None, hits: list[Hit]
    ) -> None:
        """The keyword rules (and without a known-secret gate the known credentials that are not
        runs) over the data without the blobs' bodies. With the gate's ``reports`` (positions in
        ``data``), an anchored rule is confirmed where the gate found its start (outside the
        blobs' bodies), any other rule is searched only when the gate found it. The text without
        the bodies is a copy (about 1 ms a MB), made only when a search needs it."""
        copy: list[Joined] = []

        def without_blobs() -> Joined:
            if not copy:
                copy.append(text_without_blobs(data, blobs, _BLOB_HEAD))
            return copy[0]

        whole = not blobs  # the text is the data: its matches need no second look
        known = [] if self._known_gate is not None else self._known_in_text
        passes = [
            *self._keyword_passes,
            *(Pass(p, known_handler(raw, enc, self._rule_of(raw))) for p, raw, enc in known),
        ]
        spend(len(data) * (len(passes) + 1))
        lowered = b""
        bodies = [(start + _BLOB_HEAD, end) for start, end in blobs]
        body_starts = [start for start, _ in bodies]
        for i, rule in enumerate(passes):
            gated = reports is not None and i < len(self._keyword_passes)
            if rule.anchor is not None or (gated and rule.gate is not None):
                if gated and rule.window:
                    assert reports is not None and rule.anchor is not None
                    ends = reports.ends[i]
                    if not ends:
                        continue  # the gate found no place the rule can begin
                    origins: Iterable[int] = gated_origins(
                        window_starts(data, rule.anchor, ends, rule.window), bodies, body_starts
                    )
                elif gated:
                    assert reports is not None
                    starts = reports.starts[i]
                    if not starts:
                        continue  # the gate found no place the rule can begin
                    origins = gated_origins(starts, bodies, body_starts)
                else:
                    anchor = rule.anchor
                    assert anchor is not None  # not gated: only anchored rules come here
                    text = without_blobs()
                    lowered = lowered or text.buffer.lower()
                    # every match is a candidate, overlapping ones too, as the gate finds them: the
                    # one at "Bearer x Bearer <token>" must not hide the second
                    origins = (
                        at if whole else text.locate(at)[1] for at in every_start(anchor, lowered)
                    )
                skip = rule.skip
                found = PassHits(data, rule.extend)  # overlapping hits folded, values extended
                resume = -1  # an ordered pass: where the last match ends (``Pass.ordered``)
                if rule.ordered:
                    origins, resume = sorted(set(origins)), 0
                for origin in origins:
                    if skip is not None and data[origin : origin + 16].lower().startswith(skip):
                        continue
                    if origin < resume:
                        continue
                    confirmed = rule.pattern.match(data, origin)
                    if confirmed is not None and resume >= 0:
                        resume = confirmed.end()
                    hit = rule.handle(data, confirmed) if confirmed is not None else None
                    if hit is not None:
                        found.add(hit)
                hits.extend(found.hits())
                continue
            if gated and reports is not None and not reports.ends[i]:
                continue  # the rule cannot match anywhere in this text
            text = without_blobs()
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

        # JWK private members, around each "kty" (the gate's rule after the triggers finds them)
        kty = (
            (m.start() for m in _KTY.finditer(data))
            if reports is None
            else reports.starts[self._kty]
        )
        hits.extend(jwk_hits(data, list(gated_origins(kty, bodies, body_starts))))
        # structure: the lines the gate's last rules report, read as their syntax says (_structure)
        hits.extend(
            structure_hits(
                data,
                reports.starts[self._kty + 1 : -1] if reports is not None else None,
                bodies,
                body_starts,
            )
        )
        # prose: every word of a text block's or a reasoning summary's line (the gate's last rule)
        hits.extend(prose_words(data, reports.starts[-1] if reports is not None else None))

    def _scan_runs(self, data: bytes, runs: list[tuple[int, int]], hits: list[Hit]) -> None:
        starts, ends = joined_pieces(data, runs)
        # each piece ends 2 bytes after its run: base64 padding is part of some tokens
        # long pieces are joined from views of the data, not copies (memory stays near the input)
        view: bytes | memoryview = memoryview(data) if len(starts) * 256 < len(data) else data
        joined = Joined(
            [view[s : e + 2] for s, e in zip(starts, ends, strict=True)], starts, SEPARATOR
        )
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
                bound = min(
                    size,
                    source_ends[index] + (BLOB_MIN if rule.confirm is not None else 4),
                    origin + TOKEN_MAX,
                )
                spent += bound - origin
                m2 = confirm.match(data, origin, bound)
                if m2 is not None:
                    hit = rule.handle(data, m2)
                    if hit is not None:
                        hits.append(hit)
        buffer = joined.buffer
        spend(spent + len(buffer) * len(self._known_in_runs))
        for pattern, raw, encoding in self._known_in_runs:
            for m in pattern.finditer(buffer):
                _, origin = joined.locate(m.start())
                hits.append(
                    Hit(self._rule_of(raw), origin, origin + m.end() - m.start(), raw, encoding)
                )

    def _scan_runs_gated(
        self, data: bytes, runs: list[tuple[int, int]], hits: list[Hit], reports: Reports
    ) -> None:
        """The token rules where the gate reports them: each report's run, the piece
        ``_scan_runs`` would put it in (``Pieces``), that piece searched by the rule as the
        joined buffer would be (no token crosses a piece's bounds)."""
        pieces = Pieces(data, runs)
        size = len(data)
        spent = len(data)
        for i, rule in enumerate(self._token_passes):
            # a vendor token's report ends after the boundary byte that follows it (``token_rule``);
            # a token may also end up to two bytes past its piece (``_scan_runs`` confirms its
            # match up to 4 bytes past the run: ``figd_…=00`` with the ``=`` where the run ends)
            shift = 1 if rule.bounded else 0
            found = {
                piece
                for end in reports.ends[i]
                if (piece := pieces.of_token(end, shift)) is not None
            }
            if not found:
                continue
            confirm = rule.confirm or rule.pattern
            for start, end in sorted(found):
                stop = min(size, end + 2)
                if rule.narrow:
                    kind = narrow_kind(data, start, end)
                    if kind == SKIP:
                        continue
                    if kind == HEAD:
                        stop = min(stop, start + NARROW_HEAD)
                spent += stop - start
                for m in rule.pattern.finditer(data, start, stop):
                    origin = m.start()
                    bound = min(
                        size,
                        end + (BLOB_MIN if rule.confirm is not None else 4),
                        origin + TOKEN_MAX,
                    )
                    spent += bound - origin
                    m2 = confirm.match(data, origin, bound)
                    if m2 is not None:
                        hit = rule.handle(data, m2)
                        if hit is not None:
                            hits.append(hit)
        spend(spent)

    def _rule_of(self, raw: bytes) -> str:
        return "printed-secret" if raw in self._printed else "known-credential"

    def _scan_known(self, data: bytes, hits: list[Hit], reports: Reports) -> None:
        """Every form of every known credential, where this scanner's gate (one pass) reports it."""
        spend(len(data))
        for (pattern, raw, encoding), found in zip(self._known, reports.starts, strict=True):
            if not found:
                continue
            for start in sorted(set(found)):
                m = pattern.match(data, start)
                if m is not None:
                    hits.append(Hit(self._rule_of(raw), start, m.end(), raw, encoding))

    @staticmethod
    def _narrow(
        data: bytes, starts: list[int], ends: list[int], joined: Joined
    ) -> tuple[Joined, list[int]]:
        """The pieces the narrow token rules search: mixed runs, and of a run of base64 data only
        its head (a vendor token starts a run, it is not buried in one)."""
        keep = [i for i in range(len(starts)) if narrow_kind(data, starts[i], ends[i]) != SKIP]
        data_runs = {i for i in keep if narrow_kind(data, starts[i], ends[i]) == HEAD}
        if len(keep) == len(starts) and not data_runs:
            return joined, ends
        pieces = [
            data[starts[i] : starts[i] + NARROW_HEAD if i in data_runs else ends[i] + 2]
            for i in keep
        ]
        return Joined(pieces, [starts[i] for i in keep], SEPARATOR), [ends[i] for i in keep]

    def _listed(self, data: bytes, reports: Reports | None) -> dict[str, Sequence[int]]:
        """Where what each of ``LOCATED`` reads may end: the gate's reports, or without hyperscan
        the ends of the matches ``re`` finds."""
        if reports is not None:
            first = self._first_trigger + len(_TRIGGERS)
            return {name: reports.starts[first + i] for i, name in enumerate(LOCATED)}
        return {name: located.ends(data) for name, located in LOCATED.items()}

    def _triggers(self, data: bytes, reports: Reports | None) -> frozenset[str]:
        """Which of ``_TRIGGERS`` occur in ``data`` (the gate's pass; without hyperscan, the cheap
        checks that rule a trigger out, else all of them)."""
        if reports is not None:
            found = reports.ends[self._first_trigger : self._first_trigger + len(_TRIGGERS)]
            return frozenset(name for name, ends in zip(_TRIGGERS, found, strict=True) if ends)
        present = {"percent", "escape", "dump", "byte-list"}
        if b"&#" in data or b"u0026#" in data:
            present.add("entity")
        if b"\n+" in data or b"\n-" in data or b"\\n+" in data or b"\\n-" in data:
            present.add("diff")
        if b"\\" in data or not data.isascii():
            present.add("normalize")
        return frozenset(present)

    def _scan_normalized(
        self, data: bytes, hits: list[Hit], depth: int, spans: list[tuple[int, int]]
    ) -> None:
        """The ``spans`` rewritten (``_views``: ignorables removed, look-alikes folded, ``\\/``
        unescaped...) and scanned again as one buffer, hits mapped back."""
        view = normalized(data, _PIECE_GAP, spans)
        if not view.windows:
            return
        for sub in self._scan(view.buffer, depth=depth + 1, keywords=True):
            start, end, label = view.locate(sub.start, sub.end)
            hits.append(
                Hit(
                    sub.rule,
                    start,
                    end,
                    sub.value,
                    label if sub.encoding == "plain" else sub.encoding,
                )
            )

    def _scan_decoded(
        self,
        data: bytes,
        runs: list[tuple[int, int]],
        blobs: list[tuple[int, int]],
        hits: list[Hit],
        decoded_out: list[tuple[int, int, bytes]] | None,
        depth: int,
        present: frozenset[str],
        listed: dict[str, Sequence[int]] | None = None,
        probed: dict[str, list[int]] | None = None,
    ) -> None:
        text_pieces: list[tuple[int, int, bytes, str]] = []
        binary_pieces: list[tuple[int, int, bytes, str]] = []
        cost = 2 * len(data)  # the work of the searches and decoders below, counted once

        def add(start: int, end: int, decoded: bytes, encoding: str) -> None:
            nonlocal cost
            cost += len(decoded)
            decoded, encoding, text = unwrap(decoded, encoding)
            pieces = text_pieces if text else binary_pieces
            pieces.append((start, end, decoded, encoding))
            if len(pieces) >= PIECES_CHUNK:
                # scanned a chunk at a time: a text dense with escapes decodes a piece every
                # dozen bytes, and a tuple, its text and its place each hold more than that
                self._scan_pieces(data, pieces, text, hits, decoded_out, depth)

        marks: bytes | None = None
        # URL-encoded tokens (sk%2Dproj..., RHO%5FAUDIT..., and twice: %253D)
        covered = -1
        for m in PERCENT.finditer(data) if "percent" in present else ():
            if m.start() < covered:
                continue
            if marks is None:
                cost += len(data)
                marks = data.translate(URL_TABLE)
            lo, hi = expand(marks, m.start(), m.end())
            lo = unescaped_start(data, lo, hi)
            cost += hi - lo
            covered = hi
            if hi - lo >= ENCODED_MIN:
                add(lo, hi, percent_decode(data[lo:hi]), "percent")
        # escapes written out as text (\u0073k-..., \\u0073 in JSON, \x73\x6b of a bytes repr);
        # a token seen before in this buffer is not decoded again (a log repeats its lines)
        # a token's end is past the last one's (each starts at or after ``covered``): one end
        # is remembered, not a set of them (a dense text ends a token every dozen bytes)
        done = -1
        unescaped: dict[bytes, bytes] = {}
        covered = -1
        for m in ESCAPE_START.finditer(data) if "escape" in present else ():
            if m.start() < covered:
                continue
            first = m.start()
            while first > 0 and m.start() - first < 8 and data[first - 1] == 0x5C:
                first -= 1
            bound = min(len(data), first + ESCAPED_TOKEN_MAX)
            token = ESCAPED_TOKEN.match(data, first, bound)
            hi = token.end() if token else m.end()
            cost += hi - first  # the bytes the token's match read
            if marks is None:
                cost += len(data)
                marks = data.translate(URL_TABLE)
            lo, _ = expand(marks, first, first)
            lo = named_from(data, unescaped_start(data, lo, first) if lo < first else lo)
            covered = hi
            if hi - lo >= ENCODED_MIN and hi != done:
                done = hi
                escaped = data[lo:hi]
                plain = unescaped.get(escaped)
                if plain is None:
                    plain = decode_escapes(escaped)
                    if hi - lo <= _MEMO_TOKEN_MAX and len(unescaped) < _MEMO_TOKENS:
                        unescaped[escaped] = plain
                add(lo, hi, plain, "unicode-escape")
        # HTML character references (&#80;&#105;..., &#x50, \u0026#80; in JSON), with the token
        # bytes and named references around them; a token is decoded once
        covered = -1
        for m in ENTITY_START.finditer(data) if "entity" in present else ():
            if m.start() < covered:
                continue
            first = m.start()
            lo = reference_start(data, first, covered)
            cost += first - lo
            token = ENTITY_TOKEN.match(data, lo, min(len(data), first + ESCAPED_TOKEN_MAX))
            if token is None or token.end() <= first:
                lo = first  # a stray & or ; before it: the token starts at the reference
                token = ENTITY_TOKEN.match(data, first, min(len(data), first + ESCAPED_TOKEN_MAX))
            assert token is not None  # ENTITY_START matched at first
            hi = token.end()
            cost += 2 * (hi - lo)
            lo = named_from(data, unescaped_start(data, lo, first) if lo < first else lo)
            covered = hi
            if hi - lo >= ENCODED_MIN and spells_token(data[lo:hi]):
                add(lo, hi, decode_references(data[lo:hi]), "html-reference")
        # hex dumps (xxd, hexdump -C, od -c) read back to their bytes
        for start, end, dumped in decode_dumps(data) if "dump" in present else ():
            add(start, end, dumped, "hexdump")  # and od's, each reading of a dump of numbers
        # bytes as lists of numbers (_lists)
        probed = probed or {}
        for start, end, listed_bytes in byte_lists(
            data, list_chunks(data, spans_around(probed.get("byte-list", []), len(data), 1024))
        ):
            add(start, end, listed_bytes, "byte-list")
        # uuencode, git's base85 and Ascii85 (_linecodes): where the gate reported them
        for name, ends in (listed or {}).items():
            for start, end, found in LOCATED[name].read(data, sorted(ends)) if ends else ():
                add(start, end, found, name)
        # wrapped base64 or hex: lines of equal width (the last one shorter), decoded as one
        wrapped = wrapped_blocks(data, runs)
        batch = BlobBatch()
        for block in wrapped:
            for start, end, body in block_chunks(data, runs, block):
                hexed = hex_decode(body)
                if hexed is not None:
                    if textual(hexed):
                        add(start, end, hexed, "hex")
                    continue
                based = b32_decode(body) if base32_text(body) else None
                if based is not None and textual(based):
                    add(start, end, based, "base32")
                    continue
                self._blob(body, start, end, hits, depth, batch)
                del body
        del marks
        # base64: mixed-case runs (identifiers, paths and hex digests are all one case); a run
        # that begins with an escape's tail (\nQUJD, =3DQUJD) is also decoded without it
        for start, end in outside(runs, wrapped):  # the runs of a block are decoded with it
            if end - start >= BLOB_MIN:
                continue  # a blob, decoded whole
            run = data[start:end]
            if run.islower() or run.isupper() or run.isdigit():
                if not run.isalnum():
                    continue  # neither hex nor base32 (an identifier's _ or -, a path's /)
                hexed = hex_decode(run) if end - start >= HEX_MIN else None
                if hexed is not None and textual(hexed):
                    add(start, end, hexed, "hex")
                elif not run.translate(
                    None, BASE32 if run.isupper() else BASE32_LOWER
                ):  # base32, either case
                    based = b32_decode(run)
                    if based is not None and textual(based):
                        add(start, padded(data, end, 6), based, "base32")
                continue
            alternative = run_start(data, start, end)
            tail = wrapped_tail(
                data, padded(data, end), end - start
            )  # a wrapped line's short last line
            for first in (start,) if alternative == start else (start, alternative):
                decoded = b64_decode(data[first:end]) if end - first >= MIN_RUN else None
                if tail is not None and decoded and is_text(decoded):
                    whole = b64_decode(data[first:end] + data[tail[0] : tail[1]])
                    if whole and is_text(whole):
                        decoded = whole  # the short last line is the text's end, not the next word
                    else:
                        tail = None
                if decoded and len(decoded) >= 8:
                    stop = tail[1] if tail is not None else padded(data, end)
                    if der_private_key(decoded):
                        hits.append(
                            Hit("private-key", first, stop, b"der:" + decoded[:64], "base64")
                        )
                    add(first, stop, decoded, "base64")
        for start, end in blobs:
            self._blob(data[start:end], start, padded(data, end), hits, depth, batch)
        self._flush(batch, hits, depth)
        spend(cost)
        # binary first (its scan is the lighter one): the text's scan then runs without the
        # binary pieces held; each kind's pieces are let go once joined (memory near the input)
        for pieces, keywords in ((binary_pieces, False), (text_pieces, True)):
            self._scan_pieces(data, pieces, keywords, hits, decoded_out, depth)

    def _scan_pieces(
        self,
        data: bytes,
        pieces: list[tuple[int, int, bytes, str]],
        keywords: bool,
        hits: list[Hit],
        decoded_out: list[tuple[int, int, bytes]] | None,
        depth: int,
    ) -> None:
        """Decoded ``pieces`` (emptied) joined and scanned, each read in its place; the hits in
        what was decoded are reported on the span it was decoded from."""
        if not pieces:
            return
        if decoded_out is not None and keywords:
            decoded_out.extend((start, end, text) for start, end, text, _ in pieces)
        texts, where = placed(data, pieces, keywords)  # a decoded value read in its place
        joined = Joined(texts, range(len(where)), _PIECE_GAP)
        del texts
        for sub in self._scan(joined.buffer, depth=depth + 1, keywords=keywords):
            index = bisect.bisect_right(joined.starts, sub.start) - 1
            lo, hi = (joined.starts[index] + b for b in where.bounds(index))
            if sub.end <= lo or sub.start >= hi:
                continue  # a finding in the text around, not in what was decoded
            start, end = where.span(index)
            hits.append(Hit(sub.rule, start, end, sub.value, where.encodings[index]))

    def _blob(
        self, blob: bytes, start: int, end: int, hits: list[Hit], depth: int, batch: BlobBatch
    ) -> None:
        """A long base64 text decoded and scanned (memoized by SHA-256: same bytes, same result).
        One that decodes to binary joins ``batch``, scanned with the others as one buffer."""
        spend(len(blob))
        digest = hashlib.sha256(blob).digest()
        if digest in batch.digests:
            batch.entries.append(
                (digest, None, start, end, "")
            )  # the same bytes, earlier in the batch
            return
        cached = self._blob_cache.get(digest)
        if cached is None:
            decoded = b64_decode(blob)
            cached = []
            if decoded:
                spend(len(decoded))
                encoding = "base64"
                if der_private_key(decoded):
                    cached.append(("private-key", b"der:" + decoded[:64], encoding))
                decoded, encoding, text = unwrap(decoded, encoding)
                # a blob decodes to an image or ciphertext, or to text (a base64 file)
                if not text:
                    self._blob_cache[digest] = cached  # completed by the batch's scan
                    batch.add(digest, decoded, start, end, encoding)
                    if batch.size >= BATCH_SIZE:
                        self._flush(batch, hits, depth)
                    return
                for hit in self._scan(decoded, depth=depth + 1, keywords=True):
                    cached.append((hit.rule, hit.value, encoding))
            self._blob_cache[digest] = cached
        hits.extend(Hit(rule, start, end, value, encoding) for rule, value, encoding in cached)

    def _flush(self, batch: BlobBatch, hits: list[Hit], depth: int) -> None:
        """Scan the binary blobs of ``batch`` as one buffer (a nested scan has a cost of its own:
        a wrapped base64 file is decoded in 32 KB chunks); each blob's hits go to its memo entry
        and to every place it was found."""
        entries = batch.take()
        bodies = [decoded for _, decoded, _, _, _ in entries if decoded is not None]
        scanned = [
            (digest, encoding) for digest, decoded, _, _, encoding in entries if decoded is not None
        ]
        if bodies:
            joined = Joined(bodies, list(range(len(bodies))), _PIECE_GAP)
            del bodies[:]
            entries = [
                (digest, None, start, end, encoding) for digest, _, start, end, encoding in entries
            ]  # joined now
            for sub in self._scan(joined.buffer, depth=depth + 1, keywords=False):
                digest, encoding = scanned[bisect.bisect_right(joined.starts, sub.start) - 1]
                self._blob_cache[digest].append((sub.rule, sub.value, encoding))
        for digest, _, start, end, _ in entries:
            hits.extend(
                Hit(rule, start, end, value, encoding)
                for rule, value, encoding in self._blob_cache[digest]
            )


@functools.cache
def _passes() -> tuple[tuple[Pass, ...], tuple[Pass, ...], tuple[Rule, ...], tuple[Rule, ...]]:
    """The token passes, the keyword passes and the two gates' rules (the token passes'; the
    keyword passes', the triggers and, last, every ``kty``): the same for every scanner, built
    once (about 1 ms, a scanner is built per export and per ``rho-desk audit``)."""
    tokens = (*token_passes(), hex_key_pass())
    keywords = reader_passes()
    token_rules = tuple(token_rule(p) for p in tokens)
    triggers = (Rule(t, once=True) for t in _TRIGGERS.values())
    # where a byte list, spaced characters, a uuencoded line... may end (``_listed``), then every
    # kty, then the lines worth reading for structure (``structure_rules``), then prose lines
    lists = tuple(Rule(located.gate, last=located.gate) for located in LOCATED.values())
    keyword_rules = (
        *(keyword_rule(p) for p in keywords),
        *triggers,
        *lists,
        Rule(_KTY.pattern, start=_KTY.pattern),
        *structure_rules(),
        Rule(PROSE_LINE, last=PROSE_LINE),  # the end of its key: no start to track
    )
    return tokens, keywords, token_rules, keyword_rules
