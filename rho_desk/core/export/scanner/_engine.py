"""The buffers the scanner runs its passes over, and the way back from them to the input.

Token rules run over the runs of base64/identifier bytes (``RUN`` over ``data.translate(RUN_TABLE)``
finds every run of ``MIN_RUN`` or more; ``runs_of`` gives a scan its runs, mended and sorted
into blobs and the others), joined into pieces that keep the few bytes before a run
(``ya29.``, ``SG.``): ``Joined`` is pieces joined into one buffer with the way back to where each
came from, ``Pieces`` works out, around a place the gate reported, the piece the joined pass
would have put it in, ``narrow_kind`` says how much of a piece a vendor-token rule searches, and
``gated_origins`` the places an anchored rule is confirmed at. ``wrapped_blocks`` finds runs
that are the lines of one wrapped base64 or hex block and ``block_chunks`` joins them back,
a bounded chunk at a time, for decoding; ``BlobBatch`` holds decoded binary blobs until they are
scanned together. ``line_diff`` is the line-aligned comparison
``SecretScanner.rescan`` scans only the changed lines by; ``dirty_blocks`` probes a buffer block
by block, so a decoder or a view works only where its probe found something.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate, compress, islice, repeat
from operator import add, gt, itemgetter, sub
from typing import Final, NamedTuple

from ._decoders import b64_decode, is_text, padded
from ._rules import unescaped_start
from ._vendors import ONE_CASE_PREFIXES
from ._work import spend

__all__ = [
    "BATCH_SIZE",
    "HEAD",
    "MIN_RUN",
    "NARROW_HEAD",
    "PIECE_MAX",
    "PROBE_BLOCK",
    "PROBE_OVERLAP",
    "RUN",
    "RUN_ALPHABET",
    "RUN_CONTEXT",
    "RUN_TABLE",
    "SEPARATORS",
    "SIGNS",
    "SKIP",
    "SPAN",
    "WHOLE",
    "WRAP_CHUNK",
    "WRAP_GAP",
    "BlobBatch",
    "Block",
    "Joined",
    "Pieces",
    "block_chunks",
    "dense_runs",
    "dirty_blocks",
    "find_runs",
    "gated_origins",
    "has_runs",
    "joined_pieces",
    "line_diff",
    "narrow_kind",
    "outside",
    "run_regions",
    "runs_of",
    "spans_around",
    "sparse_runs",
    "text_without_blobs",
    "wrapped_blocks",
    "wrapped_tail",
]


SEPARATORS: Final = frozenset(b"\x00\xff")

RUN_CONTEXT: Final = 12
"""Bytes before a run (and between runs) kept with it for the token rules: ``ya29.``, ``SG.``."""

PIECE_MAX: Final = 1024

RUN_ALPHABET: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"

# Every base64/identifier character becomes "a", everything else a space: runs of MIN_RUN "a"
# are then found by a literal search, an order of magnitude faster than a character-class regex.
RUN_TABLE: Final = bytes(0x61 if b in RUN_ALPHABET else 0x20 for b in range(256))

MIN_RUN: Final = 16

RUN = re.compile(b"a" * MIN_RUN + b"a*")

SPAN: Final = re.Match.span

NARROW_SKIP: Final = 512
"""Pieces this long whose last ``NARROW_BLOCK`` bytes are base64 data are data, not a token ..."""

NARROW_BLOCK: Final = 128

NARROW_HEAD: Final = 320
"""... of which the first this many bytes are searched (a long token such as ``ops_eyJ…`` or
``fm2_…`` starts there)."""

_BASE64_TEXT: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\\ \t\r\n"

_NOT_DIGITS: Final = bytes(b for b in range(256) if b not in b"0123456789")


def _base64_block(piece: bytes) -> bool:
    """Base64 data (with its line breaks): only base64 characters, and some ``+`` or ``/``."""
    return not piece.translate(None, _BASE64_TEXT) and (b"+" in piece or b"/" in piece)


_RUN_SEED: Final = b"a" * MIN_RUN


def sparse_runs(marks: bytes) -> list[tuple[int, int]]:
    """The spans ``RUN`` finds in ``marks`` (data translated by ``RUN_TABLE``), found by
    ``bytes.find``: its search skips ahead on a mismatch, where ``re`` looks at every byte, so it
    is several times faster where runs are rare (decoded binary), and slower where they are many."""
    out = []
    find = marks.find
    at = find(_RUN_SEED)
    while at >= 0:
        end = find(b" ", at)
        if end < 0:
            end = len(marks)
        out.append((at, end))
        at = find(_RUN_SEED, end)
    return out


def dense_runs(marks: bytes) -> list[tuple[int, int]]:
    """The spans ``RUN`` finds in ``marks``, from the lengths of the pieces between its spaces
    (C-level splits and sums): where runs crowd (wrapped base64) ``re`` matches every byte of
    every run one by one."""
    lengths = list(map(len, marks.split(b" ")))
    starts = accumulate(map(add, lengths, repeat(1)), initial=0)
    return [
        (start, start + n) for start, n in zip(starts, lengths, strict=False) if n >= MIN_RUN
    ]  # starts has one more


_SAMPLE: Final = 16384


def find_runs(marks: bytes) -> list[tuple[int, int]]:
    """The spans ``RUN`` finds in ``marks`` (data translated by ``RUN_TABLE``): by ``sparse_runs``
    where other bytes are common (more than one in 16 in a sample of the data: text, JSON,
    decoded binary), by ``dense_runs`` where runs crowd (wrapped base64). Both find the same spans."""
    size = len(marks)
    if size <= 4 * _SAMPLE:
        sample = marks
    else:
        step = size // 4
        sample = b"".join(marks[i * step : i * step + _SAMPLE] for i in range(4))
    if sample.count(b" ") * 16 > len(sample):
        return sparse_runs(marks)
    return dense_runs(marks)


REGION_AFTER: Final = 8
"""Bytes after a run kept in its region (``run_regions``): a token ends at most two bytes past
its run, and a vendor token's gate reads one byte after it."""


