"""One keyword pass's hits as the scan keeps them: bounded values extended, overlapping hits folded.

A text with a name every few bytes then costs and holds about what a text with one name does.

A run such as ``secret=1secret=1…`` is one value after every name in it. A pattern that read
each value to its end would read the run once per name (quadratic: 2.8 s for 32 KB), so a
pattern's value may be bounded (``VALUE_BOUND``): each name costs at most the bound, and a hit
that reaches it runs on to its value's end, found once per run (``stop``: the first byte that
ends a value). Of such hits in one run (they all end where the run ends) the first that is not a
placeholder is kept: the others lie inside it, or are placeholders the scan drops anyway.

Hits that overlap the one before them are folded into one hit from the second's start (``fold``):
the scan merges overlapping hits anyway and names a merged span by its first hit, which is kept
as it is, so the redaction and its rule are the same and the scan holds two hits per run, not one
per name (with a value of up to ``VALUE_MAX`` each: 100 x the input). Placeholders are dropped
here, as the scan drops them at its end, before they can join a run.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

from ._catalogue import PLACEHOLDER_RUN, Hit, placeholder
from ._work import spend

__all__ = ["VALUE_BOUND", "PassHits", "WholeValue"]

VALUE_BOUND: Final = 256
"""The most bytes of a value a bounded pattern matches (``ASSIGNMENT_DIGIT`` lies within it)."""


class WholeValue:
    """What a rule asks of a whole value that reached the bound, read in the data from where it
    starts to ``end`` (a regex of one class of bytes: those that end a value), in linear time."""

    __slots__ = ("_letter", "_masked", "end")

    def __init__(self, end: bytes) -> None:
        assert end.startswith(b"[") and end.endswith(b"]")
        self.end = re.compile(end)
        self._letter = re.compile(rb"[^A-Za-z" + end[1:] + rb"*+[A-Za-z]")
        mask = rb"[^*." + end[1:]
        self._masked = re.compile(
            mask
            + rb"{0,16}(?:\.{3}|\xe2\x80\xa6|\*{3,}+)"
            + mask
            + rb"{0,8}+(?![^"
            + end[1:]
            + rb")"
        )

    def letter_next(self, data: bytes, pos: int) -> bool:
        """A letter comes at ``pos`` or after it, before the value ends."""
        return self._letter.match(data, pos) is not None

    def masked(self, data: bytes, start: int) -> bool:
        """The value at ``start`` is masked as ``_values.masked`` says (``ghp_****abcd``)."""
        return self._masked.match(data, start) is not None


_SAME_RUNS: Final = re.compile(rb"(.)\1{%d,}" % (PLACEHOLDER_RUN - 1), re.DOTALL)


class PassHits:
    """The hits of one keyword pass over ``data``, kept as ``hits`` gives them; ``stop`` for a
    pass whose pattern bounds its value at ``VALUE_BOUND`` bytes."""

    __slots__ = ("_chain", "_data", "_kinds", "_long", "_out", "_run", "_stop")

    def __init__(self, data: bytes, stop: re.Pattern[bytes] | None) -> None:
        self._data = data
        self._stop = stop
        self._run = (-1, -1)
        """A span with no ``stop`` in it, and the value end that follows it."""
        self._long: dict[int, tuple[array[int], array[int]]] = {}
        """Per value end, the hits that reached the bound before it: their starts, and the index
        of each one's rule and encoding in ``_kinds`` (arrays: one every few bytes of a run)."""
        self._kinds: list[tuple[str, str]] = []
        self._out: list[Hit] = []
        self._chain: list[Hit] = []
        """The first hit of the current run of overlapping hits, then the rest folded in one."""

    def add(self, hit: Hit) -> None:
        if self._stop is not None and hit.end - hit.start >= VALUE_BOUND:
            lo, end = self._run
            if not lo <= hit.end <= end:
                stop = self._stop.search(self._data, hit.end)
                end = stop.start() if stop is not None else len(self._data)
                spend(end - hit.end)
                self._run = (hit.end, end)
            starts, kinds = self._long.setdefault(end, (array("q"), array("B")))
            kind = (hit.rule, hit.encoding)
            if kind not in self._kinds:
                self._kinds.append(kind)
            starts.append(hit.start)
            kinds.append(self._kinds.index(kind))
        elif not placeholder(hit):
            self._fold(hit)

    def _fold(self, hit: Hit) -> None:
        chain = self._chain
        if chain and chain[0].start < hit.start < max(h.end for h in chain):
            if len(chain) == 1:
                chain.append(hit)
            elif hit.end > chain[1].end:
                last = chain[1]
                chain[1] = Hit(last.rule, last.start, hit.end, last.value, last.encoding)
            return
        self._out.extend(chain)
        self._chain = [hit]

    def hits(self) -> list[Hit]:
        """The pass's hits: a long value's first hit that is not a placeholder, per value end,
        extended to it; overlapping hits folded."""
        data = self._data
        for end, (starts, kinds) in self._long.items():
            if any(a > b for a, b in pairwise(starts)):  # in order but for a few
                order = sorted(range(len(starts)), key=starts.__getitem__)
                starts, kinds = (
                    array("q", (starts[i] for i in order)),
                    array("B", (kinds[i] for i in order)),
                )
            kept = _first_not_placeholder(data, starts, end)
            if kept is not None:
                start, (rule, encoding) = starts[kept], self._kinds[kinds[kept]]
                self._fold(Hit(rule, start, end, data[start:end], encoding))
        self._long.clear()
        self._out.extend(self._chain)
        self._chain = []
        return self._out


def _first_not_placeholder(data: bytes, starts: Sequence[int], end: int) -> int | None:
    """The index of the first of ``starts`` (ascending) whose value up to ``end`` is not a
    placeholder as ``_catalogue.placeholder`` says (``PLACEHOLDER_RUN`` times one byte in a row,
    that byte half of the value or more), all of them judged in one pass from the right."""
    spend(end - starts[0])
    last_run = -1  # where the last run of PLACEHOLDER_RUN equal bytes begins
    for m in _SAME_RUNS.finditer(data, starts[0], end):
        last_run = m.end() - PLACEHOLDER_RUN
    counts: Counter[int] = Counter()
    most = 0
    pos = end
    kept: int | None = None
    for i in range(len(starts) - 1, -1, -1):
        start = starts[i]
        if start < pos:
            segment = Counter(data[start:pos])
            counts.update(segment)
            most = max(most, max(counts[b] for b in segment))
            pos = start
        size = end - start
        if size < 8 or last_run < start or most * 2 < size:
            kept = i
    return kept
