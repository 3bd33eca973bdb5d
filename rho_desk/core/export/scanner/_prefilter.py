"""The gate: one multi-pattern pass that says which rules can match, and where (hyperscan).

This module holds the gate (``Gate``, ``Rule``, ``Reports``) and the gate rule of each of the
scanner's passes (``token_rule``, ``keyword_rule``: what the gate looks for so that it reports
every place the pass's ``re`` pattern can match).

``re`` has no multi-pattern search: each rule is a pass of its own over the text. Most rules find
nothing in most text, and a pass that finds nothing still reads every byte. A ``Gate`` compiles
every rule of a list into one hyperscan database and scans the buffer once; what it reports
decides which ``re`` work is done, and the ``re`` patterns still decide every match, so a gated
scan finds exactly what the ungated one finds:

* a rule with a **start** (a lookaround-free regex that matches where the rule's own pattern
  begins, and how far into that match the pattern starts) or a **last** (a regex whose match
  ends a known distance after the pattern's first byte) gets the positions where its pattern can
  begin: the scanner confirms the rule's pattern there, as it does after an ``anchor`` search;
* any other rule is compiled in hyperscan's prefilter mode (a superset of its ``re`` pattern):
  the end of each report says which piece of a ``SEPARATOR``-joined buffer to search, or, for a
  text without separators (``once``: the first report only), that the rule must be searched at
  all.

Measured on the same bytes, in one run (``scripts/measure_regex_engines.py``): the token rules
over a 30 MB session's runs, ``re`` one pass per rule 9 MB/s, google-re2 one alternation of them
1 MB/s (its DFA runs out of memory on the bounded repeats and falls back), hyperscan 230 MB/s.

Without hyperscan (``HYPERSCAN`` is False) the scanner runs every rule as its own ``re`` pass,
with the same results.
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add, sub
from types import ModuleType
from typing import Any, Final

from ._engine import dirty_blocks
from ._rules import Pass, gate_head
from ._work import spend

_hs: ModuleType | None
try:  # ~6 ms to import; wheels for x86-64 and Apple silicon (pyproject.toml)
    import hyperscan as _hs
except ImportError:  # pragma: no cover - the lock pins hyperscan; re gives the same matches
    _hs = None

__all__ = [
    "GATE_PARTS",
    "HYPERSCAN",
    "PARALLEL_MIN",
    "Gate",
    "GatePasses",
    "Probe",
    "Reports",
    "Rule",
    "every_start",
    "gate",
    "hyperscan_syntax",
    "keyword_rule",
    "token_rule",
    "window_starts",
    "workers",
]

HYPERSCAN: Final = _hs is not None


def _hyperscan() -> ModuleType:
    assert _hs is not None
    return _hs


_NAMED_GROUP: Final = re.compile(rb"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def hyperscan_syntax(pattern: bytes) -> bytes:
    """A Python ``re`` pattern in hyperscan's syntax: named groups become plain groups."""
    if b"(?P=" in pattern:
        raise ValueError("back-references have no hyperscan form")
    return _NAMED_GROUP.sub(b"(?:", pattern)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule for a ``Gate``: its ``re`` pattern, or a start pattern and the offset into it."""

    pattern: bytes
    caseless: bool = False
    start: bytes | None = None
    """Where the rule's pattern can begin: the start of a match of this (plus ``offset``)."""
    offset: int = 0
    last: bytes | None = None
    """... or the end of a match of this (less ``back``)."""
    back: int = 0
    once: bool = False
    """Report only the first match (the rule is searched whole if it can match at all)."""
    weight: int = 1
    """What the rule costs hyperscan, against the others (``Gate`` balances its parts by it)."""
    alternatives: tuple[bytes, ...] = ()
    """Expressions searched instead of ``pattern`` (prefiltered, ``Pass.alternatives``) or of
    ``last``, each on its own, their reports the rule's: together they match what it matches."""
    window: int = 0
    """With ``last``: the rule's pattern begins at most this many bytes before the end of a match
    of ``last``, somewhere the scanner finds by searching the rule's anchor there (the report
    gives the end: hyperscan cannot track the start of some patterns, those that count)."""


class Reports:
    """What one scan found: per rule, where its pattern can begin (rules with a ``start`` or a
    ``last`` and no ``window``) or the ends of its reports (arrays of machine integers: an
    adversarial text can hold a report every few bytes). A rule with no report holds an empty
    tuple: most scans report few rules, and a small buffer's scan should not build an array per
    rule."""

    __slots__ = ("ends", "starts")

    def __init__(self, count: int) -> None:
        self.starts: list[Sequence[int]] = [()] * count
        self.ends: list[Sequence[int]] = [()] * count


_STARTS, _LASTS, _ENDS = 0, 1, 2