def run_regions(runs: list[tuple[int, int]], size: int) -> tuple[list[int], list[int]]:
    """The spans of ``data`` (``size`` bytes) the token rules can match in, as ``(starts, ends)``:
    each run with the ``RUN_CONTEXT`` bytes before it and ``REGION_AFTER`` after, spans that
    overlap as one (each of ``joined_pieces``' pieces lies inside one). Made by C-level maps: a
    100 MB export has hundreds of thousands of runs."""
    if not runs:
        return [], []
    los = list(map(sub, map(_START, runs), repeat(RUN_CONTEXT)))
    his = list(map(add, map(_END, runs), repeat(REGION_AFTER)))
    # a region starts at the first run and at every run whose span begins past the one before
    heads = [0, *compress(range(1, len(runs)), map(gt, islice(los, 1, None), his))]
    starts = list(map(los.__getitem__, heads))
    ends = [*map(his.__getitem__, map(sub, islice(heads, 1, None), repeat(1))), his[-1]]
    starts[0] = max(0, starts[0])
    ends[-1] = min(size, ends[-1])
    return starts, ends


def has_runs(marks: bytes) -> bool:
    """``marks`` (data translated by ``RUN_TABLE``) holds a run (found at the first one)."""
    return marks.find(_RUN_SEED) >= 0


def runs_of(
    data: bytes, blob_min: int, marks: bytes | None = None
) -> tuple[list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int]]]:
    """The runs of ``data`` (``find_runs``; ``marks``: ``data`` translated by ``RUN_TABLE``, if
    the caller has it), each without the escape's tail it may begin with
    (``\\nQUJD...``) or the diff sign that begins its line (``+QUJD...``), then those of them
    that are blobs (``blob_min`` bytes or more) and the others: one pass over the runs (a 100 MB
    export has hundreds of thousands)."""
    found = find_runs(data.translate(RUN_TABLE) if marks is None else marks)
    escapes = b"\\" in data
    runs: list[tuple[int, int]] = []
    blobs: list[tuple[int, int]] = []
    small: list[tuple[int, int]] = []
    for run in found:
        s, e = run
        if escapes and s > 0 and data[s - 1] == 0x5C:
            s = unescaped_start(data, s, e)
            if e - s < MIN_RUN:
                continue
            run = (s, e)
        if s > 0 and data[s] in SIGNS and (data[s - 1] == 0x0A or data[s - 2 : s] == b"\\n"):
            run = (s + 1, e)
        runs.append(run)
        (blobs if e - run[0] >= blob_min else small).append(run)
    return runs, blobs, small


BATCH_SIZE: Final = 1 << 18
"""Decoded binary blobs are scanned together up to about this many bytes."""


class BlobBatch:
    """Binary blobs decoded and waiting for their scan: ``(digest, decoded or None for a repeat
    of an earlier one, start, end, encoding)``."""

    __slots__ = ("digests", "entries", "size")

    def __init__(self) -> None:
        self.entries: list[tuple[bytes, bytes | None, int, int, str]] = []
        self.digests: set[bytes] = set()
        self.size = 0

    def add(self, digest: bytes, decoded: bytes, start: int, end: int, encoding: str) -> None:
        self.entries.append((digest, decoded, start, end, encoding))
        self.digests.add(digest)
        self.size += len(decoded)

    def take(self) -> list[tuple[bytes, bytes | None, int, int, str]]:
        entries, self.entries, self.digests, self.size = self.entries, [], set(), 0
        return entries


class Joined:
    """Pieces of bytes joined into one buffer, with the way back to where each piece came from."""

    __slots__ = ("buffer", "origins", "starts")

    def __init__(
        self, pieces: list[bytes] | list[bytes | memoryview], origins: Sequence[int], gap: bytes
    ) -> None:
        self.buffer = gap.join(pieces)
        self.origins = origins
        # start of piece i = the lengths of pieces before it + i gaps (C-level loops: there can
        # be hundreds of thousands of pieces)
        ends = list(accumulate(map(len, pieces)))
        self.starts = list(
            map(
                add,
                [0, *ends[:-1]],
                range(0, len(pieces) * len(gap), len(gap)) if gap else repeat(0),
            )
        )

    def locate(self, offset: int) -> tuple[int, int]:
        """(piece index, offset of ``offset`` in the original coordinates)."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index, self.origins[index] + offset - self.starts[index]


def text_without_blobs(data: bytes, blobs: list[tuple[int, int]], head: int) -> Joined:
    """``data`` without the bodies of its ``blobs`` (each keeps its first ``head`` bytes), joined
    by ``\x00``."""
    if not blobs:
        return Joined([data], [0], b"")
    pieces: list[bytes] = []
    origins: list[int] = []
    prev = 0
    for start, end in blobs:
        pieces.append(data[prev : start + head])
        origins.append(prev)
        prev = end
    pieces.append(data[prev:])
    origins.append(prev)
    return Joined(pieces, origins, b"\x00")


def joined_pieces(data: bytes, runs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The pieces the token rules search, as ``(starts, ends)``: runs closer than
    ``RUN_CONTEXT`` bytes with no separator between join one piece (``SG.<run>.<run>``), up to
    ``PIECE_MAX`` bytes, and each piece keeps the ``RUN_CONTEXT`` bytes before its first run
    (``ya29.<run>``)."""
    starts: list[int] = []
    ends: list[int] = []
    first = last = -PIECE_MAX  # the current piece
    for s, e in runs:
        if (
            s - last <= RUN_CONTEXT
            and e - first <= PIECE_MAX
            and not SEPARATORS.intersection(data[last:s])
        ):
            ends[-1] = last = e
        else:
            first = max(0, s - RUN_CONTEXT)
            starts.append(first)
            ends.append(e)
            last = e
    return starts, ends