SPAN_GAP: Final = b"\xff"
"""Between the spans ``Gate.scan_spans`` joins (a separator of joined strings, no token byte)."""


class Gate:
    """A hyperscan database of ``rules``, compiled once, in ``parts`` databases of about equal
    ``weight``: each part can be scanned on its own thread (hyperscan lets go of the GIL), and
    ``scan`` scans them all. Thread-safe (one scratch space per part and thread)."""

    def __init__(self, rules: Sequence[Rule], parts: int = 1) -> None:
        hs = _hyperscan()
        self.rules = list(rules)
        # per rule: its expressions (a rule with alternatives has several) and their flags
        expressions: list[list[bytes]] = []
        flags: list[int] = []
        for rule in self.rules:
            caseless = hs.HS_FLAG_CASELESS if rule.caseless else 0
            if rule.start is not None:
                expressions.append([rule.start])
                flags.append(hs.HS_FLAG_SOM_LEFTMOST | caseless)
            elif rule.last is not None:
                expressions.append(list(rule.alternatives) or [rule.last])
                flags.append(caseless)  # a window rule's reports are ends, as a prefiltered rule's
            else:
                expressions.append(
                    [hyperscan_syntax(e) for e in rule.alternatives or (rule.pattern,)]
                )
                flags.append(
                    hs.HS_FLAG_PREFILTER | caseless | (hs.HS_FLAG_SINGLEMATCH if rule.once else 0)
                )
        # per rule: which list a report goes to, and the shift from the report to the position
        self._kinds = [
            _STARTS
            if r.start is not None
            else _LASTS
            if r.last is not None and not r.window
            else _ENDS
            for r in self.rules
        ]
        self._shifts = [r.offset if r.start is not None else -r.back for r in self.rules]
        self._hs = hs
        self._dbs: list[Any] = []
        for ids in _balanced([r.weight for r in self.rules], parts):
            db = hs.Database(mode=hs.HS_MODE_BLOCK)
            if ids:  # the ids are the rules' indices: reports need no mapping
                each = [(e, i) for i in ids for e in expressions[i]]
                db.compile(
                    expressions=[e for e, _ in each],
                    ids=[i for _, i in each],
                    elements=len(each),
                    flags=[flags[i] for _, i in each],
                )
            self._dbs.append(db if ids else None)
        self._local = threading.local()

    @property
    def parts(self) -> int:
        return len(self._dbs)

    def scan(self, buffer: bytes) -> Reports:
        reports = Reports(len(self.rules))
        for part in range(self.parts):
            self.scan_part(buffer, part, reports)
        return reports

    def scan_part(self, buffer: bytes, part: int, reports: Reports) -> None:
        """Scan ``buffer`` with the rules of ``part``, into ``reports`` (whose lists of those
        rules only it writes: parts can fill one ``Reports`` at once)."""
        db = self._dbs[part]
        if not buffer or db is None:
            return
        starts, ends, kinds, shifts = reports.starts, reports.ends, self._kinds, self._shifts
        code = "i" if len(buffer) < 1 << 31 else "q"  # 4 bytes a report where they do

        def on_match(rule: int, start: int, end: int, _flags: int, _context: Any) -> None:
            kind = kinds[rule]
            if kind == _ENDS:
                found, at = ends, end
            else:
                found, at = starts, (start if kind == _STARTS else end) + shifts[rule]
            positions = found[rule]
            if not positions:
                positions = found[rule] = array(code)
            positions.append(at)  # type: ignore[attr-defined]

        db.scan(buffer, match_event_handler=on_match, scratch=self._scratch(part))

    def _scratch(self, part: int) -> Any:
        """This thread's scratch space for ``part``."""
        scratches = getattr(self._local, "scratches", None)
        if scratches is None:
            scratches = self._local.scratches = {}
        scratch = scratches.get(part)
        if scratch is None:
            scratch = scratches[part] = self._hs.Scratch(self._dbs[part])
        return scratch

    def matching(self, buffer: bytes, wanted: Sequence[bool]) -> list[bool]:
        """Per rule, whether it is ``wanted`` and matches somewhere in ``buffer``: the scan stops
        as soon as each wanted rule has matched (a probe asks whether, not where: on a block
        with a look-alike in its first line, a tenth of the work of reading it all)."""
        found = [False] * len(self.rules)
        left = sum(map(bool, wanted))

        def on_match(rule: int, _start: int, _end: int, _flags: int, _context: Any) -> bool:
            nonlocal left
            if wanted[rule] and not found[rule]:
                found[rule] = True
                left -= 1
            return left == 0  # True stops the scan

        for part, db in enumerate(self._dbs):
            if not left or not buffer:
                break
            if db is not None:
                try:
                    db.scan(buffer, match_event_handler=on_match, scratch=self._scratch(part))
                except self._hs.ScanTerminated:
                    break
        return found

    def scan_spans(self, data: bytes, starts: list[int], ends: list[int]) -> Reports:
        """``scan`` of the spans of ``data`` from ``starts`` to ``ends`` (in order, apart) only,
        joined by ``SPAN_GAP``, its reports placed in ``data``: a match inside a span is reported
        as in ``data`` (one that reads the gap past a span's end, at the byte after that end)."""
        buffer = SPAN_GAP.join(map(data.__getitem__, map(slice, starts, ends)))
        # where each span starts in the buffer, and how far it moved from ``data`` (C-level maps:
        # an export's runs are hundreds of thousands of spans)
        lengths = map(sub, ends, starts)
        at = list(accumulate(map(add, lengths, repeat(len(SPAN_GAP))), initial=0))
        moves = list(map(sub, starts, at))
        found = self.scan(buffer)
        code = "i" if len(data) < 1 << 31 else "q"
        # a report's span: the last to start at or before its first byte (a start) or its last
        # byte (an end)
        for positions, back in ((found.starts, 0), (found.ends, 1)):
            for i, positions_at in enumerate(positions):
                if positions_at:
                    positions[i] = array(
                        code, [p + moves[bisect_right(at, p - back) - 1] for p in positions_at]
                    )
        return found