class Pieces:
    """The pieces ``_scan_runs`` joins runs into (runs closer than ``RUN_CONTEXT`` bytes, with
    no separator between, one piece of at most ``PIECE_MAX`` bytes; each piece starts
    ``RUN_CONTEXT`` bytes before its first run), worked out only around the runs asked about.

    The chain of close runs around a run is found by the runs' distances, in windows that double
    (C-level maps, as long as the chain); without a separator in its span, its pieces follow from
    a search of its runs' ends (a piece takes every run that ends within ``PIECE_MAX`` of its
    start), else the chain is replayed run by run, as the full pass would."""

    __slots__ = ("_chains", "_data", "_ends", "_firsts", "_piece", "_runs", "_starts")

    def __init__(self, data: bytes, runs: list[tuple[int, int]]) -> None:
        self._data = data
        self._runs = runs
        # the runs' starts and ends as lists of their own, made when a place is first asked about:
        # searched and subtracted in C, with no call per item (a wrapped base64 file is one chain
        # of thousands of runs)
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._piece: dict[int, tuple[int, int]] = {}  # by run: the pieces of replayed chains
        self._firsts: list[int] = []  # the first runs of the chains found by distance, in order
        self._chains: dict[
            int, tuple[int, list[int], list[tuple[int, int]]]
        ] = {}  # their end, heads, pieces

    def of(self, end: int) -> tuple[int, int] | None:
        """``(start, end of its last run)`` of the piece holding the match that ends at ``end``
        (its last byte in the piece's runs, between them, or in the two bytes after), or None."""
        runs = self._runs
        if not self._starts:
            self._starts, self._ends = list(map(_START, runs)), list(map(_END, runs))
        k = bisect.bisect_right(self._starts, end - 1) - 1
        if k < 0:
            return None
        piece = self._piece.get(k) or self._known(k)
        if piece is None:
            first, stop = self._chain(k)
            data, lo, hi = self._data, runs[first][0], runs[stop - 1][1]
            if data.find(b"\x00", lo, hi) < 0 and data.find(b"\xff", lo, hi) < 0:
                piece = self._by_distance(first, stop, k)
            else:
                first = k  # a separator breaks links too: walk back and replay
                while first > 0:
                    (_, last), (start, _) = runs[first - 1], runs[first]
                    if start - last > RUN_CONTEXT or SEPARATORS.intersection(data[last:start]):
                        break
                    first -= 1
                self._replay(first)
                piece = self._piece[k]
        return piece if end - 1 <= piece[1] + 1 else None

    def of_token(self, end: int, shift: int) -> tuple[int, int] | None:
        """The piece of a token rule's report ending at ``end``: by the report's own end, before
        its boundary byte (``shift``), or for a token whose last one or two bytes run past the
        piece (the full pass confirms a match up to 4 bytes past its run)."""
        return (
            self.of(end)
            or self.of(end - shift)
            or self.of(end - shift - 1)
            or self.of(end - shift - 2)
        )

    def _known(self, k: int) -> tuple[int, int] | None:
        """The piece of run ``k`` if its chain was worked out by distance."""
        i = bisect.bisect_right(self._firsts, k) - 1
        if i < 0:
            return None
        stop, heads, spans = self._chains[self._firsts[i]]
        return spans[bisect.bisect_right(heads, k) - 1] if k < stop else None

    def _chain(self, k: int) -> tuple[int, int]:
        """``(first, stop)``: the runs linked to run ``k`` by their distances alone."""
        starts, ends = self._starts, self._ends
        first, width = k, 32
        while first > 0:
            lo = max(0, first - width)
            broken = bytes(
                map(RUN_CONTEXT.__lt__, map(sub, starts[lo + 1 : first + 1], ends[lo:first]))
            )
            at = broken.rfind(1)
            if at >= 0:
                first = lo + 1 + at
                break
            first, width = lo, width * 2
        stop, width = k + 1, 32
        while stop < len(starts):
            hi = min(len(starts), stop + width)
            broken = bytes(
                map(RUN_CONTEXT.__lt__, map(sub, starts[stop:hi], ends[stop - 1 : hi - 1]))
            )
            at = broken.find(1)
            if at >= 0:
                stop += at
                break
            stop, width = hi, width * 2
        return first, stop

    def _by_distance(self, first: int, stop: int, k: int) -> tuple[int, int]:
        """The pieces of the chain ``runs[first:stop]`` (no separator in it), and run ``k``'s."""
        runs = self._runs
        heads: list[int] = []
        spans: list[tuple[int, int]] = []
        head = first
        while head < stop:
            start = max(0, runs[head][0] - RUN_CONTEXT)
            last = max(head, bisect.bisect_right(self._ends, start + PIECE_MAX, head + 1, stop) - 1)
            heads.append(head)
            spans.append((start, runs[last][1]))
            head = last + 1
        bisect.insort(self._firsts, first)
        self._chains[first] = (stop, heads, spans)
        return spans[bisect.bisect_right(heads, k) - 1]

    def _replay(self, first: int) -> None:
        """The pieces of the chain of linked runs that starts at run ``first``, run by run."""
        runs, data, pieces = self._runs, self._data, self._piece
        count = len(runs)
        start = max(0, runs[first][0] - RUN_CONTEXT)
        head = first  # the piece's first run
        last = runs[first][1]
        k = first + 1
        while True:
            linked = False
            if k < count:
                s, e = runs[k]
                linked = s - last <= RUN_CONTEXT and not SEPARATORS.intersection(data[last:s])
            if linked and e - start <= PIECE_MAX:
                last = e
                k += 1
                continue
            piece = (start, last)
            for member in range(head, k):
                pieces[member] = piece
            if not linked:
                return
            start = max(0, s - RUN_CONTEXT)  # the chain goes on in a new piece
            head = k
            last = e
            k += 1