def _balanced(weights: Sequence[int], parts: int) -> list[list[int]]:
    """The indices of ``weights`` in ``parts`` lists of about equal total weight (the heaviest
    first, each to the lightest part), each list in order."""
    out: list[list[int]] = [[] for _ in range(max(1, min(parts, len(weights))))]
    totals = [0] * len(out)
    for i in sorted(range(len(weights)), key=lambda i: -weights[i]):
        lightest = totals.index(min(totals))
        out[lightest].append(i)
        totals[lightest] += weights[i]
    return [sorted(ids) for ids in out]


_GATES: dict[tuple[tuple[Rule, ...], int], Gate] = {}
_GATES_LOCK: Final = threading.Lock()


def gate(rules: Sequence[Rule], parts: int = 1) -> Gate | None:
    """The ``Gate`` of ``rules`` in ``parts`` (compiled on first use, then shared), or None
    without hyperscan."""
    if not HYPERSCAN:
        return None
    key = (tuple(rules), parts)
    with _GATES_LOCK:
        found = _GATES.get(key)
        if found is None:
            found = _GATES[key] = Gate(key[0], parts)
        return found


# --- the gate rule of each pass ----------------------------------------------------------------

_OPEN_BOUNDED: Final = re.compile(rb"\{([0-9]+),\}")

_RIGHT_BOUNDARY: Final = rb"(?:[^A-Za-z0-9]|$)"


def token_rule(rule: Pass) -> Rule:
    """The gate rule of a token pass: its pattern, and for a vendor token the boundary its handler
    requires after it (a vendor token shape inside a run of base64 data is not reported)."""
    right = _RIGHT_BOUNDARY if rule.bounded else b""
    alternatives = tuple(a + right for a in rule.alternatives)
    return Rule(
        rule.pattern.pattern + right,
        caseless=bool(rule.pattern.flags & re.IGNORECASE),
        alternatives=alternatives,
    )


def keyword_rule(rule: Pass) -> Rule:
    """The gate rule of a keyword pass: an anchored pass by the start of its anchor (caseless:
    anchors are searched in lower-cased text), any other by its pattern."""
    if rule.gate is not None:
        regex, offset, back = rule.gate
        # anchored: searched in the lower-cased text; else as its pattern is
        caseless = rule.anchor is not None or bool(rule.pattern.flags & re.IGNORECASE)
        if rule.window:
            return Rule(
                rule.pattern.pattern,
                caseless=caseless,
                last=regex,
                window=rule.window,
                weight=rule.weight,
            )
        if back:
            return Rule(
                rule.pattern.pattern,
                caseless=caseless,
                last=regex,
                back=back,
                alternatives=rule.alternatives,
            )
        return Rule(rule.pattern.pattern, caseless=caseless, start=regex, offset=offset)
    if rule.anchor is None:
        return Rule(
            rule.pattern.pattern, caseless=bool(rule.pattern.flags & re.IGNORECASE), once=True
        )
    start, offset = gate_head(
        rule.anchor.pattern
    )  # the gate finds "authorization", the pattern starts 7 in
    start = _OPEN_BOUNDED.sub(rb"{\1}", _strip_lookarounds(hyperscan_syntax(start)))
    return Rule(rule.pattern.pattern, caseless=True, start=start, offset=offset, weight=rule.weight)


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


# --- the passes of one buffer -----------------------------------------------------------------