_START: Final = itemgetter(0)
_END: Final = itemgetter(1)


WHOLE, HEAD, SKIP = 0, 1, 2


def narrow_kind(data: bytes, start: int, end: int) -> int:
    """How a narrow token rule searches a piece: whole, its head only (a long run of base64
    data), or not at all (vendor tokens mix digits and letters, or cases: ``session_state_index``
    cannot be one)."""
    run = data[start + RUN_CONTEXT : end]
    if (
        run.islower()
        and not run.translate(None, _NOT_DIGITS)
        and not any(data.find(prefix, start, end) >= 0 for prefix in ONE_CASE_PREFIXES)
    ):
        return SKIP
    if end - start >= NARROW_SKIP and _base64_block(data[end - NARROW_BLOCK : end]):
        return HEAD
    return WHOLE


def gated_origins(
    starts: Iterable[int], bodies: list[tuple[int, int]], body_starts: list[int]
) -> Iterator[int]:
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


def line_diff(a: bytes, b: bytes) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]]]:
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


# --- blocks a probe finds something in ------------------------------------------------------------

PROBE_BLOCK: Final = 4096
PROBE_OVERLAP: Final = 64
"""Bytes a probed block reaches into the next (the longest place a probe looks for), so that no
place is cut in two by a block's end."""


def dirty_blocks(
    data: bytes, probe: Callable[[bytes], Sequence[bool]], kinds: int
) -> list[list[int]]:
    """Per kind, the starts of the ``PROBE_BLOCK``-byte blocks of ``data`` in which ``probe``
    (of a block, and ``PROBE_OVERLAP`` bytes after it) says that kind occurs. A probe is one gate
    pass over a block: a buffer whose gate found something somewhere is probed block by block,
    so the work that follows is done where it is, not over the whole buffer."""
    out: list[list[int]] = [[] for _ in range(kinds)]
    spend(len(data))
    for block in range(0, len(data), PROBE_BLOCK):
        for kind, found in enumerate(probe(data[block : block + PROBE_BLOCK + PROBE_OVERLAP])):
            if found:
                out[kind].append(block)
    return out


def spans_around(blocks: list[int], size: int, margin: int) -> list[tuple[int, int]]:
    """The blocks (their starts, in order) each widened by ``margin`` bytes, overlaps merged."""
    spans: list[list[int]] = []
    for block in blocks:
        lo, hi = max(0, block - margin), min(size, block + PROBE_BLOCK + PROBE_OVERLAP + margin)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    return [(lo, hi) for lo, hi in spans]


# --- wrapped blocks ------------------------------------------------------------------------------

WRAP_CHUNK: Final = 32768
"""Wrapped blocks are decoded this many characters at a time."""
WRAP_GAP = re.compile(
    rb"[ \t]{0,16}(?:\r?\n|\\{1,7}r\\{1,7}n|\\{1,7}n|<br>|<br/>)"
    rb"(?:[ \t>]{0,16}|[+\-]|[ \t]{0,8}[0-9]{1,7}(?::|\xe2\x86\x92|\\{1,7}u2192|\t|\\{1,7}t|[ \t]{1,2}\|)[ \t]?)"
)
"""What separates two lines of wrapped base64 or hex: a line break (raw, or JSON-escaped at any depth),
with indentation, a quote marker, a diff's ``+`` or ``-``, or a line number (``12:``, ``12→``,
``  12 |``, ``12<tab>``: a file read back through a tool)."""
SIGNS: Final = frozenset(b"+-")
"""A diff line's sign (before base64 it is not part of the run that follows)."""


class Block(NamedTuple):
    """A block of wrapped lines: its first and last run, and the gap between every two of its
    lines when that is one and the same (else None)."""

    first: int
    last: int
    gap: bytes | None


def wrapped_blocks(data: bytes, runs: list[tuple[int, int]]) -> list[Block]:
    """Blocks of wrapped lines (base64 at 76 or 64 columns, ``xxd -p`` at 60): runs that are
    separated by one line break, all as wide as the first but the last, which may be shorter.
    The ``Block`` of each block of two lines or more. A line of an unsigned
    block that lost a leading ``+`` or ``-`` to the diff rule (base64 wraps a ``+`` to the
    start of a line about once in 64 lines) gets it back, in ``runs``, when that makes it as
    wide as the block's lines and more follow: the block goes on instead of ending there."""
    out: list[Block] = []
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
        # the last gap that matched (the lines of one block are mostly joined alike), its length
        # and, for a one-byte gap, that byte: compared in place before the gap pattern runs
        gap, gap_len, gap_byte = b"", 0, -1
        gaps = 0  # how many different gaps the block has had
        # a block of unsigned lines: a line the diff rule took a sign from (a line of base64
        # that begins with "+") gets it back when that makes it as wide as the others
        unsigned = start == 0 or data[start - 1] not in SIGNS
        narrower = width - 1
        while j + 1 < count:
            ns, ne = runs[j + 1]
            if (
                unsigned
                and ne - ns == narrower
                and data[ns - 1] in SIGNS
                and j + 2 < count
                and runs[j + 2][0] - ne <= 40
                and runs[j + 2][1] - runs[j + 2][0] <= width
            ):
                ns -= 1
                runs[j + 1] = (ns, ne)
            between = ns - end
            if between > 40 or end - start != width or ne - ns > width:
                break
            spent += between
            if between != gap_len or (
                data[end] != gap_byte if between == 1 else not data.startswith(gap, end)
            ):
                if WRAP_GAP.fullmatch(data, end, ns) is None:
                    break
                gap, gap_len = data[end:ns], between
                gap_byte = gap[0] if between == 1 else -1
                gaps += 1
            j += 1
            start, end = ns, ne
        if j > i:
            out.append(Block(i, j, gap if gaps == 1 else None))
        i = j + 1
    spend(spent)
    return out


def block_chunks(
    data: bytes, runs: list[tuple[int, int]], block: Block
) -> Iterator[tuple[int, int, bytes]]:
    """A block's lines joined, ``WRAP_CHUNK`` characters at a time, one chunk alive at a time:
    whole lines, a multiple of 4 of them (base64 and hex stay aligned), overlapping by 4 lines
    so that nothing shorter than 4 lines is cut. With one gap between all its lines, a chunk is
    its span with the gap removed: the gap starts with a byte no run holds (a run ends before
    it), so it occurs only where it separates two lines."""
    i, j, gap = block
    width = runs[i][1] - runs[i][0]
    step = max(4, (WRAP_CHUNK // max(width, 1)) & ~3)
    first = i
    while True:
        last = min(j, first + step + 3)
        stop = runs[last][1]
        if gap is not None:
            body = data[runs[first][0] : stop].replace(gap, b"")
        else:
            body = b"".join(data[a:b] for a, b in runs[first : last + 1])
        end = padded(data, stop)
        if last >= j:
            tail = wrapped_tail(data, end, width)
            if tail is not None and _text_end(data[runs[last][0] : stop], data[tail[0] : tail[1]]):
                body += data[tail[0] : tail[1]]  # the short last line, too short to be a run
                end = tail[1]
            yield runs[first][0], end, body
            return
        yield runs[first][0], end, body
        first += step


WRAP_WIDTHS: Final = frozenset({64, 76})
_TAIL: Final = re.compile(rb"[A-Za-z0-9+/]{1,15}={0,2}(?![A-Za-z0-9+/=])")


def _text_end(line: bytes, tail: bytes) -> bool:
    """``tail`` ends the text ``line`` is base64 of (both decode to text), rather than being the
    next word."""
    decoded = b64_decode(line + tail)
    return decoded is not None and is_text(decoded)


def wrapped_tail(data: bytes, end: int, width: int) -> tuple[int, int] | None:
    """The last line of wrapped base64 after a line of ``width`` that ends at ``end``: shorter
    than a run (``MIN_RUN``), so no block holds it (``(start, end)`` of its characters), or None.
    Only after a line as wide as base64 tools wrap (76: GNU ``base64``; 64: PEM, ``openssl``) and
    not padded (padding ends the data)."""
    if width not in WRAP_WIDTHS or (end > 0 and data[end - 1] == 0x3D):
        return None
    gap = WRAP_GAP.match(data, end, min(len(data), end + 40))
    if gap is None:
        return None
    tail = _TAIL.match(data, gap.end(), min(len(data), gap.end() + 18))
    return (gap.end(), tail.end()) if tail is not None else None


def outside(runs: list[tuple[int, int]], blocks: list[Block]) -> Iterator[tuple[int, int]]:
    """The runs not in ``blocks`` (in order, not overlapping)."""
    k = 0
    for first, last, _ in blocks:
        yield from runs[k:first]
        k = last + 1
    yield from runs[k:]