PARALLEL_MIN: Final = 1 << 18
"""Buffers this long or longer have their gates' parts scanned on worker threads."""
GATE_PARTS: Final = 2
"""The scanner's keyword gate is two databases, scanned at once on two threads (a text dense with
keywords keeps both busy); its token gate is one, scanned over the runs' regions only
(``scan_spans``) once the runs are found: split, it read each byte twice for little (on a 100 MB
export 66 ms in one database, 96 + 60 ms in two, when it read every byte)."""
_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK: Final = threading.Lock()


def workers() -> ThreadPoolExecutor:
    """Two worker threads for an export's work that lets go of the GIL: the gates' parts, the
    hash of its output (started on first use, shared by every scanner and export)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(
                ThreadPoolExecutor(max_workers=GATE_PARTS, thread_name_prefix="rho-desk export")
            )
        return _POOL[0]


class GatePasses:
    """The passes of ``gates`` (None where a gate is not wanted) over one buffer. A buffer of
    ``PARALLEL_MIN`` bytes or more has every part of every gate started on the ``workers``' threads at
    once (hyperscan lets go of the GIL: the scanner finds the runs meanwhile), each waited for
    when asked; a smaller one has each gate scanned when asked."""

    __slots__ = ("_data", "_done", "_gates", "_pending", "_reports")

    def __init__(self, gates: tuple[Gate | None, ...], data: bytes) -> None:
        self._data = data
        self._gates = gates
        self._reports = [Reports(len(g.rules)) if g is not None else None for g in gates]
        self._pending: list[list[Future[None]]] = [[] for _ in gates]
        self._done = [False] * len(gates)
        if len(data) >= PARALLEL_MIN:
            pool = workers()
            for i, (g, reports) in enumerate(zip(gates, self._reports, strict=True)):
                if g is not None and reports is not None:
                    self._pending[i] = [
                        pool.submit(g.scan_part, data, part, reports) for part in range(g.parts)
                    ]

    def reports(self, i: int) -> Reports | None:
        """What gate ``i`` reports (None for a gate not wanted)."""
        gate, reports = self._gates[i], self._reports[i]
        if gate is None or reports is None:
            return None
        if not self._done[i]:
            for pending in self._pending[i]:
                pending.result()
            if not self._pending[i]:
                for part in range(gate.parts):
                    gate.scan_part(self._data, part, reports)
            self._done[i] = True
        return reports


def window_starts(
    data: bytes, anchor: re.Pattern[bytes], ends: Iterable[int], window: int
) -> Sequence[int]:
    """Where ``anchor`` matches (in lower case, overlapping matches too) starting within ``window``
    bytes before one of ``ends`` (in order): the places a window rule's pattern can begin. The
    anchor's match may run past the end (the gate reports ``cookie'`` of ``xCookie'=``), so each
    window is searched ``window`` bytes further, for matches that start before its end. Windows
    that overlap are searched as one span. An array: a text of names has one every few bytes."""
    spans: list[list[int]] = []
    for end in ends:
        lo = max(0, end - window)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([lo, end])
    found = array("q")
    for lo, hi in spans:
        for part in range(lo, hi, _LOWERED_MAX):  # a span can be the whole text: lowered in parts
            top = min(hi, part + _LOWERED_MAX)
            lowered = data[part : top + window].lower()
            spend(len(lowered))
            found.extend(part + at for at in every_start(anchor, lowered) if part + at < top)
    return found


_LOWERED_MAX: Final = 1 << 16


def every_start(anchor: re.Pattern[bytes], lowered: bytes) -> Iterator[int]:
    """Where ``anchor`` matches in ``lowered``, overlapping matches too, in order."""
    pos = 0
    while (m := anchor.search(lowered, pos)) is not None:
        yield m.start()
        pos = m.start() + 1


class Probe:
    """Triggers looked for block by block (``_engine.dirty_blocks``): a buffer whose gate found
    one somewhere has the work it asks for done only in the blocks that hold it. One small gate
    (or without hyperscan each trigger's ``re`` pattern, ``plain`` where it differs) a block."""

    __slots__ = ("_gate", "_names", "_patterns")

    def __init__(self, triggers: dict[str, bytes], plain: dict[str, bytes]) -> None:
        self._names = tuple(triggers)
        self._gate = gate(tuple(Rule(pattern, once=True) for pattern in triggers.values()))
        self._patterns = tuple(
            re.compile(plain.get(name, pattern)) for name, pattern in triggers.items()
        )

    def blocks(self, data: bytes, present: frozenset[str]) -> dict[str, list[int]]:
        """For each trigger in ``present``, the starts of the blocks of ``data`` that hold it."""
        wanted = [name in present for name in self._names]
        if not any(wanted):
            return {}
        found = self._gate

        def probe(block: bytes) -> list[bool]:
            if found is None:
                return [
                    want and p.search(block) is not None
                    for want, p in zip(wanted, self._patterns, strict=True)
                ]
            return found.matching(block, wanted)

        return dict(zip(self._names, dirty_blocks(data, probe, len(self._names)), strict=True))
